package query

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"hash"
	"math/big"
	"strings"
	"unicode/utf8"

	"github.com/cqld/cqld/internal/cql"
	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/types"
)

// Cassandra 5.0's dynamic data masking functions (cql3/functions/masking),
// usable as selectors: mask_null, mask_default, mask_replace, mask_inner,
// mask_outer and mask_hash.

func resolveMask(name string, raw []cql.SelectorExpr, argTypes []*types.Type) (*nativeFn, bool, error) {
	argc := len(argTypes)
	in := func() (*types.Type, error) {
		if argc > 0 && argTypes[0] != nil {
			return argTypes[0], nil
		}
		if argc > 0 {
			if t := literalTypeOf(raw[0]); t != nil {
				return t, nil
			}
		}
		return nil, cqlerr.Invalidf("Ambiguous call to function system.%s: use type casts to disambiguate", name)
	}
	switch name {
	case "mask_null":
		if argc != 1 {
			return nil, true, cqlerr.Invalidf("Invalid number of arguments in call to function system.%s: 1 required but %d provided", name, argc)
		}
		t, err := in()
		if err != nil {
			return nil, true, err
		}
		return &nativeFn{name: name, params: []*types.Type{t}, ret: t, calledOnNull: true,
			exec: func(*evalCtx, [][]byte) ([]byte, error) { return nil, nil }}, true, nil
	case "mask_default":
		// DefaultMaskingFunction: the fixed AbstractType.getMaskedValue of
		// the argument's type, whatever the argument (null included).
		if argc != 1 {
			return nil, true, cqlerr.Invalidf("Invalid number of arguments in call to function system.%s: 1 required but %d provided", name, argc)
		}
		t, err := in()
		if err != nil {
			return nil, true, err
		}
		v, ok := maskedValue(t)
		if !ok {
			// Cassandra fails here with a ServerError (getMaskedValue's
			// UnsupportedOperationException); the mistake is the client's,
			// so cqld answers Invalid with the same text.
			return nil, true, cqlerr.Invalidf("There isn't a defined masked value for type %s", t)
		}
		return &nativeFn{name: name, params: []*types.Type{t}, ret: t, calledOnNull: true,
			exec: func(*evalCtx, [][]byte) ([]byte, error) { return v, nil }}, true, nil
	case "mask_replace":
		if argc != 2 {
			return nil, true, cqlerr.Invalidf("Invalid number of arguments in call to function system.%s: 2 required but %d provided", name, argc)
		}
		t, err := in()
		if err != nil {
			return nil, true, err
		}
		// ReplaceMaskingFunction returns the replacement whatever the
		// masked value, null included.
		return &nativeFn{name: name, params: []*types.Type{t, t}, ret: t, calledOnNull: true,
			exec: func(_ *evalCtx, a [][]byte) ([]byte, error) { return a[1], nil }}, true, nil
	case "mask_inner", "mask_outer":
		if argc != 3 && argc != 4 {
			return nil, true, cqlerr.Invalidf("Invalid number of arguments in call to function system.%s: 3 required but %d provided", name, argc)
		}
		t, err := in()
		if err != nil {
			return nil, true, err
		}
		if t.Kind != types.Text && t.Kind != types.Ascii {
			// FunctionParameter.string(): fixed(TEXT, VARCHAR, ASCII).
			return nil, true, cqlerr.Invalidf("Function system.%s requires an argument of type [text|varchar|ascii], but found argument %s of type %s", name, selName(raw[0]), t)
		}
		params := []*types.Type{t, types.IntType, types.IntType}
		if argc == 4 {
			params = append(params, types.TextType)
		}
		return &nativeFn{name: name, params: params, ret: t, calledOnNull: true,
			exec: func(_ *evalCtx, a [][]byte) ([]byte, error) {
				if a[0] == nil {
					return nil, nil
				}
				begin, end := int32(0), int32(0)
				if a[1] != nil {
					begin, _ = types.DecodeInt(a[1])
				}
				if a[2] != nil {
					end, _ = types.DecodeInt(a[2])
				}
				if begin < 0 || end < 0 {
					return nil, cqlerr.Invalidf("Masking functions cannot take negative arguments")
				}
				pad := '*'
				if len(a) == 4 && a[3] != nil {
					if utf8.RuneCount(a[3]) != 1 {
						return nil, cqlerr.Invalidf("The padding argument for function %s should be single-character, but '%s' has %d characters.", name, a[3], utf8.RuneCount(a[3]))
					}
					pad, _ = utf8.DecodeRune(a[3])
				}
				rs := []rune(string(a[0]))
				var b strings.Builder
				for i, r := range rs {
					outer := i < int(begin) || i >= len(rs)-int(end)
					if outer == (name == "mask_inner") {
						b.WriteRune(r)
					} else {
						b.WriteRune(pad)
					}
				}
				return []byte(b.String()), nil
			}}, true, nil
	case "mask_hash":
		if argc != 1 && argc != 2 {
			return nil, true, cqlerr.Invalidf("Invalid number of arguments in call to function system.%s: 1 required but %d provided", name, argc)
		}
		t, err := in()
		if err != nil {
			return nil, true, err
		}
		params := []*types.Type{t}
		if argc == 2 {
			params = append(params, types.TextType)
		}
		return &nativeFn{name: name, params: params, ret: types.BlobType, calledOnNull: true,
			exec: func(_ *evalCtx, a [][]byte) ([]byte, error) {
				if a[0] == nil {
					return nil, nil
				}
				algo := "SHA-256"
				if len(a) == 2 && a[1] != nil {
					algo = string(a[1])
				}
				var h hash.Hash
				switch strings.ToUpper(algo) {
				case "SHA-256":
					h = sha256.New()
				case "SHA-512":
					h = sha512.New()
				case "SHA-384":
					h = sha512.New384()
				case "SHA-1", "SHA":
					h = sha1.New()
				case "MD5":
					h = md5.New()
				default:
					return nil, cqlerr.Invalidf("Hash algorithm not found: %s", algo)
				}
				h.Write(a[0])
				return h.Sum(nil), nil
			}}, true, nil
	}
	return nil, false, nil
}

