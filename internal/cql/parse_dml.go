package cql

// This file parses the modification statements: INSERT, UPDATE, DELETE and
// BATCH, with their USING clauses, assignments and conditions.

// insertStatement parses
//
//	INSERT INTO table (c, ...) VALUES (v, ...) [IF NOT EXISTS] [USING ...]
//	INSERT INTO table JSON value [DEFAULT NULL|UNSET] [IF NOT EXISTS] [USING ...]
func (p *parser) insertStatement() *Insert {
	p.expectKw(kwInsert)
	p.expectKw(kwInto)
	ins := &Insert{Table: p.qualifiedName("table")}
	switch {
	case p.is(tkLParen):
		p.advance()
		ins.Columns = []string{p.cident()}
		for p.accept(tkComma) {
			ins.Columns = append(ins.Columns, p.cident())
		}
		p.expect(tkRParen)
		p.expectKw(kwValues)
		p.expect(tkLParen)
		ins.Values = []Term{p.term()}
		for p.accept(tkComma) {
			ins.Values = append(ins.Values, p.term())
		}
		p.expect(tkRParen)
	case p.acceptKw(kwJSON):
		switch p.tok().kind {
		case tkString:
			ins.Json = p.constant()
		case tkQMark, tkColon:
			ins.Json = p.marker()
		default:
			p.noViable()
		}
		if p.acceptKw(kwDefault) {
			switch {
			case p.acceptKw(kwNull):
				ins.JsonDefault = "null"
			case p.acceptKw(kwUnset):
				ins.JsonDefault = "unset"
			default:
				p.noViable()
			}
		}
	default:
		p.noViable()
	}
	if p.acceptKw(kwIf) {
		p.expectKw(kwNot)
		p.expectKw(kwExists)
		ins.IfNotExists = true
	}
	ins.Using = p.usingClause(false)
	return ins
}

// usingClause parses an optional
// USING (TTL n | TIMESTAMP n) (AND (TTL n | TIMESTAMP n))*; with
// timestampOnly (DELETE), only USING TIMESTAMP n is accepted.
func (p *parser) usingClause(timestampOnly bool) UsingClause {
	var u UsingClause
	if !p.acceptKw(kwUsing) {
		return u
	}
	if timestampOnly {
		p.expectKw(kwTimestamp)
		u.Timestamp = p.intValue()
		return u
	}
	for {
		switch {
		case p.acceptKw(kwTimestamp):
			u.Timestamp = p.intValue()
		case p.acceptKw(kwTTL):
			u.TTL = p.intValue()
		default:
			p.noViable()
		}
		if !p.acceptKw(kwAnd) {
			return u
		}
	}
}

// updateStatement parses
//
//	UPDATE table [USING ...] SET assignment, ... WHERE ... [IF EXISTS | IF conditions]
func (p *parser) updateStatement() *Update {
	p.expectKw(kwUpdate)
	u := &Update{Table: p.qualifiedName("table")}
	u.Using = p.usingClause(false)
	p.expectKw(kwSet)
	u.Set = p.assignment(nil)
	for p.accept(tkComma) {
		u.Set = p.assignment(u.Set)
	}
	p.expectKw(kwWhere)
	u.Where = p.whereClause()
	u.IfExists, u.Conditions = p.ifClause()
	return u
}

// ifClause parses an optional IF EXISTS or IF conditions.
func (p *parser) ifClause() (ifExists bool, conds []Condition) {
	if !p.acceptKw(kwIf) {
		return false, nil
	}
	if p.isKw(kwExists) && !p.startsConditionAfterName(1) {
		p.advance()
		return true, nil
	}
	return false, p.conditions()
}

// assignment parses one columnOperation and appends it to set, applying
// Cassandra's check against incompatible settings of the same column.
func (p *parser) assignment(set []Assignment) []Assignment {
	keyTok := p.tok()
	a := Assignment{Column: p.cident()}
	switch t := p.tok(); t.kind {
	case tkEq:
		p.advance()
		p.normalColumnOperation(&a)
	case tkPlusEq, tkMinusEq:
		p.advance()
		a.Op = '+'
		if t.kind == tkMinusEq {
			a.Op = '-'
		}
		a.Value = p.term()
	case tkLBracket:
		p.advance()
		a.Element = p.term()
		p.expect(tkRBracket)
		p.expect(tkEq)
		a.Op = '='
		a.Value = p.term()
	case tkDot:
		p.advance()
		a.Field = p.ident()
		p.expect(tkEq)
		a.Op = '='
		a.Value = p.term()
	default:
		p.noViable()
	}
	for i := range set {
		if set[i].Column == a.Column && !set[i].compatibleWith(&a) {
			p.recognitionError(keyTok, "Multiple incompatible setting of column "+a.Column)
		}
	}
	return append(set, a)
}

