package cql

// This file parses WHERE clauses (Parser.g's whereClause and relation) and
// the IF conditions of conditional updates and deletes (columnCondition).

// whereClause parses relationOrExpression (AND relationOrExpression)*.
func (p *parser) whereClause() []Relation {
	rels := p.relationOrExpression(make([]Relation, 0, 4))
	for p.acceptKw(kwAnd) {
		rels = p.relationOrExpression(rels)
	}
	return rels
}

// relationOrExpression parses a relation or a custom index expression
// 'expr(' idxName ',' term ')' and appends it to rels. Lexer.g makes
// "expr(" one case-sensitive token, so "EXPR(" and "expr (" are not one;
// idxName has no keyspace, and the expression cannot be parenthesised (the
// grammar's '(' relation ')' holds only relations).
func (p *parser) relationOrExpression(rels []Relation) []Relation {
	t := p.tok()
	if t.kind == tkIdent && t.kw == kwNone && p.src[t.pos:t.end] == "expr" &&
		p.peek(1).kind == tkLParen && p.peek(1).pos == t.end {
		p.advance()
		p.advance()
		if p.is(tkQMark) {
			p.markerInName("index")
		}
		idx := QualifiedName{Name: p.ident()}
		p.expect(tkComma)
		r := Relation{Index: &idx, Value: p.term()}
		p.expect(tkRParen)
		return append(rels, r)
	}
	return p.relation(rels)
}

// relation parses one relation and appends it to rels.
func (p *parser) relation(rels []Relation) []Relation {
	p.enter()
	defer p.leave()
	t := p.tok()
	switch {
	case t.isKw(kwToken):
		p.advance()
		r := Relation{Columns: p.tupleOfIdentifiers(), Token: true}
		r.Op = p.relationType()
		r.Value = p.term()
		return append(rels, r)
	case t.kind == tkLParen:
		if p.peek(1).isCident() && (p.peek(2).kind == tkComma || p.peek(2).kind == tkRParen) {
			return append(rels, p.multiColumnRelation())
		}
		p.advance()
		rels = p.relation(rels)
		p.expect(tkRParen)
		return rels
	}
	if !t.isCident() {
		p.noViable()
	}
	r := Relation{Columns: []string{p.cident()}}
	if p.accept(tkLBracket) {
		r.MapKey = p.term()
		p.expect(tkRBracket)
		r.Op = p.relationType()
		r.Value = p.term()
		return append(rels, r)
	}
	t = p.tok()
	switch {
	case isRelationType(t.kind):
		r.Op = p.relationType()
		r.Value = p.term()
	case t.isKw(kwLike):
		p.advance()
		r.Op = OpLike
		r.Value = p.term()
	case t.isKw(kwIs):
		p.advance()
		p.expectKw(kwNot)
		p.expectKw(kwNull)
		r.Op = OpIsNot
		r.Value = &Literal{Kind: LitNull}
	case t.isKw(kwIn):
		p.advance()
		r.Op = OpIn
		r.InValues, r.InMarker = p.inValues()
	case t.isKw(kwContains):
		p.advance()
		r.Op = OpContains
		if p.acceptKw(kwKey) {
			r.Op = OpContainsKey
		}
		r.Value = p.term()
	default:
		p.noViable()
	}
	return append(rels, r)
}

