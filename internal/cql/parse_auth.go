package cql

// This file parses the security statements (roles, users, permissions,
// identities), the LIST statements and DESCRIBE.

// otherStatement parses GRANT, REVOKE, LIST, DESCRIBE and ADD IDENTITY.
func (p *parser) otherStatement() Statement {
	t := p.advance()
	switch {
	case t.isKw(kwGrant):
		if p.startsPermissions(kwTo) {
			g := &GrantPermissions{Permissions: p.permissions()}
			p.expectKw(kwOn)
			g.Resource = p.resource()
			p.expectKw(kwTo)
			g.Role = p.roleName()
			return g
		}
		g := &GrantRole{Role: p.roleName()}
		p.expectKw(kwTo)
		g.Grantee = p.roleName()
		return g
	case t.isKw(kwRevoke):
		if p.startsPermissions(kwFrom) {
			r := &RevokePermissions{Permissions: p.permissions()}
			p.expectKw(kwOn)
			r.Resource = p.resource()
			p.expectKw(kwFrom)
			r.Role = p.roleName()
			return r
		}
		r := &RevokeRole{Role: p.roleName()}
		p.expectKw(kwFrom)
		r.Revokee = p.roleName()
		return r
	case t.isKw(kwDescribe), t.isKw(kwDesc):
		return p.describe()
	case t.isKw(kwAdd):
		p.expectKw(kwIdentity)
		a := &AddIdentity{IfNotExists: p.ifNotExists()}
		a.Identity = p.identity()
		p.expectKw(kwTo)
		p.expectKw(kwRole)
		a.Role = p.identity()
		return a
	}
	// LIST ROLES | LIST USERS | LIST <permissions>
	switch {
	case p.acceptKw(kwRoles):
		l := &ListRoles{}
		if p.acceptKw(kwOf) {
			l.Of = p.roleName()
		}
		l.NoRecursive = p.acceptKw(kwNorecursive)
		return l
	case p.acceptKw(kwUsers):
		return &ListUsers{}
	}
	if !p.startsPermissions(kwNone) {
		p.noViable()
	}
	l := &ListPermissions{Permissions: p.permissions()}
	if p.acceptKw(kwOn) {
		r := p.resource()
		l.Resource = &r
	}
	if p.acceptKw(kwOf) {
		l.Of = p.roleName()
	}
	l.NoRecursive = p.acceptKw(kwNorecursive)
	return l
}

// isPermissionKw reports whether t is a permission name.
func (t *token) isPermissionKw() bool {
	if t.kind != tkIdent {
		return false
	}
	switch t.kw {
	case kwCreate, kwAlter, kwDrop, kwSelect, kwModify, kwAuthorize, kwDescribe, kwExecute,
		kwUnmask, kwSelectMasked:
		return true
	}
	return false
}

// startsPermissions reports whether the current token starts
// permissionOrAll rather than a role name (ALL, UNMASK and SELECT_MASKED
// are also valid role names: "GRANT all TO r" grants the role "all").
// roleEnd is the keyword that follows a role name in the statement.
func (p *parser) startsPermissions(roleEnd keyword) bool {
	t := p.tok()
	if !t.isKw(kwAll) && !t.isPermissionKw() {
		return false
	}
	if roleEnd != kwNone && p.peek(1).isKw(roleEnd) && t.kw.isUnreserved() {
		return false
	}
	return true
}

// permissions parses permissionOrAll: ALL [PERMISSIONS] | permission
// [PERMISSION] (',' permission [PERMISSION])*.
func (p *parser) permissions() Permissions {
	if p.acceptKw(kwAll) {
		p.acceptKw(kwPermissions)
		return Permissions{All: true}
	}
	var ps Permissions
	for {
		t := p.tok()
		if !t.isPermissionKw() {
			p.noViable()
		}
		p.advance()
		name := keywordInfos[t.kw].name
		ps.Names = append(ps.Names, name)
		p.acceptKw(kwPermission)
		if !p.accept(tkComma) {
			return ps
		}
	}
}

