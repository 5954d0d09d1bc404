package cql

import (
	"strconv"
	"strings"
)

// This file parses types as written (Parser.g's comparatorType).

// reservedTypeNames cannot be used as unquoted user type names.
var reservedTypeNames = map[string]bool{
	"byte": true, "complex": true, "enum": true, "date": true,
	"interval": true, "macaddr": true, "bitstring": true,
}

// startsType reports whether t can start a comparatorType.
func (t *token) startsType() bool {
	return t.identLike() || t.isKw(kwSet) || t.kind == tkString
}

// typeExpr parses comparatorType: a native type, list/set/map, tuple,
// vector, frozen<...>, a user type name or a 'custom' class.
func (p *parser) typeExpr() TypeExpr {
	p.enter()
	defer p.leave()
	t := p.tok()
	if t.kind == tkString {
		if t.text == "" {
			p.recognitionError(t, "Cannot parse type '': empty class name")
		}
		p.advance()
		return TypeExpr{Custom: t.text}
	}
	if t.kind == tkIdent {
		next := p.peek(1).kind
		switch {
		case t.kw.isNativeType() && next != tkDot:
			p.advance()
			return TypeExpr{Name: t.text}
		case next == tkLt && (t.kw == kwList || t.kw == kwSet || t.kw == kwFrozen):
			p.advance()
			p.advance()
			innerTok := p.tok()
			inner := p.typeExpr()
			p.expect(tkGt)
			if t.kw == kwFrozen && (inner.Custom != "" || inner.isNative()) {
				p.recognitionError(innerTok, "frozen<> is only allowed on collections, tuples, and user-defined types (got "+inner.String()+")")
			}
			return TypeExpr{Name: t.text, Params: []TypeExpr{inner}}
		case next == tkLt && t.kw == kwMap:
			p.advance()
			p.advance()
			k := p.typeExpr()
			p.expect(tkComma)
			v := p.typeExpr()
			p.expect(tkGt)
			return TypeExpr{Name: "map", Params: []TypeExpr{k, v}}
		case next == tkLt && t.kw == kwTuple:
			p.advance()
			p.advance()
			te := TypeExpr{Name: "tuple", Params: []TypeExpr{p.typeExpr()}}
			for p.accept(tkComma) {
				te.Params = append(te.Params, p.typeExpr())
			}
			p.expect(tkGt)
			return te
		case next == tkLt && t.kw == kwVector:
			p.advance()
			p.advance()
			elem := p.typeExpr()
			p.expect(tkComma)
			d := p.expect(tkInteger)
			n, err := strconv.ParseInt(d.text, 10, 32)
			if err != nil {
				p.recognitionError(d, "Invalid vector dimension "+d.text)
			}
			p.expect(tkGt)
			return TypeExpr{Name: "vector", Params: []TypeExpr{elem}, Dimension: int(n)}
		case t.kw == kwSet:
			// SET is reserved: only set<...> is a type.
			p.p++
			p.mismatched("'<'")
		}
	}
	return p.userTypeName()
}

// isNative reports whether t is a native type such as int or text.
func (t TypeExpr) isNative() bool {
	if t.Keyspace != "" || len(t.Params) > 0 || t.Custom != "" {
		return false
	}
	k, ok := keywords[t.Name]
	return ok && k.isNativeType()
}

// userTypeName parses (noncol_ident '.')? non_type_ident.
func (p *parser) userTypeName() TypeExpr {
	var te TypeExpr
	if p.peek(1).kind == tkDot {
		te.Keyspace = p.ident()
		p.advance()
	}
	t := p.tok()
	switch {
	case t.kind == tkQuotedIdent && t.text != "":
	case t.kind == tkIdent && t.kw == kwNone:
		if reservedTypeNames[t.text] {
			p.recognitionError(t, "Invalid (reserved) user type name "+t.text)
		}
	case t.kind == tkIdent && (t.kw.isBasicUnreserved() || t.kw == kwKey):
	default:
		p.noViable()
	}
	p.advance()
	te.Name = t.text
	return te
}

// nativeType parses native_type (the target of CAST).
func (p *parser) nativeType() TypeExpr {
	t := p.tok()
	if t.kind != tkIdent || !t.kw.isNativeType() {
		p.noViable()
	}
	p.advance()
	return TypeExpr{Name: t.text}
}

// String returns the type as CQL, e.g. "frozen<map<text, int>>",
// "vector<float, 3>", "ks.address" or "'com.example.MyType'". Names are
// quoted where CQL requires it, so the result parses back to t.
func (t TypeExpr) String() string {
	var b strings.Builder
	t.format(&b)
	return b.String()
}

func (t TypeExpr) format(b *strings.Builder) {
	if t.Custom != "" {
		writeQuotedString(b, t.Custom)
		return
	}
	if len(t.Params) == 0 {
		if t.Keyspace != "" {
			writeIdent(b, t.Keyspace)
			b.WriteByte('.')
		}
		if k, ok := keywords[t.Name]; ok && k.isNativeType() && t.Keyspace == "" {
			b.WriteString(t.Name)
			return
		}
		writeTypeName(b, t.Name)
		return
	}
	b.WriteString(t.Name)
	b.WriteByte('<')
	for i, p := range t.Params {
		if i > 0 {
			b.WriteString(", ")
		}
		p.format(b)
	}
	if t.Name == "vector" {
		b.WriteString(", ")
		b.WriteString(strconv.Itoa(t.Dimension))
	}
	b.WriteByte('>')
}

// writeTypeName writes a user type name, quoted unless it can be written as
// a non_type_ident.
func writeTypeName(b *strings.Builder, name string) {
	if isPlainIdent(name) && !reservedTypeNames[name] {
		k, isKw := keywords[name]
		if !isKw || k.isBasicUnreserved() || k == kwKey {
			b.WriteString(name)
			return
		}
	}
	writeQuotedIdent(b, name)
}
