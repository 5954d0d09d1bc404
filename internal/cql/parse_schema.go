package cql

// This file parses the schema statements other than keyspaces and CREATE
// TABLE (indexes, user types, materialized views, functions, aggregates,
// triggers, ALTER TABLE) and dispatches CREATE, ALTER and DROP.

// createStatement dispatches on what follows CREATE.
func (p *parser) createStatement() Statement {
	p.expectKw(kwCreate)
	t := p.tok()
	switch {
	case t.isKeyspaceKw():
		p.advance()
		ks := &CreateKeyspace{IfNotExists: p.ifNotExists()}
		ks.Name = p.keyspaceName()
		p.expectKw(kwWith)
		ks.Properties = p.properties()
		return ks
	case t.isKw(kwColumnfamily):
		return p.createTable()
	case t.isKw(kwIndex):
		return p.createIndex(false)
	case t.isKw(kwCustom):
		p.advance()
		return p.createIndex(true)
	case t.isKw(kwMaterialized):
		return p.createView()
	case t.isKw(kwType):
		return p.createType()
	case t.isKw(kwOr):
		p.advance()
		p.expectKw(kwReplace)
		switch {
		case p.isKw(kwFunction):
			return p.createFunction(true)
		case p.isKw(kwAggregate):
			return p.createAggregate(true)
		}
		p.noViable()
	case t.isKw(kwFunction):
		return p.createFunction(false)
	case t.isKw(kwAggregate):
		return p.createAggregate(false)
	case t.isKw(kwTrigger):
		p.advance()
		ct := &CreateTrigger{IfNotExists: p.ifNotExists()}
		ct.Name = p.ident()
		p.expectKw(kwOn)
		ct.Table = p.qualifiedName("table")
		p.expectKw(kwUsing)
		ct.Class = p.expect(tkString).text
		return ct
	case t.isKw(kwRole):
		p.advance()
		r := &CreateRole{IfNotExists: p.ifNotExists()}
		r.Name, r.Options = p.roleNameAndOptions()
		return r
	case t.isKw(kwUser):
		p.advance()
		u := &CreateUser{IfNotExists: p.ifNotExists()}
		u.Name = p.userName()
		u.Password, u.Superuser, u.NoSuperuser = p.userOptions()
		return u
	}
	p.noViable()
	return nil
}

// alterStatement dispatches on what follows ALTER.
func (p *parser) alterStatement() Statement {
	p.expectKw(kwAlter)
	t := p.tok()
	switch {
	case t.isKeyspaceKw():
		p.advance()
		ks := &AlterKeyspace{IfExists: p.ifExists()}
		ks.Name = p.keyspaceName()
		p.expectKw(kwWith)
		ks.Properties = p.properties()
		return ks
	case t.isKw(kwColumnfamily):
		return p.alterTable()
	case t.isKw(kwType):
		return p.alterType()
	case t.isKw(kwMaterialized):
		p.advance()
		p.expectKw(kwView)
		v := &AlterMaterializedView{IfExists: p.ifExists()}
		v.Name = p.qualifiedName("table")
		p.expectKw(kwWith)
		v.Properties = p.properties()
		return v
	case t.isKw(kwRole):
		p.advance()
		r := &AlterRole{IfExists: p.ifExists()}
		r.Name, r.Options = p.roleNameAndOptions()
		return r
	case t.isKw(kwUser):
		p.advance()
		u := &AlterUser{IfExists: p.ifExists()}
		u.Name = p.userName()
		u.Password, u.Superuser, u.NoSuperuser = p.userOptions()
		return u
	}
	p.noViable()
	return nil
}