// resource parses dataResource | roleResource | functionResource | jmxResource.
func (p *parser) resource() Resource {
	t := p.tok()
	switch {
	case t.isKw(kwAll):
		switch n := p.peek(1); {
		case n.isKw(kwKeyspaces):
			p.p += 2
			return Resource{Kind: ResourceAllKeyspaces}
		case n.isKw(kwTables):
			p.p += 2
			p.expectKw(kwIn)
			p.expectKw(kwKeyspace)
			return Resource{Kind: ResourceAllTablesInKeyspace, Keyspace: p.keyspaceName()}
		case n.isKw(kwRoles):
			p.p += 2
			return Resource{Kind: ResourceAllRoles}
		case n.isKw(kwFunctions):
			p.p += 2
			if p.acceptKw(kwIn) {
				p.expectKw(kwKeyspace)
				return Resource{Kind: ResourceAllFunctionsInKeyspace, Keyspace: p.keyspaceName()}
			}
			return Resource{Kind: ResourceAllFunctions}
		case n.isKw(kwMbeans):
			p.p += 2
			return Resource{Kind: ResourceAllMBeans}
		}
	case t.isKw(kwKeyspace):
		p.advance()
		return Resource{Kind: ResourceKeyspace, Keyspace: p.keyspaceName()}
	case t.isKw(kwRole) && p.peek(1).kind != tkDot && !p.peek(1).isKw(kwTo) && !p.peek(1).isKw(kwFrom) &&
		!p.peek(1).isKw(kwOf) && !p.peek(1).isKw(kwNorecursive) && p.peek(1).kind != tkEOF && p.peek(1).kind != tkSemicolon:
		p.advance()
		return Resource{Kind: ResourceRole, Name: p.roleName()}
	case t.isKw(kwFunction) && p.peek(1).kind != tkDot && !p.peek(1).isKw(kwTo) && !p.peek(1).isKw(kwFrom) &&
		!p.peek(1).isKw(kwOf) && !p.peek(1).isKw(kwNorecursive) && p.peek(1).kind != tkEOF && p.peek(1).kind != tkSemicolon:
		p.advance()
		fn := p.functionName()
		return Resource{Kind: ResourceFunction, Keyspace: fn.Keyspace, Name: fn.Name, ArgTypes: p.argTypes()}
	case (t.isKw(kwMbean) || t.isKw(kwMbeans)) && p.peek(1).kind == tkString:
		p.advance()
		kind := ResourceMBean
		if t.kw == kwMbeans {
			kind = ResourceMBeans
		}
		return Resource{Kind: kind, Name: p.advance().text}
	}
	p.acceptKw(kwColumnfamily)
	q := p.qualifiedName("table")
	return Resource{Kind: ResourceTable, Keyspace: q.Keyspace, Name: q.Name}
}

// roleName parses roleName / userOrRoleName: IDENT (lower-cased),
// QUOTED_NAME, STRING_LITERAL (case kept) or an unreserved keyword.
func (p *parser) roleName() string {
	t := p.tok()
	switch t.kind {
	case tkString:
		p.advance()
		return t.text
	case tkQMark:
		p.recognitionError(t, "Bind variables cannot be used for role names")
	}
	return p.ident()
}

// userName parses username: IDENT or STRING_LITERAL, both with their case
// kept (Cassandra does not fold user names).
func (p *parser) userName() string {
	t := p.tok()
	switch {
	case t.kind == tkString:
		p.advance()
		return t.text
	case t.kind == tkQuotedIdent:
		p.recognitionError(t, "Quoted strings are are not supported for user names and USER is deprecated, please use ROLE")
	case t.kind == tkIdent && t.kw == kwNone:
		p.advance()
		return p.src[t.pos:t.end]
	}
	p.noViable()
	return ""
}