// multiColumnRelation parses (a, b, ...) followed by IN values, a relation
// operator and a tuple or marker.
func (p *parser) multiColumnRelation() Relation {
	r := Relation{Columns: p.tupleOfIdentifiers(), Tuple: true}
	t := p.tok()
	switch {
	case t.isKw(kwIn):
		r.Op = OpIn
		p.advance()
		if p.isMarker(0) {
			r.InMarker = p.marker()
			return r
		}
		p.expect(tkLParen)
		r.InValues = []Term{}
		if p.accept(tkRParen) {
			return r
		}
		for {
			// Each element is a tuple literal or a marker for a whole tuple.
			if p.isMarker(0) {
				r.InValues = append(r.InValues, p.marker())
			} else if p.is(tkLParen) {
				r.InValues = append(r.InValues, p.tupleLiteral())
			} else {
				p.noViable()
			}
			if !p.accept(tkComma) {
				break
			}
		}
		p.expect(tkRParen)
	case isRelationType(t.kind):
		r.Op = p.relationType()
		switch {
		case p.isMarker(0):
			r.Value = p.marker()
		case p.is(tkLParen):
			r.Value = p.tupleLiteral()
		default:
			p.noViable()
		}
	default:
		p.noViable()
	}
	return r
}

// tupleOfIdentifiers parses '(' cident (',' cident)* ')'.
func (p *parser) tupleOfIdentifiers() []string {
	p.expect(tkLParen)
	ids := []string{p.cident()}
	for p.accept(tkComma) {
		ids = append(ids, p.cident())
	}
	p.expect(tkRParen)
	return ids
}

// inValues parses singleColumnInValues: '(' (term (',' term)*)? ')' or a
// marker standing for the whole list.
func (p *parser) inValues() ([]Term, *BindMarker) {
	if p.isMarker(0) {
		return nil, p.marker()
	}
	p.expect(tkLParen)
	vals := []Term{}
	if p.accept(tkRParen) {
		return vals, nil
	}
	vals = append(vals, p.term())
	for p.accept(tkComma) {
		vals = append(vals, p.term())
	}
	p.expect(tkRParen)
	return vals, nil
}

func isRelationType(k tokenKind) bool {
	switch k {
	case tkEq, tkLt, tkLte, tkGt, tkGte, tkNeq:
		return true
	}
	return false
}

// relationType parses '=' | '<' | '<=' | '>' | '>=' | '!='.
func (p *parser) relationType() Operator {
	var op Operator
	switch p.tok().kind {
	case tkEq:
		op = OpEq
	case tkLt:
		op = OpLt
	case tkLte:
		op = OpLte
	case tkGt:
		op = OpGt
	case tkGte:
		op = OpGte
	case tkNeq:
		op = OpNeq
	default:
		p.noViable()
	}
	p.advance()
	return op
}

// conditions parses IF's columnCondition (AND columnCondition)*; the IF
// and the EXISTS alternative are handled by the caller.
func (p *parser) conditions() []Condition {
	conds := []Condition{p.condition()}
	for p.acceptKw(kwAnd) {
		conds = append(conds, p.condition())
	}
	return conds
}

// condition parses one columnCondition: c op v, c CONTAINS [KEY] v,
// c IN values, c[k] op v, c[k] IN values, c.f op v or c.f IN values.
func (p *parser) condition() Condition {
	c := Condition{Column: p.cident()}
	switch {
	case p.accept(tkLBracket):
		c.Element = p.term()
		p.expect(tkRBracket)
	case p.accept(tkDot):
		c.Field = p.ident()
	case p.isKw(kwContains):
		p.advance()
		c.Op = OpContains
		if p.acceptKw(kwKey) {
			c.Op = OpContainsKey
		}
		c.Value = p.term()
		return c
	}
	switch {
	case isRelationType(p.tok().kind):
		c.Op = p.relationType()
		c.Value = p.term()
	case p.acceptKw(kwIn):
		c.Op = OpIn
		c.InValues, c.InMarker = p.inValues()
	default:
		p.noViable()
	}
	return c
}

// startsConditionAfterName reports whether the token at offset n can follow
// the column name of a condition; used to tell "IF EXISTS" from a condition
// on a column named "exists".
func (p *parser) startsConditionAfterName(n int) bool {
	t := p.peek(n)
	return isRelationType(t.kind) || t.kind == tkLBracket || t.kind == tkDot ||
		t.isKw(kwIn) || t.isKw(kwContains)
}
