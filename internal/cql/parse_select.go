package cql

// This file parses SELECT statements and selectors (Parser.g's
// selectStatement, selectClause, selector and friends).

// selectStatement parses
//
//	SELECT [JSON] [DISTINCT] selectors FROM table [WHERE ...] [GROUP BY ...]
//	[ORDER BY ...] [PER PARTITION LIMIT n] [LIMIT n] [ALLOW FILTERING]
func (p *parser) selectStatement() Statement {
	p.expectKw(kwSelect)
	s := &Select{}
	p.selectModifiersAndClause(s)
	p.expectKw(kwFrom)
	s.Table = p.qualifiedName("table")
	if p.acceptKw(kwWhere) {
		s.Where = p.whereClause()
	}
	if p.isKw(kwGroup) && p.peek(1).isKw(kwBy) {
		p.advance()
		p.advance()
		s.GroupBy = []SelectorExpr{p.selectorExpr()}
		for p.accept(tkComma) {
			s.GroupBy = append(s.GroupBy, p.selectorExpr())
		}
	}
	if p.acceptKw(kwOrder) {
		p.expectKw(kwBy)
		s.OrderBy = []Ordering{p.ordering()}
		for p.accept(tkComma) {
			s.OrderBy = append(s.OrderBy, p.ordering())
		}
	}
	if p.isKw(kwPer) {
		p.advance()
		p.expectKw(kwPartition)
		p.expectKw(kwLimit)
		s.PerPartitionLimit = p.intValue()
	}
	if p.acceptKw(kwLimit) {
		s.Limit = p.intValue()
	}
	if p.acceptKw(kwAllow) {
		p.expectKw(kwFiltering)
		s.AllowFiltering = true
	}
	return s
}

// selectModifiersAndClause parses [JSON] [DISTINCT] selectors.
//
// JSON and DISTINCT are also valid column names ("SELECT json FROM t"). Like
// Parser.g's syntactic predicates, the keyword reading is tried first; it is
// kept when a select clause followed by FROM parses after it, otherwise the
// word is read as a column. When neither reading parses, the error of the
// one that got further is reported.
func (p *parser) selectModifiersAndClause(s *Select) {
	if !p.isKw(kwJSON) {
		p.distinctAndClause(s)
		return
	}
	json := false
	p.alternatives(
		func() {
			p.advance()
			p.distinctAndClause(s)
			p.requireKw(kwFrom)
			json = true
		},
		func() {
			p.distinctAndClause(s)
			p.requireKw(kwFrom)
		})
	s.Json = json
}

// distinctAndClause parses [DISTINCT] selectors into a reset s.
func (p *parser) distinctAndClause(s *Select) {
	*s = Select{}
	if !p.isKw(kwDistinct) {
		p.selectClause(s)
		return
	}
	p.alternatives(
		func() {
			p.advance()
			*s = Select{Distinct: true}
			p.selectClause(s)
			p.requireKw(kwFrom)
		},
		func() {
			*s = Select{}
			p.selectClause(s)
			p.requireKw(kwFrom)
		})
}

// requireKw fails unless the current token is k, without consuming it.
func (p *parser) requireKw(k keyword) {
	if !p.isKw(k) {
		p.mismatched(k.String())
	}
}

// selectClause parses '*' | selector (',' selector)*.
func (p *parser) selectClause(s *Select) {
	if p.accept(tkStar) {
		s.Star = true
		return
	}
	// Most select clauses have a handful of selectors: one allocation
	// instead of regrowing from one.
	s.Selectors = make([]Selector, 1, 8)
	s.Selectors[0] = p.selector()
	for p.accept(tkComma) {
		s.Selectors = append(s.Selectors, p.selector())
	}
}

// selector parses unaliasedSelector (AS noncol_ident)?.
func (p *parser) selector() Selector {
	sel := Selector{Expr: p.selectorExpr()}
	if p.acceptKw(kwAs) {
		sel.Alias = p.ident()
	}
	return sel
}

// selectorExpr parses unaliasedSelector (selectionAddition).
func (p *parser) selectorExpr() SelectorExpr {
	p.enter()
	defer p.leave()
	left := p.selectionMultiplication()
	for {
		var op byte
		t := p.tok()
		switch t.kind {
		case tkPlus:
			op = '+'
			p.advance()
		case tkMinus:
			op = '-'
			p.advance()
		case tkInteger, tkFloat, tkDuration:
			// "a -1": see additiveOp.
			if p.src[t.pos] != '-' || p.splitMinus == p.p {
				return left
			}
			op = '-'
			p.splitMinus = p.p
		default:
			return left
		}
		left = &ArithSel{Op: op, Left: left, Right: p.selectionMultiplication()}
	}
}

