package transport

import (
	"crypto/md5"
	"strconv"
	"strings"

	"github.com/cqld/cqld/internal/query"
	"github.com/cqld/cqld/internal/types"
	"github.com/datastax/go-cassandra-native-protocol/datatype"
	"github.com/datastax/go-cassandra-native-protocol/primitive"
)

// nativeCodes maps native kinds to their [option] ids (spec section 4.2.5.2).
var nativeCodes = [...]primitive.DataTypeCode{
	types.Ascii: primitive.DataTypeCodeAscii, types.Bigint: primitive.DataTypeCodeBigint,
	types.Blob: primitive.DataTypeCodeBlob, types.Boolean: primitive.DataTypeCodeBoolean,
	types.Counter: primitive.DataTypeCodeCounter, types.Date: primitive.DataTypeCodeDate,
	types.Decimal: primitive.DataTypeCodeDecimal, types.Double: primitive.DataTypeCodeDouble,
	types.Duration: primitive.DataTypeCodeDuration, types.Float: primitive.DataTypeCodeFloat,
	types.Inet: primitive.DataTypeCodeInet, types.Int: primitive.DataTypeCodeInt,
	types.Smallint: primitive.DataTypeCodeSmallint, types.Text: primitive.DataTypeCodeVarchar,
	types.Time: primitive.DataTypeCodeTime, types.Timestamp: primitive.DataTypeCodeTimestamp,
	types.Timeuuid: primitive.DataTypeCodeTimeuuid, types.Tinyint: primitive.DataTypeCodeTinyint,
	types.UUID: primitive.DataTypeCodeUuid, types.Varint: primitive.DataTypeCodeVarint,
}

var nativeDataTypes = [...]datatype.DataType{
	types.Ascii: datatype.Ascii, types.Bigint: datatype.Bigint, types.Blob: datatype.Blob,
	types.Boolean: datatype.Boolean, types.Counter: datatype.Counter, types.Date: datatype.Date,
	types.Decimal: datatype.Decimal, types.Double: datatype.Double, types.Duration: datatype.Duration,
	types.Float: datatype.Float, types.Inet: datatype.Inet, types.Int: datatype.Int,
	types.Smallint: datatype.Smallint, types.Text: datatype.Varchar, types.Time: datatype.Time,
	types.Timestamp: datatype.Timestamp, types.Timeuuid: datatype.Timeuuid, types.Tinyint: datatype.Tinyint,
	types.UUID: datatype.Uuid, types.Varint: datatype.Varint,
}

// javaClasses are Cassandra's AbstractType class names of the native kinds.
var javaClasses = [...]string{
	types.Ascii: "AsciiType", types.Bigint: "LongType", types.Blob: "BytesType",
	types.Boolean: "BooleanType", types.Counter: "CounterColumnType", types.Date: "SimpleDateType",
	types.Decimal: "DecimalType", types.Double: "DoubleType", types.Duration: "DurationType",
	types.Float: "FloatType", types.Inet: "InetAddressType", types.Int: "Int32Type",
	types.Smallint: "ShortType", types.Text: "UTF8Type", types.Time: "TimeType",
	types.Timestamp: "TimestampType", types.Timeuuid: "TimeUUIDType", types.Tinyint: "ByteType",
	types.UUID: "UUIDType", types.Varint: "IntegerType", types.Empty: "EmptyType",
}

const marshalPkg = "org.apache.cassandra.db.marshal."

func isNative(k types.Kind) bool { return k > types.Invalid && k <= types.Varint }

// javaTypeName returns Cassandra's AbstractType.toString() of t, e.g.
// "org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.FloatType, 3)".
// It is the class string of custom types on the wire (vector and empty are
// custom types for drivers) and the input of result metadata ids.
func javaTypeName(t *types.Type) string {
	var b strings.Builder
	writeJavaType(&b, t)
	return b.String()
}

func writeJavaType(b *strings.Builder, t *types.Type) {
	if t == nil {
		b.WriteString(marshalPkg + "BytesType")
		return
	}
	if t.Frozen && t.Kind != types.Tuple && t.Kind != types.Vector { // Cassandra never freezes a vector
		b.WriteString(marshalPkg + "FrozenType(")
		defer b.WriteByte(')')
	}
	params := func(name string) {
		b.WriteString(marshalPkg + name + "(")
		for i, p := range t.Params {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJavaType(b, p)
		}
		b.WriteByte(')')
	}
	switch {
	case isNative(t.Kind) || t.Kind == types.Empty:
		b.WriteString(marshalPkg + javaClasses[t.Kind])
	case t.Kind == types.List:
		params("ListType")
	case t.Kind == types.Set:
		params("SetType")
	case t.Kind == types.Map:
		params("MapType")
	case t.Kind == types.Tuple:
		params("TupleType")
	case t.Kind == types.Vector:
		b.WriteString(marshalPkg + "VectorType(")
		if len(t.Params) > 0 {
			writeJavaType(b, t.Params[0])
		}
		b.WriteString(", ")
		b.WriteString(strconv.Itoa(t.Dimension))
		b.WriteByte(')')
	case t.Kind == types.UDT:
		// UserType(keyspace,hexname,hexfield:type,...) as Cassandra prints it.
		b.WriteString(marshalPkg + "UserType(")
		b.WriteString(t.Keyspace)
		b.WriteByte(',')
		writeHex(b, t.Name)
		for i, p := range t.Params {
			b.WriteByte(',')
			if i < len(t.FieldNames) {
				writeHex(b, t.FieldNames[i])
			}
			b.WriteByte(':')
			writeJavaType(b, p)
		}
		b.WriteByte(')')
	case t.Kind == types.Custom:
		b.WriteString(t.Class)
	default:
		b.WriteString(marshalPkg + "BytesType")
	}
}

