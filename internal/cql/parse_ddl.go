package cql

// This file parses USE, TRUNCATE and the schema statements (CREATE, ALTER,
// DROP), and recognises the statements that have no AST yet (indexes,
// views, types, functions, triggers, roles, permissions, DESCRIBE), which
// it returns as *Unsupported.

// useStatement parses USE keyspace.
func (p *parser) useStatement() *Use {
	p.expectKw(kwUse)
	return &Use{Keyspace: p.keyspaceName()}
}

// truncateStatement parses TRUNCATE [TABLE] name.
func (p *parser) truncateStatement() *Truncate {
	p.expectKw(kwTruncate)
	p.acceptKw(kwColumnfamily)
	return &Truncate{Name: p.qualifiedName("table")}
}

// isKeyspaceKw reports whether t is KEYSPACE or its alias SCHEMA.
func (t *token) isKeyspaceKw() bool { return t.isKw(kwKeyspace) || t.isKw(kwSchema) }

// ifNotExists parses an optional IF NOT EXISTS.
func (p *parser) ifNotExists() bool {
	if !p.acceptKw(kwIf) {
		return false
	}
	p.expectKw(kwNot)
	p.expectKw(kwExists)
	return true
}

// ifExists parses an optional IF EXISTS.
func (p *parser) ifExists() bool {
	if !p.acceptKw(kwIf) {
		return false
	}
	p.expectKw(kwExists)
	return true
}

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
		return p.unsupportedStatement("CREATE INDEX")
	case t.isKw(kwCustom):
		p.advance()
		p.expectKw(kwIndex)
		return p.unsupportedStatement("CREATE CUSTOM INDEX")
	case t.isKw(kwMaterialized):
		p.advance()
		p.expectKw(kwView)
		return p.unsupportedStatement("CREATE MATERIALIZED VIEW")
	case t.isKw(kwType):
		return p.unsupportedStatement("CREATE TYPE")
	case t.isKw(kwOr):
		p.advance()
		p.expectKw(kwReplace)
		switch {
		case p.isKw(kwFunction):
			return p.unsupportedStatement("CREATE FUNCTION")
		case p.isKw(kwAggregate):
			return p.unsupportedStatement("CREATE AGGREGATE")
		}
		p.noViable()
	case t.isKw(kwFunction):
		return p.unsupportedStatement("CREATE FUNCTION")
	case t.isKw(kwAggregate):
		return p.unsupportedStatement("CREATE AGGREGATE")
	case t.isKw(kwTrigger):
		return p.unsupportedStatement("CREATE TRIGGER")
	case t.isKw(kwRole):
		return p.unsupportedStatement("CREATE ROLE")
	case t.isKw(kwUser):
		return p.unsupportedStatement("CREATE USER")
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
		return p.unsupportedStatement("ALTER TABLE")
	case t.isKw(kwType):
		return p.unsupportedStatement("ALTER TYPE")
	case t.isKw(kwMaterialized):
		p.advance()
		p.expectKw(kwView)
		return p.unsupportedStatement("ALTER MATERIALIZED VIEW")
	case t.isKw(kwRole):
		return p.unsupportedStatement("ALTER ROLE")
	case t.isKw(kwUser):
		return p.unsupportedStatement("ALTER USER")
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
		return p.unsupportedStatement("DROP INDEX")
	case t.isKw(kwMaterialized):
		p.advance()
		p.expectKw(kwView)
		return p.unsupportedStatement("DROP MATERIALIZED VIEW")
	case t.isKw(kwType):
		return p.unsupportedStatement("DROP TYPE")
	case t.isKw(kwFunction):
		return p.unsupportedStatement("DROP FUNCTION")
	case t.isKw(kwAggregate):
		return p.unsupportedStatement("DROP AGGREGATE")
	case t.isKw(kwTrigger):
		return p.unsupportedStatement("DROP TRIGGER")
	case t.isKw(kwRole):
		return p.unsupportedStatement("DROP ROLE")
	case t.isKw(kwUser):
		return p.unsupportedStatement("DROP USER")
	case t.isKw(kwIdentity):
		return p.unsupportedStatement("DROP IDENTITY")
	}
	p.noViable()
	return nil
}