// selectionMultiplication parses selectionGroup (('*' | '/' | '%') selectionGroup)*.
func (p *parser) selectionMultiplication() SelectorExpr {
	left := p.selectionGroup()
	for {
		op, ok := p.acceptMultiplicative()
		if !ok {
			return left
		}
		left = &ArithSel{Op: op, Left: left, Right: p.selectionGroup()}
	}
}

// selectionGroup parses '-' selectionGroup | selectionGroupWithoutField
// selectorModifier.
func (p *parser) selectionGroup() SelectorExpr {
	p.enter()
	defer p.leave()
	if p.accept(tkMinus) {
		inner := p.selectionGroup()
		if ts, ok := inner.(*TermSel); ok {
			if l, ok := ts.Term.(*Literal); ok && (l.Kind == LitInteger || l.Kind == LitFloat || l.Kind == LitDuration) {
				return &TermSel{Term: negateTerm(l)}
			}
		}
		return &NegSel{Expr: inner}
	}
	return p.selectorModifiers(p.selectionGroupWithoutField())
}

// selectorModifiers parses ('.' fident | '[' collectionSubSelection ']')*.
func (p *parser) selectorModifiers(e SelectorExpr) SelectorExpr {
	for {
		switch {
		case p.accept(tkDot):
			e = &FieldSel{Expr: e, Field: p.ident()}
		case p.accept(tkLBracket):
			el := &ElementSel{Expr: e}
			if p.accept(tkRange) {
				el.Slice = true
				el.To = p.term()
			} else {
				el.Key = p.term()
				if p.accept(tkRange) {
					el.Slice = true
					el.From, el.Key = el.Key, nil
					if !p.is(tkRBracket) {
						el.To = p.term()
					}
				}
			}
			p.expect(tkRBracket)
			e = el
		default:
			return e
		}
	}
}

// selectionGroupWithoutField parses a simple selector, a type hint, a
// parenthesised selector or tuple, or a collection literal.
func (p *parser) selectionGroupWithoutField() SelectorExpr {
	t := p.tok()
	switch t.kind {
	case tkString, tkInteger, tkFloat, tkBool, tkDuration, tkUUID, tkHex:
		return &TermSel{Term: p.constant()}
	case tkQMark, tkColon:
		return &TermSel{Term: p.marker()}
	case tkLParen:
		if p.peek(1).startsType() {
			var e SelectorExpr
			p.alternatives(
				func() { e = p.selectionTypeHint() },
				func() { e = p.parenSelector() })
			return e
		}
		return p.parenSelector()
	case tkLBracket:
		p.advance()
		var elems []SelectorExpr
		if !p.is(tkRBracket) {
			elems = append(elems, p.selectorExpr())
			for p.accept(tkComma) {
				elems = append(elems, p.selectorExpr())
			}
		}
		p.expect(tkRBracket)
		terms, ok := selectorTerms(elems)
		if !ok {
			return &CollectionSel{Kind: ListLiteral, Elems: elems}
		}
		return &TermSel{Term: &CollectionLiteral{Kind: ListLiteral, Elems: terms}}
	case tkLBrace:
		return p.selectionMapOrSet()
	case tkIdent:
		switch t.kw {
		case kwNull:
			p.advance()
			return &TermSel{Term: &Literal{Kind: LitNull}}
		case kwCount:
			if p.peek(1).kind == tkLParen && p.peek(2).kind == tkStar && p.peek(3).kind == tkRParen {
				p.p += 4
				return &FunctionSel{Name: QualifiedName{Name: "count"}, Star: true}
			}
		case kwWritetime, kwMaxwritetime, kwTTL:
			if p.peek(1).kind == tkLParen {
				p.advance()
				p.advance()
				arg := p.selectorModifiers(&ColumnSel{Name: p.ident()})
				p.expect(tkRParen)
				return &FunctionSel{Name: QualifiedName{Name: t.text}, Args: []SelectorExpr{arg}}
			}
		case kwCast:
			if p.peek(1).kind == tkLParen {
				p.advance()
				p.advance()
				inner := p.selectorExpr()
				p.expectKw(kwAs)
				typ := p.nativeType()
				p.expect(tkRParen)
				return &CastSel{Expr: inner, Type: typ}
			}
		}
	}
	if p.startsFunctionCall(0) {
		f := &FunctionSel{Name: p.functionName(), Args: []SelectorExpr{}}
		p.expect(tkLParen)
		if !p.accept(tkRParen) {
			f.Args = append(f.Args, p.selectorExpr())
			for p.accept(tkComma) {
				f.Args = append(f.Args, p.selectorExpr())
			}
			p.expect(tkRParen)
		}
		return f
	}
	if t.identLike() {
		p.advance()
		return &ColumnSel{Name: t.text}
	}
	p.noViable()
	return nil
}