// identity parses identity: IDENT (as written), STRING_LITERAL or QUOTED_NAME.
func (p *parser) identity() string {
	t := p.tok()
	switch {
	case t.kind == tkString, t.kind == tkQuotedIdent:
		p.advance()
		return t.text
	case t.kind == tkIdent && t.kw == kwNone:
		p.advance()
		return p.src[t.pos:t.end]
	}
	p.noViable()
	return ""
}

// roleOptions parses roleOption (AND roleOption)*.
func (p *parser) roleOptions() []RoleOption {
	var opts []RoleOption
	for {
		start := p.tok()
		o := p.roleOption()
		for _, prev := range opts {
			if prev.Kind == o.Kind || sameOptionFamily(prev.Kind, o.Kind) {
				p.recognitionError(start, "Multiple definition for property '"+roleOptionName(o.Kind)+"'")
			}
		}
		opts = append(opts, o)
		if !p.acceptKw(kwAnd) {
			break
		}
	}
	checkPasswords(p, opts)
	return opts
}

// sameOptionFamily reports whether two options set the same role option
// (the datacenter and the CIDR access lists).
func sameOptionFamily(a, b RoleOptionKind) bool {
	fam := func(k RoleOptionKind) RoleOptionKind {
		switch k {
		case RoleAccessDatacenters:
			return RoleAccessAllDatacenters
		case RoleAccessCidrs:
			return RoleAccessAllCidrs
		}
		return k
	}
	return fam(a) == fam(b)
}

func roleOptionName(k RoleOptionKind) string {
	switch k {
	case RolePassword:
		return "PASSWORD"
	case RoleHashedPassword:
		return "HASHED_PASSWORD"
	case RoleSuperuser:
		return "SUPERUSER"
	case RoleLogin:
		return "LOGIN"
	case RoleOptionsMap:
		return "OPTIONS"
	case RoleAccessAllDatacenters, RoleAccessDatacenters:
		return "DATACENTERS"
	}
	return "CIDRS"
}

// checkPasswords applies Cassandra's mutual-exclusion checks on the
// password options.
func checkPasswords(p *parser, opts []RoleOption) {
	var pw, hashed bool
	for _, o := range opts {
		switch o.Kind {
		case RolePassword:
			pw = true
		case RoleHashedPassword:
			hashed = true
		}
	}
	if pw && hashed {
		p.recognitionError(p.tok(), "Options 'password' and 'hashed password' are mutually exclusive")
	}
}

// roleOption parses one roleOption.
func (p *parser) roleOption() RoleOption {
	t := p.tok()
	switch {
	case t.isKw(kwPassword):
		p.advance()
		p.expect(tkEq)
		return RoleOption{Kind: RolePassword, Text: p.expect(tkString).text}
	case t.isKw(kwHashed):
		p.advance()
		p.expectKw(kwPassword)
		p.expect(tkEq)
		return RoleOption{Kind: RoleHashedPassword, Text: p.expect(tkString).text}
	case t.isKw(kwOptions):
		p.advance()
		p.expect(tkEq)
		return RoleOption{Kind: RoleOptionsMap, Map: p.propertyMap()}
	case t.isKw(kwSuperuser), t.isKw(kwLogin):
		p.advance()
		p.expect(tkEq)
		b := p.expect(tkBool)
		kind := RoleSuperuser
		if t.kw == kwLogin {
			kind = RoleLogin
		}
		return RoleOption{Kind: kind, Bool: b.text == "true"}
	case t.isKw(kwAccess):
		p.advance()
		var all, list RoleOptionKind
		var what keyword
		if p.acceptKw(kwTo) {
			all, list, what = RoleAccessAllDatacenters, RoleAccessDatacenters, kwDatacenters
		} else if p.acceptKw(kwFrom) {
			all, list, what = RoleAccessAllCidrs, RoleAccessCidrs, kwCidrs
		} else {
			p.noViable()
		}
		if p.acceptKw(kwAll) {
			p.expectKw(what)
			return RoleOption{Kind: all}
		}
		p.expectKw(what)
		p.expect(tkLBrace)
		o := RoleOption{Kind: list, List: []string{p.expect(tkString).text}}
		for p.accept(tkComma) {
			o.List = append(o.List, p.expect(tkString).text)
		}
		p.expect(tkRBrace)
		return o
	}
	p.noViable()
	return RoleOption{}
}