func writeHex(b *strings.Builder, s string) {
	const digits = "0123456789abcdef"
	for i := 0; i < len(s); i++ {
		b.WriteByte(digits[s[i]>>4])
		b.WriteByte(digits[s[i]&0xf])
	}
}

// toDataType maps a CQL type to the library's data type (for messages the
// library encodes: PREPARED results). Vector, empty and unknown kinds become
// custom types carrying their Java class string, as Cassandra sends them.
func toDataType(t *types.Type) datatype.DataType {
	if t == nil {
		return datatype.Blob
	}
	switch {
	case isNative(t.Kind):
		return nativeDataTypes[t.Kind]
	case t.Kind == types.List && len(t.Params) == 1:
		return datatype.NewList(toDataType(t.Params[0]))
	case t.Kind == types.Set && len(t.Params) == 1:
		return datatype.NewSet(toDataType(t.Params[0]))
	case t.Kind == types.Map && len(t.Params) == 2:
		return datatype.NewMap(toDataType(t.Params[0]), toDataType(t.Params[1]))
	case t.Kind == types.Tuple:
		elems := make([]datatype.DataType, len(t.Params))
		for i, p := range t.Params {
			elems[i] = toDataType(p)
		}
		return datatype.NewTuple(elems...)
	case t.Kind == types.UDT && len(t.FieldNames) == len(t.Params):
		fields := make([]datatype.DataType, len(t.Params))
		for i, p := range t.Params {
			fields[i] = toDataType(p)
		}
		udt, err := datatype.NewUserDefined(t.Keyspace, t.Name, t.FieldNames, fields)
		if err == nil {
			return udt
		}
	case t.Kind == types.Custom:
		return datatype.NewCustom(t.Class)
	}
	return datatype.NewCustom(javaTypeName(t))
}

// appendType appends the [option] encoding of t; it must produce the same
// bytes as datatype.WriteDataType(toDataType(t)) (checked by codec_test.go).
func appendType(b []byte, t *types.Type) []byte {
	if t == nil {
		return appendShort(b, uint16(primitive.DataTypeCodeBlob))
	}
	switch {
	case isNative(t.Kind):
		return appendShort(b, uint16(nativeCodes[t.Kind]))
	case t.Kind == types.List && len(t.Params) == 1:
		return appendType(appendShort(b, uint16(primitive.DataTypeCodeList)), t.Params[0])
	case t.Kind == types.Set && len(t.Params) == 1:
		return appendType(appendShort(b, uint16(primitive.DataTypeCodeSet)), t.Params[0])
	case t.Kind == types.Map && len(t.Params) == 2:
		b = appendShort(b, uint16(primitive.DataTypeCodeMap))
		return appendType(appendType(b, t.Params[0]), t.Params[1])
	case t.Kind == types.Tuple:
		b = appendShort(b, uint16(primitive.DataTypeCodeTuple))
		b = appendShort(b, uint16(len(t.Params)))
		for _, p := range t.Params {
			b = appendType(b, p)
		}
		return b
	case t.Kind == types.UDT && len(t.FieldNames) == len(t.Params):
		b = appendShort(b, uint16(primitive.DataTypeCodeUdt))
		b = appendString(b, t.Keyspace)
		b = appendString(b, t.Name)
		b = appendShort(b, uint16(len(t.Params)))
		for i, p := range t.Params {
			b = appendString(b, t.FieldNames[i])
			b = appendType(b, p)
		}
		return b
	case t.Kind == types.Custom:
		return appendString(appendShort(b, uint16(primitive.DataTypeCodeCustom)), t.Class)
	}
	return appendString(appendShort(b, uint16(primitive.DataTypeCodeCustom)), javaTypeName(t))
}

// resultMetadataID computes a v5 result metadata id the way Cassandra does
// (ResultSet.ResultMetadata.computeResultMetadataId): MD5 over each column's
// name, 0, type string, 0, 0.
func resultMetadataID(cols []query.ColumnSpec) []byte {
	h := md5.New()
	var sep = []byte{0}
	for _, c := range cols {
		h.Write([]byte(c.Name))
		h.Write(sep)
		h.Write([]byte(javaTypeName(c.Type)))
		h.Write(sep)
		h.Write(sep)
	}
	return h.Sum(nil)
}