// otherStatement recognises GRANT, REVOKE, LIST, DESCRIBE and ADD IDENTITY.
func (p *parser) otherStatement() Statement {
	t := p.advance()
	switch {
	case t.isKw(kwGrant):
		return p.unsupportedStatement("GRANT")
	case t.isKw(kwRevoke):
		return p.unsupportedStatement("REVOKE")
	case t.isKw(kwDescribe), t.isKw(kwDesc):
		return p.unsupportedStatement("DESCRIBE")
	case t.isKw(kwAdd):
		p.expectKw(kwIdentity)
		return p.unsupportedStatement("ADD IDENTITY")
	}
	// LIST ROLES | LIST USERS | LIST SUPERUSERS | LIST <permissions>
	switch {
	case p.isKw(kwRoles):
		return p.unsupportedStatement("LIST ROLES")
	case p.isKw(kwUsers):
		return p.unsupportedStatement("LIST USERS")
	case p.isKw(kwSuperusers):
		return p.unsupportedStatement("LIST SUPERUSERS")
	case p.isKw(kwAll), p.isKw(kwCreate), p.isKw(kwAlter), p.isKw(kwDrop), p.isKw(kwSelect),
		p.isKw(kwModify), p.isKw(kwAuthorize), p.isKw(kwDescribe), p.isKw(kwExecute),
		p.isKw(kwUnmask), p.isKw(kwSelectMasked):
		return p.unsupportedStatement("LIST PERMISSIONS")
	}
	p.noViable()
	return nil
}

// createTable parses
//
//	CREATE TABLE [IF NOT EXISTS] name (column type [STATIC] [PRIMARY KEY], ...,
//	    [PRIMARY KEY (pk, c, ...)]) [WITH option AND ...]
//
// Like Cassandra, it rejects duplicate columns, several PRIMARY KEY
// definitions and duplicate CLUSTERING ORDER columns as Invalid while
// parsing. A missing PRIMARY KEY is left to the executor (PartitionKey
// empty).
func (p *parser) createTable() *CreateTable {
	p.expectKw(kwColumnfamily)
	ct := &CreateTable{IfNotExists: p.ifNotExists()}
	ct.Name = p.qualifiedName("table")
	p.expect(tkLParen)
	pkSet := false
	setPK := func(pk, clustering []string) {
		if pkSet {
			p.failInvalid("Multiple PRIMARY KEY specified for table '%s' (exactly one required)", ct.Name)
		}
		pkSet = true
		ct.PartitionKey, ct.Clustering = pk, clustering
	}
	for first := true; ; first = false {
		if !first && (p.is(tkComma) || p.is(tkRParen)) {
			// Parser.g allows empty items: "(a int, b int,)".
		} else if p.acceptKw(kwPrimary) {
			p.expectKw(kwKey)
			p.expect(tkLParen)
			var pk []string
			if p.accept(tkLParen) {
				pk = []string{p.ident()}
				for p.accept(tkComma) {
					pk = append(pk, p.ident())
				}
				p.expect(tkRParen)
			} else {
				pk = []string{p.ident()}
			}
			clustering := []string{}
			for p.accept(tkComma) {
				clustering = append(clustering, p.ident())
			}
			p.expect(tkRParen)
			setPK(pk, clustering)
		} else {
			col := ColumnDef{Name: p.ident(), Type: p.typeExpr()}
			col.Static = p.acceptKw(kwStatic)
			if p.isKw(kwMasked) {
				p.columnMask()
			}
			for i := range ct.Columns {
				if ct.Columns[i].Name == col.Name {
					p.failInvalid("Duplicate column '%s' declaration for table '%s'", col.Name, ct.Name)
				}
			}
			if p.acceptKw(kwPrimary) {
				p.expectKw(kwKey)
				col.PrimaryKey = true
				setPK([]string{col.Name}, []string{})
			}
			ct.Columns = append(ct.Columns, col)
		}
		if !p.accept(tkComma) {
			break
		}
	}
	p.expect(tkRParen)
	if !p.acceptKw(kwWith) {
		return ct
	}
	for {
		switch {
		case p.isKw(kwCompact) && p.peek(1).isKw(kwStorage):
			p.advance()
			p.advance()
			ct.CompactStorage = true
		case p.isKw(kwClustering) && p.peek(1).isKw(kwOrder):
			p.advance()
			p.advance()
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
				for _, prev := range ct.ClusteringOrder {
					if prev.Column == o.Column {
						p.failInvalid("Duplicate column '%s' in CLUSTERING ORDER BY clause for table '%s'", o.Column, ct.Name)
					}
				}
				ct.ClusteringOrder = append(ct.ClusteringOrder, o)
				if !p.accept(tkComma) {
					break
				}
			}
			p.expect(tkRParen)
		default:
			ct.Properties = p.property(ct.Properties)
		}
		if !p.acceptKw(kwAnd) {
			return ct
		}
	}
}

