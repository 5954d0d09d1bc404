package query

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"

	"github.com/cqld/cqld/internal/cql"
	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/types"
)

// fromJson() and the JSON-to-value conversion of Cassandra's
// AbstractType.fromJSONObject: numbers may be given as JSON numbers or
// strings, blobs as "0x…" strings, timestamps as strings or milliseconds,
// collections as arrays/objects (map keys as strings, parsed as JSON for
// non-text key types), tuples as arrays and UDTs as objects.

func (c *compiled) compileFromJSON(f *cql.FunctionCall, recv ColumnSpec, now func() time.Time) (termFn, error) {
	if len(f.Args) != 1 {
		return nil, cqlerr.Invalidf("Invalid number of arguments in call to function system.fromjson: 1 required but %d provided", len(f.Args))
	}
	arg, err := c.compileTerm(f.Args[0], ColumnSpec{Keyspace: recv.Keyspace, Table: recv.Table,
		Name: "arg0(system.fromjson)", Type: types.TextType}, now)
	if err != nil {
		return nil, err
	}
	typ := recv.Type
	return func(vals []Value) ([]byte, bool, error) {
		b, unset, err := arg(vals)
		if err != nil || unset || b == nil {
			return nil, unset, err
		}
		v, err := decodeJSON(b)
		if err != nil {
			return nil, false, fromJSONFailure("Could not decode JSON string '%s': %s", b, err)
		}
		out, err := jsonToValue(typ, v)
		if err != nil {
			return nil, false, fromJSONFailure("%s", cqlerr.As(err).Message)
		}
		return out, false, nil
	}, nil
}

func decodeJSON(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, cqlerr.Invalidf("trailing data")
	}
	return v, nil
}

