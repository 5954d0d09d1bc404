package cql

// This file parses USE, TRUNCATE, keyspace options, CREATE TABLE and WITH
// properties. The other schema statements are in parse_schema.go.

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
				col.Mask = p.columnMask()
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
			// PropertyDefinitions.addProperty quotes the name; the check
			// of map keys (convertPropertyMap, below) does not.
			p.recognitionError(nameTok, "Multiple definition for property '"+prop.Name+"'")
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
