package cql

import "strings"

// This file parses terms: the values of statements (Parser.g's term,
// value, constant, marker, function, collection, tuple and UDT literals).

// term parses termAddition: termMultiplication (('+' | '-') termMultiplication)*.
func (p *parser) term() Term {
	p.enter()
	defer p.leave()
	left := p.termMultiplication()
	for {
		op, ok := p.additiveOp()
		if !ok {
			return left
		}
		left = &BinaryOp{Op: op, Left: left, Right: p.termMultiplication()}
	}
}

// additiveOp consumes a '+' or '-' that continues an addition and returns
// it. At the top level of an UPDATE value (assignDepth) it leaves a '+'
// followed by a column name alone: in "SET l = [1] + l" the '+' belongs to
// the prepend form.
//
// Cassandra's lexer reads "-1" as one INTEGER token, so "a-1" would be a
// syntax error there; here a negative number in operator position is split
// into '-' and the positive number (see splitMinus).
func (p *parser) additiveOp() (byte, bool) {
	t := p.tok()
	switch t.kind {
	case tkPlus, tkMinus:
		if t.kind == tkPlus && p.depth == p.assignDepth && p.peek(1).isCident() && !p.startsFunctionCall(1) {
			// "SET c = v + c": the '+' introduces the prepend form.
			return 0, false
		}
		p.advance()
		if t.kind == tkPlus {
			return '+', true
		}
		return '-', true
	case tkInteger, tkFloat, tkDuration:
		if p.src[t.pos] == '-' && p.splitMinus != p.p {
			p.splitMinus = p.p
			return '-', true
		}
	}
	return 0, false
}

// termMultiplication parses termGroup (('*' | '/' | '%') termGroup)*.
func (p *parser) termMultiplication() Term {
	left := p.termGroup()
	for {
		op, ok := p.acceptMultiplicative()
		if !ok {
			return left
		}
		left = &BinaryOp{Op: op, Left: left, Right: p.termGroup()}
	}
}

// acceptMultiplicative consumes '*', '/' or '%' and returns it.
func (p *parser) acceptMultiplicative() (byte, bool) {
	var op byte
	switch p.tok().kind {
	case tkStar:
		op = '*'
	case tkSlash:
		op = '/'
	case tkPercent:
		op = '%'
	default:
		return 0, false
	}
	p.advance()
	return op, true
}

// termGroup parses simpleTerm | '-' simpleTerm. The negation of a number
// or duration literal is folded into the literal.
func (p *parser) termGroup() Term {
	if p.accept(tkMinus) {
		return negateTerm(p.simpleTerm())
	}
	return p.simpleTerm()
}

func negateTerm(t Term) Term {
	if l, ok := t.(*Literal); ok && (l.Kind == LitInteger || l.Kind == LitFloat || l.Kind == LitDuration) {
		return &Literal{Kind: l.Kind, Text: negateNumber(l.Text)}
	}
	return &Negation{Term: t}
}

func negateNumber(s string) string {
	switch {
	case s == "NaN":
		return s
	case strings.HasPrefix(s, "-"):
		return s[1:]
	}
	return "-" + s
}

// simpleTerm parses value | function | '(' type ')' simpleTerm |
// CAST '(' simpleTerm AS native_type ')'.
func (p *parser) simpleTerm() Term {
	p.enter()
	defer p.leave()
	t := p.tok()
	switch t.kind {
	case tkString, tkInteger, tkFloat, tkBool, tkDuration, tkUUID, tkHex:
		return p.constant()
	case tkQMark, tkColon:
		return p.marker()
	case tkLBracket:
		return p.listLiteral()
	case tkLBrace:
		return p.braceLiteral()
	case tkLParen:
		// Terms have no grouping parentheses: (x) is a one-element tuple
		// (Parser.g's tupleLiteral), unlike selectors.
		paren := func() Term { return &TupleLiteral{Elems: p.parenTerms()} }
		if !p.peek(1).startsType() {
			return paren()
		}
		// '(' type ')' simpleTerm or a tuple.
		var res Term
		p.alternatives(
			func() {
				typ := p.typeHintPrefix()
				res = &TypeHint{Type: typ, Term: p.simpleTerm()}
			},
			func() { res = paren() })
		return res
	case tkIdent:
		switch t.kw {
		case kwNull:
			p.advance()
			return &Literal{Kind: LitNull}
		case kwCast:
			if p.peek(1).kind == tkLParen {
				p.advance()
				p.advance()
				inner := p.simpleTerm()
				p.expectKw(kwAs)
				typ := p.nativeType()
				p.expect(tkRParen)
				return &CastTerm{Term: inner, Type: typ}
			}
		}
	}
	if p.startsFunctionCall(0) {
		name := p.functionName()
		return &FunctionCall{Name: name, Args: p.termArgs()}
	}
	if t.isFunctionNameToken() && p.peek(1).kind != tkDot {
		// A name: Parser.g chooses between function's two forms on the
		// next token ('(' or '.').
		p.noViableAfter()
	}
	p.noViable()
	return nil
}

// typeHintPrefix parses the '(' type ')' of a type hint. When that does not
// parse it fails at the '(', so that alternatives prefers the error of the
// other reading (a parenthesised term or tuple).
func (p *parser) typeHintPrefix() TypeExpr {
	start := p.expect(tkLParen)
	var typ TypeExpr
	if p.try(func() {
		typ = p.typeExpr()
		p.expect(tkRParen)
	}) != nil {
		p.failAt(start, "no viable alternative at input '('")
	}
	return typ
}