// userOptions parses the rest of CREATE/ALTER USER: [WITH userPassword]
// [SUPERUSER | NOSUPERUSER].
func (p *parser) userOptions() (pw *RoleOption, super, nosuper bool) {
	if p.acceptKw(kwWith) {
		o := RoleOption{}
		switch {
		case p.acceptKw(kwPassword):
			o.Kind, o.Text = RolePassword, p.expect(tkString).text
		case p.acceptKw(kwHashed):
			p.expectKw(kwPassword)
			o.Kind, o.Text = RoleHashedPassword, p.expect(tkString).text
		default:
			p.noViable()
		}
		pw = &o
	}
	switch {
	case p.acceptKw(kwSuperuser):
		super = true
	case p.acceptKw(kwNosuperuser):
		nosuper = true
	}
	return pw, super, nosuper
}

// describe parses the rest of DESCRIBE / DESC (Parser.g's describeStatement).
func (p *parser) describe() *Describe {
	d := &Describe{}
	t := p.tok()
	// A keyword followed by '.' is the keyspace of the generic form.
	kwForm := t.kind == tkIdent && p.peek(1).kind != tkDot
	switch {
	case kwForm && t.isKw(kwCluster):
		p.advance()
		d.Kind = DescribeCluster
	case t.isKw(kwFull) && p.peek(1).isKw(kwSchema):
		p.p += 2
		d.Kind, d.Full = DescribeSchema, true
	case t.isKw(kwSchema):
		p.advance()
		d.Kind = DescribeSchema
	case kwForm && t.isKw(kwKeyspaces):
		p.advance()
		d.Kind = DescribeKeyspaces
	case t.isKw(kwOnly) && p.peek(1).isKw(kwKeyspace), t.isKw(kwKeyspace):
		d.Only = p.acceptKw(kwOnly)
		p.expectKw(kwKeyspace)
		d.Kind = DescribeKeyspace
		if p.tok().identLike() || p.is(tkQMark) {
			d.Name.Keyspace = p.keyspaceName()
		}
	case kwForm && t.isKw(kwTables):
		p.advance()
		d.Kind = DescribeTables
	case t.isKw(kwColumnfamily):
		p.advance()
		d.Kind = DescribeTable
		d.Name = p.qualifiedName("table")
	case t.isKw(kwIndex):
		p.advance()
		d.Kind = DescribeIndex
		d.Name = p.qualifiedName("table")
	case t.isKw(kwMaterialized):
		p.advance()
		p.expectKw(kwView)
		d.Kind = DescribeView
		d.Name = p.qualifiedName("table")
	case kwForm && t.isKw(kwTypes):
		p.advance()
		d.Kind = DescribeTypes
	case kwForm && t.isKw(kwType):
		p.advance()
		d.Kind = DescribeType
		d.Name = p.userTypeQName()
	case kwForm && t.isKw(kwFunctions):
		p.advance()
		d.Kind = DescribeFunctions
	case kwForm && t.isKw(kwFunction):
		p.advance()
		d.Kind = DescribeFunction
		d.Name = p.functionName()
	case kwForm && t.isKw(kwAggregates):
		p.advance()
		d.Kind = DescribeAggregates
	case kwForm && t.isKw(kwAggregate):
		p.advance()
		d.Kind = DescribeAggregate
		d.Name = p.functionName()
	default:
		d.Kind = DescribeGeneric
		first := p.ident()
		if p.accept(tkDot) {
			d.Name = QualifiedName{Keyspace: first, Name: p.ident()}
		} else {
			d.Name = QualifiedName{Name: first}
		}
	}
	if p.acceptKw(kwWith) {
		p.expectKw(kwInternals)
		d.WithInternals = true
	}
	return d
}
