package types

import (
	"strconv"
	"strings"

	"github.com/cqld/cqld/internal/cql"
)

// Kind identifies a CQL type constructor.
type Kind uint8

// Kinds. Native kinds first, then the parameterized ones.
const (
	Invalid Kind = iota
	Ascii
	Bigint
	Blob
	Boolean
	Counter
	Date
	Decimal
	Double
	Duration
	Float
	Inet
	Int
	Smallint
	Text // also "varchar"
	Time
	Timestamp
	Timeuuid
	Tinyint
	UUID
	Varint
	Empty // Cassandra's EmptyType, used by some system tables

	List
	Set
	Map
	Tuple
	UDT
	Vector
	Custom
)

var kindNames = [...]string{
	Invalid: "invalid", Ascii: "ascii", Bigint: "bigint", Blob: "blob", Boolean: "boolean",
	Counter: "counter", Date: "date", Decimal: "decimal", Double: "double", Duration: "duration",
	Float: "float", Inet: "inet", Int: "int", Smallint: "smallint", Text: "text", Time: "time",
	Timestamp: "timestamp", Timeuuid: "timeuuid", Tinyint: "tinyint", UUID: "uuid", Varint: "varint",
	Empty: "empty", List: "list", Set: "set", Map: "map", Tuple: "tuple", UDT: "udt",
	Vector: "vector", Custom: "custom",
}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Type is an immutable CQL type descriptor. Native types are the package-level
// singletons (types.Int, types.Text, ...); compare types with Equal, not ==.
type Type struct {
	Kind Kind
	// Params holds the element type of list/set/vector, key and value of map,
	// the components of a tuple and the field types of a UDT.
	Params []*Type
	// Frozen marks a frozen collection or UDT. Tuples are always frozen.
	// Vectors are never multi-cell and Cassandra never spells them frozen
	// (VectorType's CQL3 type prints "vector<float, 3>"), so Frozen is
	// ignored for them by String and Equal.
	Frozen bool
	// UDT identity and field names (len(FieldNames) == len(Params)).
	Keyspace, Name string
	FieldNames     []string
	// Dimension of a vector.
	Dimension int
	// Class is the Java class name of a custom type.
	Class string
}

// Native type singletons.
var (
	AsciiType     = &Type{Kind: Ascii}
	BigintType    = &Type{Kind: Bigint}
	BlobType      = &Type{Kind: Blob}
	BooleanType   = &Type{Kind: Boolean}
	CounterType   = &Type{Kind: Counter}
	DateType      = &Type{Kind: Date}
	DecimalType   = &Type{Kind: Decimal}
	DoubleType    = &Type{Kind: Double}
	DurationType  = &Type{Kind: Duration}
	FloatType     = &Type{Kind: Float}
	InetType      = &Type{Kind: Inet}
	IntType       = &Type{Kind: Int}
	SmallintType  = &Type{Kind: Smallint}
	TextType      = &Type{Kind: Text}
	TimeType      = &Type{Kind: Time}
	TimestampType = &Type{Kind: Timestamp}
	TimeuuidType  = &Type{Kind: Timeuuid}
	TinyintType   = &Type{Kind: Tinyint}
	UUIDType      = &Type{Kind: UUID}
	VarintType    = &Type{Kind: Varint}
	EmptyType     = &Type{Kind: Empty}
)

// NativeByName maps the CQL names of native types to their singletons.
var NativeByName = map[string]*Type{
	"ascii": AsciiType, "bigint": BigintType, "blob": BlobType, "boolean": BooleanType,
	"counter": CounterType, "date": DateType, "decimal": DecimalType, "double": DoubleType,
	"duration": DurationType, "float": FloatType, "inet": InetType, "int": IntType,
	"smallint": SmallintType, "text": TextType, "varchar": TextType, "time": TimeType,
	"timestamp": TimestampType, "timeuuid": TimeuuidType, "tinyint": TinyintType,
	"uuid": UUIDType, "varint": VarintType,
}

// ListOf, SetOf, MapOf, TupleOf build parameterized types.
func ListOf(e *Type, frozen bool) *Type { return &Type{Kind: List, Params: []*Type{e}, Frozen: frozen} }
func SetOf(e *Type, frozen bool) *Type  { return &Type{Kind: Set, Params: []*Type{e}, Frozen: frozen} }
func MapOf(k, v *Type, frozen bool) *Type {
	return &Type{Kind: Map, Params: []*Type{k, v}, Frozen: frozen}
}
func TupleOf(elems ...*Type) *Type { return &Type{Kind: Tuple, Params: elems, Frozen: true} }

// IsCollection reports whether t is a list, set or map.
func (t *Type) IsCollection() bool { return t.Kind == List || t.Kind == Set || t.Kind == Map }

// IsMultiCell reports whether values of t are stored as one cell per element
// (non-frozen collections and UDTs).
func (t *Type) IsMultiCell() bool { return (t.IsCollection() || t.Kind == UDT) && !t.Frozen }

// Equal reports whether two type descriptors denote the same type.
func (t *Type) Equal(o *Type) bool {
	if t == o {
		return true
	}
	if t == nil || o == nil || t.Kind != o.Kind || (t.Frozen != o.Frozen && t.Kind != Vector) || len(t.Params) != len(o.Params) ||
		t.Dimension != o.Dimension || t.Class != o.Class || t.Keyspace != o.Keyspace || t.Name != o.Name {
		return false
	}
	for i := range t.Params {
		if !t.Params[i].Equal(o.Params[i]) {
			return false
		}
	}
	return true
}

// String returns the CQL spelling of the type, as system_schema.columns.type
// shows it (e.g. "frozen<map<text, int>>").
func (t *Type) String() string {
	var b strings.Builder
	t.format(&b)
	return b.String()
}

func (t *Type) format(b *strings.Builder) {
	// Tuples are always frozen and Cassandra spells them so; vectors are
	// never spelled frozen.
	if (t.Frozen || t.Kind == Tuple) && t.Kind != Vector {
		b.WriteString("frozen<")
		defer b.WriteByte('>')
	}
	switch t.Kind {
	case List, Set, Map, Tuple:
		b.WriteString(t.Kind.String())
		b.WriteByte('<')
		for i, p := range t.Params {
			if i > 0 {
				b.WriteString(", ")
			}
			p.format(b)
		}
		b.WriteByte('>')
	case Vector:
		b.WriteString("vector<")
		t.Params[0].format(b)
		b.WriteString(", ")
		b.WriteString(strconv.Itoa(t.Dimension))
		b.WriteByte('>')
	case UDT:
		b.WriteString(cql.MaybeQuote(t.Name))
	case Custom:
		b.WriteByte('\'')
		b.WriteString(t.Class)
		b.WriteByte('\'')
	default:
		b.WriteString(t.Kind.String())
	}
}