// jsonToValue converts a decoded JSON value to the serialized form of t.
func jsonToValue(t *types.Type, v any) ([]byte, error) {
	if v == nil {
		return nil, nil
	}
	switch t.Kind {
	case types.Text, types.Ascii:
		s, ok := v.(string)
		if !ok {
			return nil, cqlerr.Invalidf("Expected a UTF-8 string, but got a %s: %v", jsonKind(v), v)
		}
		return types.ParseString(t, s)
	case types.Tinyint, types.Smallint, types.Int, types.Bigint, types.Counter, types.Varint,
		types.Float, types.Double, types.Decimal:
		switch x := v.(type) {
		case json.Number:
			return types.ParseString(t, string(x))
		case string:
			return types.ParseString(t, x)
		}
		return nil, cqlerr.Invalidf("Expected a number, but got a %s: %v", jsonKind(v), v)
	case types.Boolean:
		switch x := v.(type) {
		case bool:
			return types.EncodeBoolean(x), nil
		case string:
			if strings.EqualFold(x, "true") || strings.EqualFold(x, "false") {
				return types.EncodeBoolean(strings.EqualFold(x, "true")), nil
			}
		}
		return nil, cqlerr.Invalidf("Expected a boolean value, but got a %s: %v", jsonKind(v), v)
	case types.Timestamp, types.Date, types.Time:
		switch x := v.(type) {
		case json.Number:
			return types.ParseString(t, string(x))
		case string:
			return types.ParseString(t, x)
		}
		return nil, cqlerr.Invalidf("Expected a string representation of a %s value, but got a %s: %v", t, jsonKind(v), v)
	case types.Blob, types.UUID, types.Timeuuid, types.Inet, types.Duration, types.Custom:
		s, ok := v.(string)
		if !ok {
			return nil, cqlerr.Invalidf("Expected a string representation of a %s value, but got a %s: %v", t, jsonKind(v), v)
		}
		if t.Kind == types.Blob && !strings.HasPrefix(s, "0x") {
			return nil, cqlerr.Invalidf("String representation of blob is missing 0x prefix: %s", s)
		}
		return types.ParseString(t, s)
	case types.List, types.Set, types.Vector:
		arr, ok := v.([]any)
		if !ok {
			return nil, cqlerr.Invalidf("Expected a list, but got a %s: %v", jsonKind(v), v)
		}
		els := make([][]byte, len(arr))
		for i, e := range arr {
			if e == nil {
				return nil, cqlerr.Invalidf("Invalid null element in %s", t)
			}
			b, err := jsonToValue(t.Params[0], e)
			if err != nil {
				return nil, err
			}
			els[i] = b
		}
		switch t.Kind {
		case types.Set:
			return types.EncodeSet(t.Params[0], els), nil
		case types.Vector:
			if len(els) != t.Dimension {
				return nil, cqlerr.Invalidf("Invalid vector literal for %s; expected %d elements, but given %d", t, t.Dimension, len(els))
			}
			return types.EncodeVector(t, els), nil
		}
		return types.EncodeList(els), nil
	case types.Map:
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, cqlerr.Invalidf("Expected a map, but got a %s: %v", jsonKind(v), v)
		}
		var ks, vs [][]byte
		for k, e := range obj {
			var kv any = k
			if kt := t.Params[0].Kind; kt != types.Text && kt != types.Ascii {
				if d, err := decodeJSON([]byte(k)); err == nil {
					kv = d
				}
			}
			kb, err := jsonToValue(t.Params[0], kv)
			if err != nil {
				return nil, err
			}
			if e == nil {
				return nil, cqlerr.Invalidf("Invalid null value in map")
			}
			vb, err := jsonToValue(t.Params[1], e)
			if err != nil {
				return nil, err
			}
			ks, vs = append(ks, kb), append(vs, vb)
		}
		return types.EncodeMap(t.Params[0], ks, vs), nil
	case types.Tuple:
		arr, ok := v.([]any)
		if !ok {
			return nil, cqlerr.Invalidf("Expected a list representation of a tuple, but got a %s: %v", jsonKind(v), v)
		}
		if len(arr) > len(t.Params) {
			return nil, cqlerr.Invalidf("Tuple contains extra items (expected %d): %v", len(t.Params), v)
		}
		parts := make([][]byte, len(t.Params))
		for i, e := range arr {
			b, err := jsonToValue(t.Params[i], e)
			if err != nil {
				return nil, err
			}
			parts[i] = b
		}
		return types.EncodeTuple(parts), nil
	case types.UDT:
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, cqlerr.Invalidf("Expected a map, but got a %s: %v", jsonKind(v), v)
		}
		parts := make([][]byte, len(t.Params))
		seen := 0
		for i, name := range t.FieldNames {
			key := name
			if _, ok := obj[key]; !ok && name != strings.ToLower(name) {
				key = `"` + name + `"`
			}
			e, ok := obj[key]
			if !ok {
				continue
			}
			seen++
			b, err := jsonToValue(t.Params[i], e)
			if err != nil {
				return nil, err
			}
			parts[i] = b
		}
		if seen != len(obj) {
			for k := range obj {
				found := false
				for _, n := range t.FieldNames {
					if n == k || `"`+n+`"` == k {
						found = true
					}
				}
				if !found {
					return nil, cqlerr.Invalidf("Unknown field '%s' in value of user defined type %s", k, t.Name)
				}
			}
		}
		return types.EncodeTuple(parts), nil
	}
	return nil, cqlerr.Invalidf("JSON is not supported for type %s", t)
}

func jsonKind(v any) string {
	switch v.(type) {
	case string:
		return "String"
	case json.Number:
		return "Number"
	case bool:
		return "Boolean"
	case []any:
		return "ArrayList"
	case map[string]any:
		return "LinkedHashMap"
	}
	return "Object"
}

func fromJSONFailure(format string, args ...any) error {
	e := cqlerr.New(cqlerr.FunctionFailure, "execution of 'system.fromjson[text]' failed: "+format, args...)
	e.Keyspace, e.Table = "system", "fromjson"
	return e
}