// parenTerms parses '(' term (',' term)* ')'.
func (p *parser) parenTerms() []Term {
	p.expect(tkLParen)
	elems := []Term{p.term()}
	for p.accept(tkComma) {
		elems = append(elems, p.term())
	}
	p.expect(tkRParen)
	return elems
}

// tupleLiteral parses '(' term (',' term)* ')' where a tuple is required
// (multi-column relations): a single element still makes a TupleLiteral.
func (p *parser) tupleLiteral() *TupleLiteral {
	p.enter()
	defer p.leave()
	return &TupleLiteral{Elems: p.parenTerms()}
}

// termArgs parses '(' (term (',' term)*)? ')'.
func (p *parser) termArgs() []Term {
	p.expect(tkLParen)
	args := []Term{}
	if p.accept(tkRParen) {
		return args
	}
	args = append(args, p.term())
	for p.accept(tkComma) {
		args = append(args, p.term())
	}
	p.expect(tkRParen)
	return args
}

// constant parses a constant literal token.
func (p *parser) constant() *Literal {
	t := p.tok()
	var kind LiteralKind
	switch t.kind {
	case tkString:
		kind = LitString
	case tkInteger:
		kind = LitInteger
	case tkFloat:
		kind = LitFloat
	case tkBool:
		kind = LitBool
	case tkDuration:
		kind = LitDuration
	case tkUUID:
		kind = LitUUID
	case tkHex:
		kind = LitHex
	default:
		p.noViable()
	}
	text := t.text
	if p.splitMinus == p.p {
		// The '-' of this literal was taken as a binary operator.
		text = negateNumber(text)
	}
	p.advance()
	return &Literal{Kind: kind, Text: text}
}

// marker parses '?' or ':' name and numbers it.
func (p *parser) marker() *BindMarker {
	m := &BindMarker{}
	if !p.accept(tkQMark) {
		p.expect(tkColon)
		m.Name = p.ident()
	}
	m.Index = p.markers
	p.markers++
	return m
}

// isMarker reports whether the token at offset n starts a bind marker.
func (p *parser) isMarker(n int) bool {
	k := p.peek(n).kind
	return k == tkQMark || k == tkColon
}

// intValue parses INTEGER | marker (LIMIT, USING TTL/TIMESTAMP).
func (p *parser) intValue() Term {
	switch p.tok().kind {
	case tkInteger:
		return p.constant()
	case tkQMark, tkColon:
		return p.marker()
	}
	p.noViable()
	return nil
}

// listLiteral parses '[' (term (',' term)*)? ']'.
func (p *parser) listLiteral() Term {
	p.expect(tkLBracket)
	l := &CollectionLiteral{Kind: ListLiteral, Elems: []Term{}}
	if p.accept(tkRBracket) {
		return l
	}
	l.Elems = append(l.Elems, p.term())
	for p.accept(tkComma) {
		l.Elems = append(l.Elems, p.term())
	}
	p.expect(tkRBracket)
	return l
}

// braceLiteral parses a set, map or UDT literal. '{}' is an empty map; a
// first key that is an identifier followed by ':' makes a UDT literal
// (identifiers are never terms on their own).
func (p *parser) braceLiteral() Term {
	p.expect(tkLBrace)
	if p.accept(tkRBrace) {
		return &CollectionLiteral{Kind: MapLiteral, Keys: []Term{}, Values: []Term{}}
	}
	if p.tok().identLike() && p.peek(1).kind == tkColon {
		u := &UDTLiteral{}
		for {
			u.Fields = append(u.Fields, p.ident())
			p.expect(tkColon)
			u.Values = append(u.Values, p.term())
			if !p.accept(tkComma) {
				break
			}
		}
		p.expect(tkRBrace)
		return u
	}
	first := p.term()
	if p.accept(tkColon) {
		m := &CollectionLiteral{Kind: MapLiteral, Keys: []Term{first}, Values: []Term{p.term()}}
		for p.accept(tkComma) {
			m.Keys = append(m.Keys, p.term())
			p.expect(tkColon)
			m.Values = append(m.Values, p.term())
		}
		p.expect(tkRBrace)
		return m
	}
	s := &CollectionLiteral{Kind: SetLiteral, Elems: []Term{first}}
	for p.accept(tkComma) {
		s.Elems = append(s.Elems, p.term())
	}
	p.expect(tkRBrace)
	return s
}

// ---------------------------------------------------------------------------
// Function names

// isFunctionNameToken reports whether t is an allowedFunctionName: IDENT,
// QUOTED_NAME, an unreserved function keyword, TOKEN or COUNT.
func (t *token) isFunctionNameToken() bool {
	switch t.kind {
	case tkIdent:
		return t.kw == kwNone || t.kw.isFunctionKeyword() || t.kw == kwToken || t.kw == kwCount
	case tkQuotedIdent:
		return t.text != ""
	}
	return false
}

// startsFunctionCall reports whether the tokens at offset n are
// functionName '(' (with an optional keyspace).
func (p *parser) startsFunctionCall(n int) bool {
	t := p.peek(n)
	if t.isFunctionNameToken() && p.peek(n+1).kind == tkLParen {
		return true
	}
	return t.identLike() && p.peek(n+1).kind == tkDot &&
		p.peek(n+2).isFunctionNameToken() && p.peek(n+3).kind == tkLParen
}

// functionName parses (keyspaceName '.')? allowedFunctionName.
func (p *parser) functionName() QualifiedName {
	var q QualifiedName
	if p.peek(1).kind == tkDot {
		q.Keyspace = p.keyspaceName()
		p.advance()
	}
	t := p.tok()
	if !t.isFunctionNameToken() {
		p.noViable()
	}
	p.advance()
	q.Name = t.text
	return q
}