// columnMask parses MASKED WITH (DEFAULT | function(args)). Dynamic data
// masking has no AST yet: the statement becomes Unsupported.
func (p *parser) columnMask() {
	p.expectKw(kwMasked)
	p.expectKw(kwWith)
	if !p.acceptKw(kwDefault) {
		p.functionName()
		p.termArgs()
	}
	p.markUnsupported("dynamic data masking")
}

// properties parses property (AND property)*.
func (p *parser) properties() []Property {
	props := p.property(nil)
	for p.acceptKw(kwAnd) {
		props = p.property(props)
	}
	return props
}

// property parses name '=' (constant | unreserved_keyword | map literal)
// and appends it to props. As in Cassandra, a property may be defined only
// once and a map's keys and values must be constants.
func (p *parser) property(props []Property) []Property {
	nameTok := p.tok()
	prop := Property{Name: p.ident()}
	p.expect(tkEq)
	t := p.tok()
	switch {
	case t.kind == tkLBrace:
		prop.Value = p.propertyMap()
	case t.kind == tkString || t.kind == tkInteger || t.kind == tkFloat || t.kind == tkBool ||
		t.kind == tkDuration || t.kind == tkUUID || t.kind == tkHex:
		prop.Value = p.constant()
	case t.kind == tkIdent && t.kw != kwNone && t.kw.isUnreserved():
		p.advance()
		prop.Value = &Literal{Kind: LitString, Text: t.text}
	default:
		p.noViable()
	}
	for _, prev := range props {
		if prev.Name == prop.Name {
			p.recognitionError(nameTok, "Multiple definition for property "+prop.Name)
		}
	}
	return append(props, prop)
}

// propertyMap parses fullMapLiteral and checks it as Cassandra's
// convertPropertyMap does.
func (p *parser) propertyMap() *CollectionLiteral {
	start := p.expect(tkLBrace)
	m := &CollectionLiteral{Kind: MapLiteral, Keys: []Term{}, Values: []Term{}}
	if !p.accept(tkRBrace) {
		for {
			m.Keys = append(m.Keys, p.term())
			p.expect(tkColon)
			m.Values = append(m.Values, p.term())
			if !p.accept(tkComma) {
				break
			}
		}
		p.expect(tkRBrace)
	}
	seen := make(map[string]bool, len(m.Keys))
	for i, k := range m.Keys {
		kl, ok := k.(*Literal)
		if !ok || kl.Kind == LitNull {
			p.recognitionError(start, "Invalid property name: "+formatTerm(k)+ddlMarkerSuffix(k))
		}
		if vl, ok := m.Values[i].(*Literal); !ok || vl.Kind == LitNull {
			p.recognitionError(start, "Invalid property value: "+formatTerm(m.Values[i])+" for property: "+
				formatTerm(k)+ddlMarkerSuffix(m.Values[i]))
		}
		if seen[kl.Text] {
			p.recognitionError(start, "Multiple definition for property "+kl.Text)
		}
		seen[kl.Text] = true
	}
	return m
}

func ddlMarkerSuffix(t Term) string {
	if _, ok := t.(*BindMarker); ok {
		return " (bind variables are not supported in DDL queries)"
	}
	return ""
}