// dropStatement dispatches on what follows DROP.
func (p *parser) dropStatement() Statement {
	p.expectKw(kwDrop)
	t := p.tok()
	switch {
	case t.isKeyspaceKw():
		p.advance()
		d := &DropKeyspace{IfExists: p.ifExists()}
		d.Name = p.keyspaceName()
		return d
	case t.isKw(kwColumnfamily):
		p.advance()
		d := &DropTable{IfExists: p.ifExists()}
		d.Name = p.qualifiedName("table")
		return d
	case t.isKw(kwIndex):
		p.advance()
		d := &DropIndex{IfExists: p.ifExists()}
		d.Name = p.qualifiedName("index")
		return d
	case t.isKw(kwMaterialized):
		p.advance()
		p.expectKw(kwView)
		d := &DropMaterializedView{IfExists: p.ifExists()}
		d.Name = p.qualifiedName("table")
		return d
	case t.isKw(kwType):
		p.advance()
		d := &DropType{IfExists: p.ifExists()}
		d.Name = p.userTypeQName()
		return d
	case t.isKw(kwFunction):
		p.advance()
		d := &DropFunction{IfExists: p.ifExists()}
		d.Name = p.functionName()
		d.ArgTypes, d.ArgsSpecified = p.optionalArgTypes()
		return d
	case t.isKw(kwAggregate):
		p.advance()
		d := &DropAggregate{IfExists: p.ifExists()}
		d.Name = p.functionName()
		d.ArgTypes, d.ArgsSpecified = p.optionalArgTypes()
		return d
	case t.isKw(kwTrigger):
		p.advance()
		d := &DropTrigger{IfExists: p.ifExists()}
		d.Name = p.ident()
		p.expectKw(kwOn)
		d.Table = p.qualifiedName("table")
		return d
	case t.isKw(kwRole):
		p.advance()
		d := &DropRole{IfExists: p.ifExists()}
		d.Name = p.roleName()
		return d
	case t.isKw(kwUser):
		p.advance()
		d := &DropUser{IfExists: p.ifExists()}
		d.Name = p.userName()
		return d
	case t.isKw(kwIdentity):
		p.advance()
		d := &DropIdentity{IfExists: p.ifExists()}
		d.Identity = p.identity()
		return d
	}
	p.noViable()
	return nil
}

// optionalArgTypes parses ('(' (comparatorType (',' comparatorType)*)? ')')?.
func (p *parser) optionalArgTypes() ([]TypeExpr, bool) {
	if !p.is(tkLParen) {
		return nil, false
	}
	return p.argTypes(), true
}

// argTypes parses '(' (comparatorType (',' comparatorType)*)? ')'.
func (p *parser) argTypes() []TypeExpr {
	p.expect(tkLParen)
	types := []TypeExpr{}
	if p.accept(tkRParen) {
		return types
	}
	for {
		types = append(types, p.typeExpr())
		if !p.accept(tkComma) {
			break
		}
	}
	p.expect(tkRParen)
	return types
}

// userTypeQName parses userTypeName as a qualified name.
func (p *parser) userTypeQName() QualifiedName {
	te := p.userTypeName()
	return QualifiedName{Keyspace: te.Keyspace, Name: te.Name}
}

// columnMask parses MASKED WITH DEFAULT | MASKED WITH functionName '(' terms ')'.
func (p *parser) columnMask() *ColumnMask {
	p.expectKw(kwMasked)
	p.expectKw(kwWith)
	if p.isKw(kwDefault) && p.peek(1).kind != tkLParen && p.peek(1).kind != tkDot {
		p.advance()
		return &ColumnMask{Default: true}
	}
	m := &ColumnMask{Function: p.functionName()}
	m.Args = p.termArgs()
	return m
}

// createIndex parses the rest of
//
//	CREATE [CUSTOM] INDEX [IF NOT EXISTS] [name] ON table (target, ...)
//	    [USING 'class'] [WITH properties]
func (p *parser) createIndex(custom bool) *CreateIndex {
	p.expectKw(kwIndex)
	ci := &CreateIndex{Custom: custom, IfNotExists: p.ifNotExists()}
	if !p.isKw(kwOn) {
		ci.Name = p.qualifiedName("index")
	}
	p.expectKw(kwOn)
	ci.Table = p.qualifiedName("table")
	p.expect(tkLParen)
	ci.Targets = []IndexTarget{}
	if !p.is(tkRParen) {
		for {
			ci.Targets = append(ci.Targets, p.indexTarget())
			if !p.accept(tkComma) {
				break
			}
		}
	}
	p.expect(tkRParen)
	if p.acceptKw(kwUsing) {
		ci.Using = p.expect(tkString).text
	}
	if p.acceptKw(kwWith) {
		ci.Properties = p.properties()
	}
	return ci
}

