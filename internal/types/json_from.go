package types

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math/big"
	"strconv"
	"strings"

	"github.com/cqld/cqld/internal/cqlerr"
)

// JSON input, after Cassandra's AbstractType.fromJSONObject (used by
// fromJson() and INSERT JSON). DecodeJSON parses a document the way Jackson
// does for Cassandra (numbers kept exact as json.Number); FromJSON converts
// one decoded value to the serialized form of a type. Its errors are
// *cqlerr.Error Invalid values whose messages are Cassandra's
// MarshalException texts; callers add their own prefix.

// DecodeJSON parses one JSON document. Objects keep their key order in
// JSONObject.
func DecodeJSON(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	v, err := decodeJSONValue(d)
	if err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, errors.New("unexpected trailing data after the JSON value")
	}
	return v, nil
}

// JSONObject is a decoded JSON object with its keys in document order.
type JSONObject struct {
	Keys   []string
	Values map[string]any
}

func decodeJSONValue(d *json.Decoder) (any, error) {
	v, err := decodeJSONToken(d)
	if err == io.EOF {
		return nil, errors.New("no content to map due to end-of-input")
	}
	return v, err
}

// nestedErr turns the end of input inside an array or object into
// io.ErrUnexpectedEOF.
func nestedErr(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

func decodeJSONToken(d *json.Decoder) (any, error) {
	tok, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch x := tok.(type) {
	case json.Delim:
		switch x {
		case '[':
			arr := []any{}
			for d.More() {
				v, err := decodeJSONToken(d)
				if err != nil {
					return nil, nestedErr(err)
				}
				arr = append(arr, v)
			}
			if _, err := d.Token(); err != nil {
				return nil, nestedErr(err)
			}
			return arr, nil
		case '{':
			obj := &JSONObject{Values: map[string]any{}}
			for d.More() {
				kt, err := d.Token()
				if err != nil {
					return nil, nestedErr(err)
				}
				k, ok := kt.(string)
				if !ok {
					return nil, errors.New("object key is not a string")
				}
				v, err := decodeJSONToken(d)
				if err != nil {
					return nil, nestedErr(err)
				}
				if _, dup := obj.Values[k]; !dup {
					obj.Keys = append(obj.Keys, k)
				}
				obj.Values[k] = v // Jackson keeps the last duplicate
			}
			if _, err := d.Token(); err != nil {
				return nil, nestedErr(err)
			}
			return obj, nil
		}
		return nil, errors.New("unexpected delimiter " + x.String())
	default:
		return x, nil // string, json.Number, bool, nil
	}
}

// HandleCaseSensitivity is Cassandra's JsonUtils.handleCaseSensitivity for
// column and field names: a key in double quotes names a case-sensitive
// identifier, any other key is lowercased. It returns a new object.
func HandleCaseSensitivity(o *JSONObject) *JSONObject {
	out := &JSONObject{Values: make(map[string]any, len(o.Keys))}
	for _, k := range o.Keys {
		nk := k
		if len(k) >= 2 && strings.HasPrefix(k, `"`) && strings.HasSuffix(k, `"`) {
			nk = k[1 : len(k)-1]
		} else {
			nk = strings.ToLower(k)
		}
		if _, dup := out.Values[nk]; !dup {
			out.Keys = append(out.Keys, nk)
		}
		out.Values[nk] = o.Values[k]
	}
	return out
}

// JavaClassName is the simple class name Jackson gives a decoded value
// (as Cassandra's messages show it).
func JavaClassName(v any) string {
	switch x := v.(type) {
	case string:
		return "String"
	case json.Number:
		return numberClass(x)
	case bool:
		return "Boolean"
	case []any:
		return "ArrayList"
	case *JSONObject:
		return "LinkedHashMap"
	}
	return "Object"
}

func numberClass(n json.Number) string {
	s := string(n)
	if strings.ContainsAny(s, ".eE") {
		return "Double"
	}
	if _, err := strconv.ParseInt(s, 10, 32); err == nil {
		return "Integer"
	}
	if _, err := strconv.ParseInt(s, 10, 64); err == nil {
		return "Long"
	}
	return "BigInteger"
}

// JavaString renders a decoded value as Java's toString does (messages).
func JavaString(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case json.Number:
		if numberClass(x) == "Double" {
			f, err := strconv.ParseFloat(string(x), 64)
			if err == nil {
				return JavaDouble(f, 64)
			}
		}
		return string(x)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = JavaString(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case *JSONObject:
		parts := make([]string, len(x.Keys))
		for i, k := range x.Keys {
			parts[i] = k + "=" + JavaString(x.Values[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return ""
}

func marshalf(format string, args ...any) error { return cqlerr.Invalidf(format, args...) }

func expected(what string, v any) error {
	return marshalf("Expected %s, but got a %s: %s", what, JavaClassName(v), JavaString(v))
}

// decodeNested decodes a string holding JSON (collections, tuples and UDTs
// accept their JSON form as a string, as Cassandra does).
func decodeNested(v any) (any, error) {
	s, ok := v.(string)
	if !ok {
		return v, nil
	}
	d, err := DecodeJSON([]byte(s))
	if err != nil {
		return nil, marshalf("Error decoding JSON string: %s", err.Error())
	}
	return d, nil
}

// parseStr runs the string parser of t and keeps its message.
func parseStr(t *Type, s string) ([]byte, error) {
	b, err := ParseString(t, s)
	if err != nil {
		return nil, WithColumn(err, "?")
	}
	return b, nil
}

// FromJSON converts a decoded JSON value (DecodeJSON) to the serialized form
// of t. nil (JSON null) gives nil.
func FromJSON(t *Type, v any) ([]byte, error) {
	if v == nil {
		return nil, nil
	}
	switch t.Kind {
	case Text:
		s, ok := v.(string)
		if !ok {
			return nil, expected("a UTF-8 string", v)
		}
		return parseStr(t, s)
	case Ascii:
		s, ok := v.(string)
		if !ok {
			return nil, expected("an ascii string", v)
		}
		return parseStr(t, s)
	case Int:
		switch x := v.(type) {
		case string:
			return parseStr(t, x)
		case json.Number:
			if numberClass(x) != "Integer" {
				return nil, expected("an int value", v)
			}
			return parseStr(t, string(x))
		}
		return nil, expected("an int value", v)
	case Bigint, Counter:
		switch x := v.(type) {
		case string:
			return parseStr(BigintType, x)
		case json.Number:
			if c := numberClass(x); c != "Integer" && c != "Long" {
				return nil, expected("a bigint value", v)
			}
			return parseStr(BigintType, string(x))
		}
		return nil, expected("a bigint value", v)
	case Smallint, Tinyint:
		what := "a short value"
		if t.Kind == Tinyint {
			what = "a byte value"
		}
		switch x := v.(type) {
		case string:
			return parseStr(t, x)
		case json.Number:
			return parseStr(t, JavaString(x))
		}
		return nil, expected(what, v)
	case Varint:
		switch x := v.(type) {
		case string, json.Number:
			s := JavaString(x)
			if _, ok := new(big.Int).SetString(s, 10); !ok {
				return nil, marshalf("Value '%s' is not a valid representation of a varint value", s)
			}
			return parseStr(t, s)
		}
		return nil, marshalf("Value '%s' is not a valid representation of a varint value", JavaString(v))
	case Decimal:
		switch x := v.(type) {
		case string, json.Number:
			s := JavaString(x)
			if s == "" {
				return []byte{}, nil // DecimalType.fromString: the empty value
			}
			if _, ok := new(big.Float).SetString(s); !ok || strings.ContainsAny(s, "nN") {
				return nil, marshalf("Value '%s' is not a valid representation of a decimal value", s)
			}
			return parseStr(t, s)
		}
		return nil, marshalf("Value '%s' is not a valid representation of a decimal value", JavaString(v))
	case Float, Double:
		what := "a float value"
		if t.Kind == Double {
			what = "a double value"
		}
		switch x := v.(type) {
		case string:
			return parseStr(t, x)
		case json.Number:
			f, err := strconv.ParseFloat(string(x), 64)
			if err != nil {
				return nil, expected(what, v)
			}
			if t.Kind == Float {
				return EncodeFloat(float32(f)), nil
			}
			return EncodeDouble(f), nil
		}
		return nil, expected(what, v)
	case Boolean:
		switch x := v.(type) {
		case bool:
			return EncodeBoolean(x), nil
		case string:
			return parseStr(t, x)
		}
		return nil, expected("a boolean value", v)
	case Timestamp:
		switch x := v.(type) {
		case json.Number:
			if c := numberClass(x); c == "Integer" || c == "Long" {
				n, _ := strconv.ParseInt(string(x), 10, 64)
				return EncodeBigint(n), nil
			}
		case string:
			return parseStr(t, x)
		}
		return nil, expected("a long or a datestring representation of a timestamp value", v)
	case Date, Time, UUID, Timeuuid, Inet, Duration:
		s, ok := v.(string)
		if !ok {
			what := map[Kind]string{Date: "a string representation of a date value", Time: "a string representation of a time value",
				UUID: "a string representation of a uuid", Timeuuid: "a string representation of a timeuuid",
				Inet: "a string representation of an inet value", Duration: "a string representation of a duration"}[t.Kind]
			return nil, expected(what, v)
		}
		return parseStr(t, s)
	case Blob, Custom:
		s, ok := v.(string)
		if !ok {
			return nil, marshalf("Value '%s' is not a valid blob representation: %s", JavaString(v),
				"class "+JavaClassName(v)+" cannot be cast to class String")
		}
		if !strings.HasPrefix(s, "0x") {
			return nil, marshalf("Value '%s' is not a valid blob representation: String representation of blob is missing 0x prefix: %s", s, s)
		}
		b, err := parseStr(t, s)
		if err != nil {
			return nil, marshalf("Value '%s' is not a valid blob representation: %s", s, cqlerr.As(err).Message)
		}
		return b, nil
	case List, Set, Vector:
		v, err := decodeNested(v)
		if err != nil {
			return nil, err
		}
		arr, ok := v.([]any)
		if !ok {
			switch t.Kind {
			case Set:
				return nil, expected("a list (representing a set)", v)
			default:
				return nil, expected("a list", v)
			}
		}
		if t.Kind == Vector && len(arr) != t.Dimension {
			return nil, marshalf("Invalid vector literal for %s; expected %d elements, but given %d", t, t.Dimension, len(arr))
		}
		els := make([][]byte, len(arr))
		for i, e := range arr {
			if e == nil {
				what := "list"
				if t.Kind == Set {
					what = "set"
				}
				return nil, marshalf("Invalid null element in %s", what)
			}
			b, err := FromJSON(t.Params[0], e)
			if err != nil {
				return nil, err
			}
			els[i] = b
		}
		switch t.Kind {
		case Set:
			return EncodeSet(t.Params[0], els), nil
		case Vector:
			return EncodeVector(t, els), nil
		}
		return EncodeList(els), nil
	case Map:
		v, err := decodeNested(v)
		if err != nil {
			return nil, err
		}
		obj, ok := v.(*JSONObject)
		if !ok {
			return nil, expected("a map", v)
		}
		var ks, vs [][]byte
		for _, k := range obj.Keys {
			e := obj.Values[k]
			var kv any = k
			if kt := t.Params[0].Kind; kt != Text && kt != Ascii {
				// Non-text keys may be given as their JSON form ("1",
				// "\"uuid\"", "[1, 2]"), as toJson() writes them.
				if d, err := DecodeJSON([]byte(k)); err == nil && d != nil {
					kv = d
				}
			}
			if e == nil {
				return nil, marshalf("Invalid null value in map")
			}
			kb, err := FromJSON(t.Params[0], kv)
			if err != nil {
				return nil, err
			}
			vb, err := FromJSON(t.Params[1], e)
			if err != nil {
				return nil, err
			}
			ks, vs = append(ks, kb), append(vs, vb)
		}
		return EncodeMap(t.Params[0], ks, vs), nil
	case Tuple:
		v, err := decodeNested(v)
		if err != nil {
			return nil, err
		}
		arr, ok := v.([]any)
		if !ok {
			return nil, expected("a list representation of a tuple", v)
		}
		if len(arr) > len(t.Params) {
			return nil, marshalf("Tuple contains extra items (expected %d): %s", len(t.Params), JavaString(v))
		}
		if len(arr) < len(t.Params) {
			return nil, marshalf("Tuple is missing items (expected %d): %s", len(t.Params), JavaString(v))
		}
		parts := make([][]byte, len(t.Params))
		for i, e := range arr {
			b, err := FromJSON(t.Params[i], e)
			if err != nil {
				return nil, err
			}
			parts[i] = b
		}
		return EncodeTuple(parts), nil
	case UDT:
		v, err := decodeNested(v)
		if err != nil {
			return nil, err
		}
		obj, ok := v.(*JSONObject)
		if !ok {
			return nil, expected("a map", v)
		}
		obj = HandleCaseSensitivity(obj)
		parts := make([][]byte, len(t.Params))
		found := 0
		for i, name := range t.FieldNames {
			e := obj.Values[name]
			if e == nil {
				continue
			}
			found++
			b, err := FromJSON(t.Params[i], e)
			if err != nil {
				return nil, err
			}
			parts[i] = b
		}
		if found != len(obj.Keys) {
			for _, k := range obj.Keys {
				known := false
				for _, n := range t.FieldNames {
					if n == k {
						known = true
						break
					}
				}
				if !known {
					return nil, marshalf("Unknown field '%s' in value of user defined type %s", k, t.Name)
				}
			}
		}
		return EncodeTuple(parts), nil
	}
	return nil, marshalf("JSON is not supported for type %s", t)
}