// maskedValue is Cassandra's AbstractType.getMaskedValue: '****' for
// strings, zero for numbers, false, the epoch for dates and times, the
// zero uuid, 0.0.0.0, an empty blob or collection, and the masked value
// of each component for tuples and UDTs. Other types (vectors) have none.
func maskedValue(t *types.Type) ([]byte, bool) {
	switch t.Kind {
	case types.Ascii, types.Text:
		return types.EncodeText("****"), true
	case types.Boolean:
		return types.EncodeBoolean(false), true
	case types.Tinyint:
		return types.EncodeTinyint(0), true
	case types.Smallint:
		return types.EncodeSmallint(0), true
	case types.Int:
		return types.EncodeInt(0), true
	case types.Bigint, types.Counter, types.Timestamp:
		return types.EncodeBigint(0), true
	case types.Float:
		return types.EncodeFloat(0), true
	case types.Double:
		return types.EncodeDouble(0), true
	case types.Varint:
		return types.EncodeVarint(new(big.Int)), true
	case types.Decimal:
		return types.EncodeDecimal(new(big.Int), 0), true
	case types.Date:
		return types.EncodeDate(0), true
	case types.Time:
		return types.EncodeTime(0), true
	case types.Duration:
		return types.EncodeDuration(0, 0, 0), true
	case types.UUID:
		return make([]byte, 16), true
	case types.Timeuuid:
		return boundTimeUUID(0, false), true // TimeUUID.minAtUnixMillis(0)
	case types.Inet:
		return make([]byte, 4), true
	case types.Blob:
		return []byte{}, true
	case types.List:
		return types.EncodeList(nil), true
	case types.Set:
		return types.EncodeSet(t.Params[0], nil), true
	case types.Map:
		return types.EncodeMap(t.Params[0], nil, nil), true
	case types.Tuple, types.UDT:
		comps := make([][]byte, len(t.Params))
		for i, p := range t.Params {
			v, ok := maskedValue(p)
			if !ok {
				return nil, false
			}
			comps[i] = v
		}
		return types.EncodeTuple(comps), true
	}
	return nil, false
}

// literalTypeOf is the preferred type of a constant selector (nil for any
// other selector): what Cassandra's resolution picks as the exact match.
func literalTypeOf(e cql.SelectorExpr) *types.Type {
	ts, ok := e.(*cql.TermSel)
	if !ok {
		return nil
	}
	l, ok := ts.Term.(*cql.Literal)
	if !ok || l.Kind == cql.LitNull {
		return nil
	}
	t, err := (&selCompiler{}).termType(l, nil)
	if err != nil {
		return nil
	}
	return t
}