// indexTarget parses indexIdent: cident | (VALUES | KEYS | ENTRIES | FULL) '(' cident ')'.
func (p *parser) indexTarget() IndexTarget {
	if p.peek(1).kind == tkLParen {
		kind := IndexColumn
		switch {
		case p.isKw(kwValues):
			kind = IndexValues
		case p.isKw(kwKeys):
			kind = IndexKeys
		case p.isKw(kwEntries):
			kind = IndexEntries
		case p.isKw(kwFull):
			kind = IndexFull
		default:
			p.noViable()
		}
		p.advance()
		p.advance()
		c := p.cident()
		p.expect(tkRParen)
		return IndexTarget{Column: c, Kind: kind}
	}
	return IndexTarget{Column: p.cident()}
}

// createType parses CREATE TYPE [IF NOT EXISTS] name '(' fident type (',' ...)* ')'.
func (p *parser) createType() *CreateType {
	p.expectKw(kwType)
	ct := &CreateType{IfNotExists: p.ifNotExists()}
	ct.Name = p.userTypeQName()
	p.expect(tkLParen)
	for first := true; ; first = false {
		if !first && (p.is(tkComma) || p.is(tkRParen)) {
			// Parser.g allows empty items, as in CREATE TABLE.
		} else {
			ct.Fields = append(ct.Fields, FieldDef{Name: p.ident(), Type: p.typeExpr()})
		}
		if !p.accept(tkComma) {
			break
		}
	}
	p.expect(tkRParen)
	return ct
}

// alterType parses ALTER TYPE [IF EXISTS] name followed by ALTER f TYPE t,
// ADD [IF NOT EXISTS] f t or RENAME [IF EXISTS] f TO g (AND f TO g)*.
func (p *parser) alterType() *AlterType {
	p.expectKw(kwType)
	at := &AlterType{IfExists: p.ifExists()}
	at.Name = p.userTypeQName()
	switch {
	case p.acceptKw(kwAlter):
		at.Op = AlterTypeAlterField
		at.Field = p.ident()
		p.expectKw(kwType)
		at.Type = p.typeExpr()
	case p.acceptKw(kwAdd):
		at.Op = AlterTypeAddField
		at.IfFieldExists = p.ifNotExists()
		at.Field = p.ident()
		at.Type = p.typeExpr()
	case p.acceptKw(kwRename):
		at.Op = AlterTypeRenameField
		at.IfFieldExists = p.ifExists()
		at.Renames = p.renames()
	default:
		p.noViable()
	}
	return at
}

// renames parses ident TO ident (AND ident TO ident)*.
func (p *parser) renames() []Rename {
	var rs []Rename
	for {
		r := Rename{From: p.ident()}
		p.expectKw(kwTo)
		r.To = p.ident()
		rs = append(rs, r)
		if !p.acceptKw(kwAnd) {
			return rs
		}
	}
}