// selectionTypeHint parses '(' comparatorType ')' selectionGroupWithoutField.
// This alternative fails unless a selector follows the parenthesis, "(b) +
// 1" being an operation. ANTLR's syntactic predicate also looks at the
// token after a column name, which must be one that can follow a selector:
// "(b) AS x" is the column b aliased, not a hint on a column named "as".
func (p *parser) selectionTypeHint() SelectorExpr {
	typ := p.typeHintPrefix()
	inner := p.selectionGroupWithoutField()
	if _, isCol := inner.(*ColumnSel); isCol && p.tok().identLike() && p.tok().kw != kwAs {
		p.noViable()
	}
	switch e := inner.(type) {
	case *TermSel:
		return &TermSel{Term: &TypeHint{Type: typ, Term: e.Term}}
	default:
		return &HintSel{Type: typ, Expr: e}
	}
}

// parenSelector parses '(' selector ')' or a tuple '(' selector, ... ')'.
func (p *parser) parenSelector() SelectorExpr {
	p.expect(tkLParen)
	elems := []SelectorExpr{p.selectorExpr()}
	for p.accept(tkComma) {
		elems = append(elems, p.selectorExpr())
	}
	p.expect(tkRParen)
	if len(elems) == 1 {
		return elems[0]
	}
	terms, ok := selectorTerms(elems)
	if !ok {
		return &TupleSel{Elems: elems}
	}
	return &TermSel{Term: &TupleLiteral{Elems: terms}}
}

// selectionMapOrSet parses '{' '}' | '{' sel ':' sel (',' sel ':' sel)* '}' |
// '{' sel (',' sel)* '}'. Like term literals, a map whose keys are all plain
// identifiers is a UDT literal.
func (p *parser) selectionMapOrSet() SelectorExpr {
	p.expect(tkLBrace)
	if p.accept(tkRBrace) {
		return &TermSel{Term: &CollectionLiteral{Kind: MapLiteral, Keys: []Term{}, Values: []Term{}}}
	}
	first := p.selectorExpr()
	if !p.accept(tkColon) {
		elems := []SelectorExpr{first}
		for p.accept(tkComma) {
			elems = append(elems, p.selectorExpr())
		}
		p.expect(tkRBrace)
		terms, ok := selectorTerms(elems)
		if !ok {
			return &CollectionSel{Kind: SetLiteral, Elems: elems}
		}
		return &TermSel{Term: &CollectionLiteral{Kind: SetLiteral, Elems: terms}}
	}
	keys := []SelectorExpr{first}
	vals := []SelectorExpr{p.selectorExpr()}
	for p.accept(tkComma) {
		keys = append(keys, p.selectorExpr())
		p.expect(tkColon)
		vals = append(vals, p.selectorExpr())
	}
	p.expect(tkRBrace)
	values, vok := selectorTerms(vals)
	if fields, ok := selectorFieldNames(keys); ok && vok {
		return &TermSel{Term: &UDTLiteral{Fields: fields, Values: values}}
	}
	mkeys, ok := selectorTerms(keys)
	if !ok || !vok {
		return &CollectionSel{Kind: MapLiteral, Keys: keys, Values: vals}
	}
	return &TermSel{Term: &CollectionLiteral{Kind: MapLiteral, Keys: mkeys, Values: values}}
}

// selectorTerms returns the terms of selectors that are all TermSel.
func selectorTerms(elems []SelectorExpr) ([]Term, bool) {
	terms := make([]Term, len(elems))
	for i, e := range elems {
		ts, ok := e.(*TermSel)
		if !ok {
			return nil, false
		}
		terms[i] = ts.Term
	}
	return terms, true
}

// selectorFieldNames returns the names of selectors that are all ColumnSel.
func selectorFieldNames(elems []SelectorExpr) ([]string, bool) {
	names := make([]string, len(elems))
	for i, e := range elems {
		c, ok := e.(*ColumnSel)
		if !ok {
			return nil, false
		}
		names[i] = c.Name
	}
	return names, true
}

// ordering parses cident (ANN OF term)? (ASC | DESC)?.
func (p *parser) ordering() Ordering {
	o := Ordering{Column: p.cident()}
	if p.isKw(kwAnn) && p.peek(1).isKw(kwOf) {
		p.advance()
		p.advance()
		o.Ann = p.term()
	}
	if !p.acceptKw(kwAsc) && p.acceptKw(kwDesc) {
		o.Desc = true
	}
	return o
}
