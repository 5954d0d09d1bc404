package types

import (
	"strconv"
	"strings"

	"github.com/cqld/cqld/internal/cqlerr"
)

// ParseTypeString parses a CQL type as system_schema.columns.type stores it
// ("int", "frozen<map<text, int>>", "tuple<int, text>", "vector<float, 3>",
// "'org.apache.cassandra.db.marshal.DynamicCompositeType'"). Keywords are
// case-insensitive. It fails on user-defined type names; use
// ParseTypeStringWith to resolve them. ParseTypeString(t.String()) is
// Equal to t for every type without UDTs.
func ParseTypeString(s string) (*Type, error) { return ParseTypeStringWith(s, nil) }

// ParseTypeStringWith is ParseTypeString with a resolver for user-defined
// type names (as written: possibly "ks.name" or a double-quoted name,
// unquoted names lower-cased). frozen<udt> returns a frozen copy of the
// resolved type.
func ParseTypeStringWith(s string, resolveUDT func(name string) (*Type, error)) (*Type, error) {
	p := &typeParser{s: s, resolve: resolveUDT}
	t, err := p.parse()
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.i != len(p.s) {
		return nil, p.errorf()
	}
	return t, nil
}

type typeParser struct {
	s       string
	i       int
	resolve func(string) (*Type, error)
}

func (p *typeParser) errorf() error {
	return cqlerr.Syntaxf("Invalid type %q at character %d", p.s, p.i)
}

func (p *typeParser) skipSpace() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n') {
		p.i++
	}
}

func (p *typeParser) eat(c byte) bool {
	p.skipSpace()
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

// ident reads an identifier (letters, digits, _, .), or a double-quoted one.
func (p *typeParser) ident() (string, bool) {
	p.skipSpace()
	if p.i < len(p.s) && p.s[p.i] == '"' {
		var b strings.Builder
		p.i++
		for p.i < len(p.s) {
			c := p.s[p.i]
			p.i++
			if c == '"' {
				if p.i < len(p.s) && p.s[p.i] == '"' {
					b.WriteByte('"')
					p.i++
					continue
				}
				return b.String(), true
			}
			b.WriteByte(c)
		}
		return "", false
	}
	start := p.i
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c == '_' || c == '.' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			p.i++
			continue
		}
		break
	}
	return strings.ToLower(p.s[start:p.i]), p.i > start
}

func (p *typeParser) params(n int) ([]*Type, error) {
	if !p.eat('<') {
		return nil, p.errorf()
	}
	var out []*Type
	for {
		t, err := p.parse()
		if err != nil {
			return nil, err
		}
		out = append(out, t)
		if p.eat('>') {
			break
		}
		if !p.eat(',') {
			return nil, p.errorf()
		}
	}
	if n >= 0 && len(out) != n {
		return nil, p.errorf()
	}
	return out, nil
}

func (p *typeParser) parse() (*Type, error) {
	p.skipSpace()
	if p.i < len(p.s) && p.s[p.i] == '\'' {
		end := strings.IndexByte(p.s[p.i+1:], '\'')
		if end < 0 {
			return nil, p.errorf()
		}
		class := p.s[p.i+1 : p.i+1+end]
		p.i += end + 2
		return &Type{Kind: Custom, Class: class}, nil
	}
	quoted := p.i < len(p.s) && p.s[p.i] == '"'
	name, ok := p.ident()
	if !ok {
		return nil, p.errorf()
	}
	if !quoted {
		switch name {
		case "frozen":
			ps, err := p.params(1)
			if err != nil {
				return nil, err
			}
			t := *ps[0]
			t.Frozen = true
			return &t, nil
		case "list", "set":
			ps, err := p.params(1)
			if err != nil {
				return nil, err
			}
			if name == "list" {
				return ListOf(ps[0], false), nil
			}
			return SetOf(ps[0], false), nil
		case "map":
			ps, err := p.params(2)
			if err != nil {
				return nil, err
			}
			return MapOf(ps[0], ps[1], false), nil
		case "tuple":
			ps, err := p.params(-1)
			if err != nil {
				return nil, err
			}
			return TupleOf(ps...), nil
		case "vector":
			if !p.eat('<') {
				return nil, p.errorf()
			}
			elem, err := p.parse()
			if err != nil {
				return nil, err
			}
			if !p.eat(',') {
				return nil, p.errorf()
			}
			p.skipSpace()
			start := p.i
			for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
				p.i++
			}
			dim, err := strconv.Atoi(p.s[start:p.i])
			if err != nil || dim <= 0 || !p.eat('>') {
				return nil, p.errorf()
			}
			return &Type{Kind: Vector, Params: []*Type{elem}, Dimension: dim}, nil
		}
		if t, ok := NativeByName[name]; ok {
			return t, nil
		}
		if name == "empty" {
			return EmptyType, nil
		}
	}
	if p.resolve == nil {
		return nil, cqlerr.Invalidf("Unknown type %s", name)
	}
	return p.resolve(name)
}