// createView parses
//
//	CREATE MATERIALIZED VIEW [IF NOT EXISTS] name AS SELECT selectors FROM
//	    base [WHERE ...] PRIMARY KEY (pk, c, ...) [WITH viewProperty AND ...]
func (p *parser) createView() *CreateMaterializedView {
	p.expectKw(kwMaterialized)
	p.expectKw(kwView)
	v := &CreateMaterializedView{IfNotExists: p.ifNotExists()}
	v.Name = p.qualifiedName("table")
	p.expectKw(kwAs)
	p.expectKw(kwSelect)
	s := &Select{}
	p.selectClause(s)
	p.expectKw(kwFrom)
	s.Table = p.qualifiedName("table")
	if p.acceptKw(kwWhere) {
		s.Where = p.whereClause()
	}
	v.Select = s
	p.expectKw(kwPrimary)
	p.expectKw(kwKey)
	p.expect(tkLParen)
	if p.accept(tkLParen) {
		v.PartitionKey = []string{p.ident()}
		for p.accept(tkComma) {
			v.PartitionKey = append(v.PartitionKey, p.ident())
		}
		p.expect(tkRParen)
	} else {
		v.PartitionKey = []string{p.ident()}
	}
	v.Clustering = []string{}
	for p.accept(tkComma) {
		v.Clustering = append(v.Clustering, p.ident())
	}
	p.expect(tkRParen)
	if !p.acceptKw(kwWith) {
		return v
	}
	for {
		switch {
		case p.isKw(kwCompact) && p.peek(1).isKw(kwStorage):
			p.recognitionError(p.tok(), "COMPACT STORAGE tables are not allowed starting with version 4.0")
		case p.isKw(kwClustering) && p.peek(1).isKw(kwOrder):
			p.advance()
			p.advance()
			v.ClusteringOrder = p.clusteringOrder(v.ClusteringOrder, v.Name)
		default:
			v.Properties = p.property(v.Properties)
		}
		if !p.acceptKw(kwAnd) {
			return v
		}
	}
}

// clusteringOrder parses BY '(' ident (ASC | DESC) (',' ...)* ')' and
// appends to orders, rejecting duplicate columns as Cassandra does.
func (p *parser) clusteringOrder(orders []ClusteringOrder, table QualifiedName) []ClusteringOrder {
	p.expectKw(kwBy)
	p.expect(tkLParen)
	for {
		o := ClusteringOrder{Column: p.ident()}
		switch {
		case p.acceptKw(kwAsc):
		case p.acceptKw(kwDesc):
			o.Desc = true
		default:
			p.noViable()
		}
		for _, prev := range orders {
			if prev.Column == o.Column {
				p.failInvalid("Duplicate column '%s' in CLUSTERING ORDER BY clause for table '%s'", o.Column, table)
			}
		}
		orders = append(orders, o)
		if !p.accept(tkComma) {
			break
		}
	}
	p.expect(tkRParen)
	return orders
}

// createFunction parses
//
//	CREATE [OR REPLACE] FUNCTION [IF NOT EXISTS] name '(' (arg type, ...)? ')'
//	    (CALLED | RETURNS NULL) ON NULL INPUT RETURNS type LANGUAGE lang AS 'body'
func (p *parser) createFunction(orReplace bool) *CreateFunction {
	p.expectKw(kwFunction)
	cf := &CreateFunction{OrReplace: orReplace, IfNotExists: p.ifNotExists()}
	cf.Name = p.functionName()
	p.expect(tkLParen)
	cf.Args = []FunctionArg{}
	if !p.is(tkRParen) {
		for {
			cf.Args = append(cf.Args, FunctionArg{Name: p.ident(), Type: p.typeExpr()})
			if !p.accept(tkComma) {
				break
			}
		}
	}
	p.expect(tkRParen)
	switch {
	case p.acceptKw(kwCalled):
		cf.CalledOnNullInput = true
	case p.acceptKw(kwReturns):
		p.expectKw(kwNull)
	default:
		p.noViable()
	}
	p.expectKw(kwOn)
	p.expectKw(kwNull)
	p.expectKw(kwInput)
	p.expectKw(kwReturns)
	cf.ReturnType = p.typeExpr()
	p.expectKw(kwLanguage)
	if t := p.tok(); t.kind != tkIdent || t.kw != kwNone {
		p.mismatched("IDENT")
	}
	cf.Language = p.advance().text
	p.expectKw(kwAs)
	cf.Body = p.expect(tkString).text
	return cf
}

// createAggregate parses
//
//	CREATE [OR REPLACE] AGGREGATE [IF NOT EXISTS] name '(' types ')'
//	    SFUNC f STYPE type [FINALFUNC f] [INITCOND term]
func (p *parser) createAggregate(orReplace bool) *CreateAggregate {
	p.expectKw(kwAggregate)
	ca := &CreateAggregate{OrReplace: orReplace, IfNotExists: p.ifNotExists()}
	ca.Name = p.functionName()
	ca.ArgTypes = p.argTypes()
	p.expectKw(kwSfunc)
	ca.StateFunc = p.allowedFunctionName()
	p.expectKw(kwStype)
	ca.StateType = p.typeExpr()
	if p.acceptKw(kwFinalfunc) {
		ca.FinalFunc = p.allowedFunctionName()
	}
	if p.acceptKw(kwInitcond) {
		ca.InitCond = p.term()
	}
	return ca
}