// normalColumnOperation parses what follows "c =": a value (c = v), a
// prepend (c = v + c), or an addition or removal (c = c + v, c = c - v).
func (p *parser) normalColumnOperation(a *Assignment) {
	t := p.tok()
	if t.isCident() && !p.startsFunctionCall(0) {
		next := p.peek(1)
		switch {
		case next.kind == tkPlus || next.kind == tkMinus:
			sig := "+"
			if next.kind == tkMinus {
				sig = "-"
			}
			if c := p.cident(); c != a.Column {
				p.recognitionError(t, "Only expressions of the form X = X "+sig+"<value> are supported.")
			}
			p.advance()
			a.Op = sig[0]
			a.Value = p.term()
			return
		case next.kind == tkInteger:
			// "c = c -1" is lexed as c, '=', c, INTEGER(-1): Cassandra
			// takes any "c = c INTEGER" as the addition of the integer.
			sig := "+"
			if p.src[next.pos] == '-' {
				sig = "-"
			}
			if c := p.cident(); c != a.Column {
				p.recognitionError(t, "Only expressions of the form X = X "+sig+" <value> are supported.")
			}
			a.Op = '+'
			a.Value = p.constant()
			return
		}
	}
	a.Op = '='
	p.assignDepth = p.depth + 1
	a.Value = p.term()
	p.assignDepth = 0
	if p.is(tkPlus) && p.peek(1).isCident() {
		plus := p.advance()
		if c := p.cident(); c != a.Column {
			p.recognitionError(plus, "Only expressions of the form X = <value> + X are supported.")
		}
		a.Op = 'p'
	}
}

// compatibleWith reports whether a and b, two operations on the same
// column, may appear in one UPDATE (Cassandra's Operation.isCompatibleWith).
func (a *Assignment) compatibleWith(b *Assignment) bool {
	setValue := func(x *Assignment) bool { return x.Op == '=' && x.Element == nil && x.Field == "" }
	switch {
	case setValue(a):
		return false
	case a.Field != "" && b.Field != "":
		return a.Field != b.Field
	}
	return !setValue(b)
}

// deleteStatement parses
//
//	DELETE [target, ...] FROM table [USING TIMESTAMP n] WHERE ... [IF EXISTS | IF conditions]
func (p *parser) deleteStatement() *Delete {
	p.expectKw(kwDelete)
	d := &Delete{}
	if !p.isKw(kwFrom) {
		d.Targets = []DeleteTarget{p.deleteTarget()}
		for p.accept(tkComma) {
			d.Targets = append(d.Targets, p.deleteTarget())
		}
	}
	p.expectKw(kwFrom)
	d.Table = p.qualifiedName("table")
	d.Using = p.usingClause(true)
	p.expectKw(kwWhere)
	d.Where = p.whereClause()
	d.IfExists, d.Conditions = p.ifClause()
	return d
}

// deleteTarget parses deleteOp: c | c '[' term ']' | c '.' field.
func (p *parser) deleteTarget() DeleteTarget {
	t := DeleteTarget{Column: p.cident()}
	switch {
	case p.accept(tkLBracket):
		t.Element = p.term()
		p.expect(tkRBracket)
	case p.accept(tkDot):
		t.Field = p.ident()
	}
	return t
}

// batchStatement parses
//
//	BEGIN [UNLOGGED | COUNTER] BATCH [USING ...] (INSERT | UPDATE | DELETE [;])* APPLY BATCH
func (p *parser) batchStatement() *Batch {
	p.expectKw(kwBegin)
	b := &Batch{Statements: []Statement{}}
	switch {
	case p.acceptKw(kwUnlogged):
		b.Type = UnloggedBatch
	case p.acceptKw(kwCounter):
		b.Type = CounterBatch
	}
	p.expectKw(kwBatch)
	b.Using = p.usingClause(false)
	for {
		var st Statement
		switch {
		case p.isKw(kwInsert):
			st = p.insertStatement()
		case p.isKw(kwUpdate):
			st = p.updateStatement()
		case p.isKw(kwDelete):
			st = p.deleteStatement()
		default:
			p.expectKw(kwApply)
			p.expectKw(kwBatch)
			return b
		}
		b.Statements = append(b.Statements, st)
		p.accept(tkSemicolon)
	}
}