// allowedFunctionName parses an unqualified function name.
func (p *parser) allowedFunctionName() string {
	t := p.tok()
	if !t.isFunctionNameToken() {
		p.noViable()
	}
	p.advance()
	return t.text
}

// alterTable parses ALTER TABLE [IF EXISTS] name followed by one of
//
//	ALTER c TYPE t
//	ALTER [IF EXISTS] c (MASKED WITH ... | DROP MASKED)
//	ADD [IF NOT EXISTS] c t [STATIC] [mask] | ADD [IF NOT EXISTS] '(' c t [STATIC] [mask], ... ')'
//	DROP [IF EXISTS] c | DROP [IF EXISTS] '(' c, ... ')' [USING TIMESTAMP n]
//	RENAME [IF EXISTS] a TO b (AND a TO b)*
//	DROP COMPACT STORAGE
//	WITH properties
func (p *parser) alterTable() *AlterTable {
	p.expectKw(kwColumnfamily)
	at := &AlterTable{IfExists: p.ifExists()}
	at.Name = p.qualifiedName("table")
	switch {
	case p.acceptKw(kwAlter):
		at.IfColumnExists = p.ifExists()
		at.Column = p.cident()
		switch {
		case !at.IfColumnExists && p.acceptKw(kwType):
			at.Op = AlterTableAlterColumnType
			at.Type = p.typeExpr()
		case p.isKw(kwMasked):
			at.Op = AlterTableMaskColumn
			at.Mask = p.columnMask()
		case p.acceptKw(kwDrop):
			p.expectKw(kwMasked)
			at.Op = AlterTableUnmaskColumn
		default:
			p.noViable()
		}
	case p.acceptKw(kwAdd):
		at.Op = AlterTableAddColumns
		at.IfColumnNotExists = p.ifNotExists()
		addOne := func() {
			c := ColumnDef{Name: p.ident(), Type: p.typeExpr()}
			c.Static = p.acceptKw(kwStatic)
			if p.isKw(kwMasked) {
				c.Mask = p.columnMask()
			}
			at.Add = append(at.Add, c)
		}
		if p.accept(tkLParen) {
			addOne()
			for p.accept(tkComma) {
				addOne()
			}
			p.expect(tkRParen)
		} else {
			addOne()
		}
	case p.isKw(kwDrop) && p.peek(1).isKw(kwCompact) && p.peek(2).isKw(kwStorage):
		p.p += 3
		at.Op = AlterTableDropCompactStorage
	case p.acceptKw(kwDrop):
		at.Op = AlterTableDropColumns
		at.IfColumnExists = p.ifExists()
		if p.accept(tkLParen) {
			at.Drop = []string{p.ident()}
			for p.accept(tkComma) {
				at.Drop = append(at.Drop, p.ident())
			}
			p.expect(tkRParen)
		} else {
			at.Drop = []string{p.ident()}
		}
		if p.acceptKw(kwUsing) {
			p.expectKw(kwTimestamp)
			if !p.is(tkInteger) {
				p.mismatched("INTEGER")
			}
			at.DropTimestamp = p.constant()
		}
	case p.acceptKw(kwRename):
		at.Op = AlterTableRenameColumns
		at.IfColumnExists = p.ifExists()
		at.Renames = p.renames()
	case p.acceptKw(kwWith):
		at.Op = AlterTableWith
		at.Properties = p.properties()
	default:
		p.noViable()
	}
	return at
}

// roleNameAndOptions parses the role name and optional WITH options that
// CREATE ROLE and ALTER ROLE share.
func (p *parser) roleNameAndOptions() (string, []RoleOption) {
	name := p.roleName()
	if p.acceptKw(kwWith) {
		return name, p.roleOptions()
	}
	return name, nil
}
