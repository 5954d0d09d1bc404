package cql

import "strings"

// This file prints the statements of ast_schema.go.

// schemaStatement formats the statements of ast_schema.go; it reports
// false for any other statement.
func (f *formatter) schemaStatement(s Statement) bool {
	switch s := s.(type) {
	case *CreateIndex:
		f.WriteString("CREATE ")
		if s.Custom {
			f.WriteString("CUSTOM ")
		}
		f.WriteString("INDEX ")
		f.ifNotExists(s.IfNotExists)
		if s.Name.Name != "" {
			f.qname(s.Name)
			f.WriteByte(' ')
		}
		f.WriteString("ON ")
		f.qname(s.Table)
		f.WriteString(" (")
		for i, t := range s.Targets {
			if i > 0 {
				f.WriteString(", ")
			}
			switch t.Kind {
			case IndexValues:
				f.WriteString("VALUES(")
			case IndexKeys:
				f.WriteString("KEYS(")
			case IndexEntries:
				f.WriteString("ENTRIES(")
			case IndexFull:
				f.WriteString("FULL(")
			}
			f.ident(t.Column)
			if t.Kind != IndexColumn {
				f.WriteByte(')')
			}
		}
		f.WriteByte(')')
		if s.Using != "" {
			f.WriteString(" USING ")
			writeQuotedString(&f.Builder, s.Using)
		}
		if len(s.Properties) > 0 {
			f.WriteString(" WITH ")
			f.properties(s.Properties)
		}
	case *DropIndex:
		f.WriteString("DROP INDEX ")
		f.ifExists(s.IfExists)
		f.qname(s.Name)
	case *CreateType:
		f.WriteString("CREATE TYPE ")
		f.ifNotExists(s.IfNotExists)
		f.typeName(s.Name)
		f.WriteString(" (")
		for i, fd := range s.Fields {
			if i > 0 {
				f.WriteString(", ")
			}
			f.ident(fd.Name)
			f.WriteByte(' ')
			fd.Type.format(&f.Builder)
		}
		f.WriteByte(')')
	case *AlterType:
		f.WriteString("ALTER TYPE ")
		f.ifExists(s.IfExists)
		f.typeName(s.Name)
		switch s.Op {
		case AlterTypeAlterField:
			f.WriteString(" ALTER ")
			f.ident(s.Field)
			f.WriteString(" TYPE ")
			s.Type.format(&f.Builder)
		case AlterTypeAddField:
			f.WriteString(" ADD ")
			f.ifNotExists(s.IfFieldExists)
			f.ident(s.Field)
			f.WriteByte(' ')
			s.Type.format(&f.Builder)
		case AlterTypeRenameField:
			f.WriteString(" RENAME ")
			f.ifExists(s.IfFieldExists)
			f.renames(s.Renames)
		}
	case *DropType:
		f.WriteString("DROP TYPE ")
		f.ifExists(s.IfExists)
		f.typeName(s.Name)
	case *CreateMaterializedView:
		f.WriteString("CREATE MATERIALIZED VIEW ")
		f.ifNotExists(s.IfNotExists)
		f.qname(s.Name)
		f.WriteString(" AS SELECT ")
		sel := s.Select
		if sel == nil {
			sel = &Select{Star: true}
		}
		f.selectClause(sel)
		f.WriteString(" FROM ")
		f.qname(sel.Table)
		f.where(sel.Where)
		f.WriteString(" PRIMARY KEY (")
		f.primaryKey(s.PartitionKey, s.Clustering)
		f.WriteByte(')')
		sep := " WITH "
		if len(s.ClusteringOrder) > 0 {
			f.WriteString(sep)
			sep = " AND "
			f.clusteringOrder(s.ClusteringOrder)
		}
		if len(s.Properties) > 0 {
			f.WriteString(sep)
			f.properties(s.Properties)
		}
	case *AlterMaterializedView:
		f.WriteString("ALTER MATERIALIZED VIEW ")
		f.ifExists(s.IfExists)
		f.qname(s.Name)
		f.WriteString(" WITH ")
		f.properties(s.Properties)
	case *DropMaterializedView:
		f.WriteString("DROP MATERIALIZED VIEW ")
		f.ifExists(s.IfExists)
		f.qname(s.Name)
	case *CreateFunction:
		f.WriteString("CREATE ")
		if s.OrReplace {
			f.WriteString("OR REPLACE ")
		}
		f.WriteString("FUNCTION ")
		f.ifNotExists(s.IfNotExists)
		f.functionName(s.Name)
		f.WriteString(" (")
		for i, a := range s.Args {
			if i > 0 {
				f.WriteString(", ")
			}
			f.ident(a.Name)
			f.WriteByte(' ')
			a.Type.format(&f.Builder)
		}
		f.WriteString(") ")
		if s.CalledOnNullInput {
			f.WriteString("CALLED")
		} else {
			f.WriteString("RETURNS NULL")
		}
		f.WriteString(" ON NULL INPUT RETURNS ")
		s.ReturnType.format(&f.Builder)
		f.WriteString(" LANGUAGE ")
		f.WriteString(s.Language)
		f.WriteString(" AS ")
		writeBody(&f.Builder, s.Body)
	case *DropFunction:
		f.WriteString("DROP FUNCTION ")
		f.ifExists(s.IfExists)
		f.functionName(s.Name)
		if s.ArgsSpecified {
			f.typeList(s.ArgTypes)
		}
	case *CreateAggregate:
		f.WriteString("CREATE ")
		if s.OrReplace {
			f.WriteString("OR REPLACE ")
		}
		f.WriteString("AGGREGATE ")
		f.ifNotExists(s.IfNotExists)
		f.functionName(s.Name)
		f.typeList(s.ArgTypes)
		f.WriteString(" SFUNC ")
		f.functionName(QualifiedName{Name: s.StateFunc})
		f.WriteString(" STYPE ")
		s.StateType.format(&f.Builder)
		if s.FinalFunc != "" {
			f.WriteString(" FINALFUNC ")
			f.functionName(QualifiedName{Name: s.FinalFunc})
		}
		if s.InitCond != nil {
			f.WriteString(" INITCOND ")
			f.term(s.InitCond)
		}
	case *DropAggregate:
		f.WriteString("DROP AGGREGATE ")
		f.ifExists(s.IfExists)
		f.functionName(s.Name)
		if s.ArgsSpecified {
			f.typeList(s.ArgTypes)
		}
	case *CreateTrigger:
		f.WriteString("CREATE TRIGGER ")
		f.ifNotExists(s.IfNotExists)
		f.ident(s.Name)
		f.WriteString(" ON ")
		f.qname(s.Table)
		f.WriteString(" USING ")
		writeQuotedString(&f.Builder, s.Class)
	case *DropTrigger:
		f.WriteString("DROP TRIGGER ")
		f.ifExists(s.IfExists)
		f.ident(s.Name)
		f.WriteString(" ON ")
		f.qname(s.Table)
	case *AlterTable:
		f.alterTable(s)
	case *CreateRole:
		f.WriteString("CREATE ROLE ")
		f.ifNotExists(s.IfNotExists)
		f.roleName(s.Name)
		f.roleOptions(s.Options)
	case *AlterRole:
		f.WriteString("ALTER ROLE ")
		f.ifExists(s.IfExists)
		f.roleName(s.Name)
		f.roleOptions(s.Options)
	case *DropRole:
		f.WriteString("DROP ROLE ")
		f.ifExists(s.IfExists)
		f.roleName(s.Name)
	case *CreateUser:
		f.WriteString("CREATE USER ")
		f.ifNotExists(s.IfNotExists)
		writeQuotedString(&f.Builder, s.Name)
		f.userOptions(s.Password, s.Superuser, s.NoSuperuser)
	case *AlterUser:
		f.WriteString("ALTER USER ")
		f.ifExists(s.IfExists)
		writeQuotedString(&f.Builder, s.Name)
		f.userOptions(s.Password, s.Superuser, s.NoSuperuser)
	case *DropUser:
		f.WriteString("DROP USER ")
		f.ifExists(s.IfExists)
		writeQuotedString(&f.Builder, s.Name)
	case *GrantPermissions:
		f.WriteString("GRANT ")
		f.permissions(s.Permissions)
		f.WriteString(" ON ")
		f.resource(&s.Resource)
		f.WriteString(" TO ")
		f.roleName(s.Role)
	case *RevokePermissions:
		f.WriteString("REVOKE ")
		f.permissions(s.Permissions)
		f.WriteString(" ON ")
		f.resource(&s.Resource)
		f.WriteString(" FROM ")
		f.roleName(s.Role)
	case *GrantRole:
		f.WriteString("GRANT ")
		f.roleName(s.Role)
		f.WriteString(" TO ")
		f.roleName(s.Grantee)
	case *RevokeRole:
		f.WriteString("REVOKE ")
		f.roleName(s.Role)
		f.WriteString(" FROM ")
		f.roleName(s.Revokee)
	case *ListPermissions:
		f.WriteString("LIST ")
		f.permissions(s.Permissions)
		if s.Resource != nil {
			f.WriteString(" ON ")
			f.resource(s.Resource)
		}
		if s.Of != "" {
			f.WriteString(" OF ")
			f.roleName(s.Of)
		}
		if s.NoRecursive {
			f.WriteString(" NORECURSIVE")
		}
	case *ListRoles:
		f.WriteString("LIST ROLES")
		if s.Of != "" {
			f.WriteString(" OF ")
			f.roleName(s.Of)
		}
		if s.NoRecursive {
			f.WriteString(" NORECURSIVE")
		}
	case *ListUsers:
		f.WriteString("LIST USERS")
	case *AddIdentity:
		f.WriteString("ADD IDENTITY ")
		f.ifNotExists(s.IfNotExists)
		writeQuotedString(&f.Builder, s.Identity)
		f.WriteString(" TO ROLE ")
		writeQuotedString(&f.Builder, s.Role)
	case *DropIdentity:
		f.WriteString("DROP IDENTITY ")
		f.ifExists(s.IfExists)
		writeQuotedString(&f.Builder, s.Identity)
	case *Describe:
		f.describe(s)
	default:
		return false
	}
	return true
}

func (f *formatter) ifNotExists(b bool) {
	if b {
		f.WriteString("IF NOT EXISTS ")
	}
}

func (f *formatter) ifExists(b bool) {
	if b {
		f.WriteString("IF EXISTS ")
	}
}

// typeName writes a user type name; names that are reserved as type names
// (native types, collections) are quoted.
func (f *formatter) typeName(q QualifiedName) {
	TypeExpr{Keyspace: q.Keyspace, Name: q.Name}.format(&f.Builder)
}

func (f *formatter) typeList(ts []TypeExpr) {
	f.WriteByte('(')
	for i, t := range ts {
		if i > 0 {
			f.WriteString(", ")
		}
		t.format(&f.Builder)
	}
	f.WriteByte(')')
}

func (f *formatter) renames(rs []Rename) {
	for i, r := range rs {
		if i > 0 {
			f.WriteString(" AND ")
		}
		f.ident(r.From)
		f.WriteString(" TO ")
		f.ident(r.To)
	}
}

// primaryKey writes the inside of PRIMARY KEY (...).
func (f *formatter) primaryKey(pk, clustering []string) {
	if len(pk) == 1 {
		f.ident(pk[0])
	} else {
		f.identList(pk)
	}
	for _, c := range clustering {
		f.WriteString(", ")
		f.ident(c)
	}
}

func (f *formatter) clusteringOrder(orders []ClusteringOrder) {
	f.WriteString("CLUSTERING ORDER BY (")
	for i, o := range orders {
		if i > 0 {
			f.WriteString(", ")
		}
		f.ident(o.Column)
		if o.Desc {
			f.WriteString(" DESC")
		} else {
			f.WriteString(" ASC")
		}
	}
	f.WriteByte(')')
}

// selectClause writes '*' or the selectors of s.
func (f *formatter) selectClause(s *Select) {
	if s.Star || len(s.Selectors) == 0 {
		f.WriteByte('*')
		return
	}
	for i, sel := range s.Selectors {
		if i > 0 {
			f.WriteString(", ")
		}
		f.selector(sel.Expr)
		if sel.Alias != "" {
			f.WriteString(" AS ")
			f.ident(sel.Alias)
		}
	}
}

func (f *formatter) columnMask(m *ColumnMask) {
	f.WriteString(" MASKED WITH ")
	if m.Default {
		f.WriteString("DEFAULT")
		return
	}
	f.functionName(m.Function)
	f.WriteByte('(')
	f.terms(m.Args)
	f.WriteByte(')')
}

// writeBody writes a function body, as a $$ string when that needs no
// escaping (as DESCRIBE does), otherwise as a quoted string.
func writeBody(b *strings.Builder, body string) {
	if !strings.Contains(body, "$$") && !strings.HasSuffix(body, "$") && strings.Contains(body, "'") {
		b.WriteString("$$")
		b.WriteString(body)
		b.WriteString("$$")
		return
	}
	writeQuotedString(b, body)
}

func (f *formatter) alterTable(s *AlterTable) {
	f.WriteString("ALTER TABLE ")
	f.ifExists(s.IfExists)
	f.qname(s.Name)
	switch s.Op {
	case AlterTableAlterColumnType:
		f.WriteString(" ALTER ")
		f.ident(s.Column)
		f.WriteString(" TYPE ")
		s.Type.format(&f.Builder)
	case AlterTableMaskColumn, AlterTableUnmaskColumn:
		f.WriteString(" ALTER ")
		f.ifExists(s.IfColumnExists)
		f.ident(s.Column)
		if s.Op == AlterTableUnmaskColumn || s.Mask == nil {
			f.WriteString(" DROP MASKED")
		} else {
			f.columnMask(s.Mask)
		}
	case AlterTableAddColumns:
		f.WriteString(" ADD ")
		f.ifNotExists(s.IfColumnNotExists)
		if len(s.Add) != 1 {
			f.WriteByte('(')
		}
		for i, c := range s.Add {
			if i > 0 {
				f.WriteString(", ")
			}
			f.ident(c.Name)
			f.WriteByte(' ')
			c.Type.format(&f.Builder)
			if c.Static {
				f.WriteString(" STATIC")
			}
			if c.Mask != nil {
				f.columnMask(c.Mask)
			}
		}
		if len(s.Add) != 1 {
			f.WriteByte(')')
		}
	case AlterTableDropColumns:
		f.WriteString(" DROP ")
		f.ifExists(s.IfColumnExists)
		if len(s.Drop) == 1 {
			f.ident(s.Drop[0])
		} else {
			f.identList(s.Drop)
		}
		if s.DropTimestamp != nil {
			f.WriteString(" USING TIMESTAMP ")
			f.term(s.DropTimestamp)
		}
	case AlterTableRenameColumns:
		f.WriteString(" RENAME ")
		f.ifExists(s.IfColumnExists)
		f.renames(s.Renames)
	case AlterTableDropCompactStorage:
		f.WriteString(" DROP COMPACT STORAGE")
	case AlterTableWith:
		f.WriteString(" WITH ")
		f.properties(s.Properties)
	}
}

// roleName writes a role name as an identifier (quoted when needed), or as
// a string when it cannot be one.
func (f *formatter) roleName(s string) {
	if s == "" {
		f.WriteString("''")
		return
	}
	f.ident(s)
}

func (f *formatter) roleOptions(opts []RoleOption) {
	for i := range opts {
		if i == 0 {
			f.WriteString(" WITH ")
		} else {
			f.WriteString(" AND ")
		}
		o := &opts[i]
		switch o.Kind {
		case RolePassword:
			f.WriteString("PASSWORD = ")
			writeQuotedString(&f.Builder, o.Text)
		case RoleHashedPassword:
			f.WriteString("HASHED PASSWORD = ")
			writeQuotedString(&f.Builder, o.Text)
		case RoleSuperuser, RoleLogin:
			if o.Kind == RoleSuperuser {
				f.WriteString("SUPERUSER = ")
			} else {
				f.WriteString("LOGIN = ")
			}
			if o.Bool {
				f.WriteString("true")
			} else {
				f.WriteString("false")
			}
		case RoleOptionsMap:
			f.WriteString("OPTIONS = ")
			if o.Map == nil {
				f.WriteString("{}")
			} else {
				f.term(o.Map)
			}
		case RoleAccessAllDatacenters:
			f.WriteString("ACCESS TO ALL DATACENTERS")
		case RoleAccessDatacenters:
			f.WriteString("ACCESS TO DATACENTERS ")
			f.stringSet(o.List)
		case RoleAccessAllCidrs:
			f.WriteString("ACCESS FROM ALL CIDRS")
		case RoleAccessCidrs:
			f.WriteString("ACCESS FROM CIDRS ")
			f.stringSet(o.List)
		}
	}
}

func (f *formatter) stringSet(ss []string) {
	f.WriteByte('{')
	for i, s := range ss {
		if i > 0 {
			f.WriteString(", ")
		}
		writeQuotedString(&f.Builder, s)
	}
	f.WriteByte('}')
}

func (f *formatter) userOptions(pw *RoleOption, super, nosuper bool) {
	if pw != nil {
		switch pw.Kind {
		case RoleHashedPassword:
			f.WriteString(" WITH HASHED PASSWORD ")
			writeQuotedString(&f.Builder, pw.Text)
		default:
			f.WriteString(" WITH PASSWORD ")
			writeQuotedString(&f.Builder, pw.Text)
		}
	}
	switch {
	case super:
		f.WriteString(" SUPERUSER")
	case nosuper:
		f.WriteString(" NOSUPERUSER")
	}
}

func (f *formatter) permissions(p Permissions) {
	if p.All || len(p.Names) == 0 {
		f.WriteString("ALL PERMISSIONS")
		return
	}
	for i, n := range p.Names {
		if i > 0 {
			f.WriteString(", ")
		}
		f.WriteString(n)
	}
}

func (f *formatter) resource(r *Resource) {
	switch r.Kind {
	case ResourceAllKeyspaces:
		f.WriteString("ALL KEYSPACES")
	case ResourceKeyspace:
		f.WriteString("KEYSPACE ")
		f.ident(r.Keyspace)
	case ResourceAllTablesInKeyspace:
		f.WriteString("ALL TABLES IN KEYSPACE ")
		f.ident(r.Keyspace)
	case ResourceAllRoles:
		f.WriteString("ALL ROLES")
	case ResourceRole:
		f.WriteString("ROLE ")
		f.roleName(r.Name)
	case ResourceAllFunctions:
		f.WriteString("ALL FUNCTIONS")
	case ResourceAllFunctionsInKeyspace:
		f.WriteString("ALL FUNCTIONS IN KEYSPACE ")
		f.ident(r.Keyspace)
	case ResourceFunction:
		f.WriteString("FUNCTION ")
		f.functionName(QualifiedName{Keyspace: r.Keyspace, Name: r.Name})
		f.typeList(r.ArgTypes)
	case ResourceAllMBeans:
		f.WriteString("ALL MBEANS")
	case ResourceMBean:
		f.WriteString("MBEAN ")
		writeQuotedString(&f.Builder, r.Name)
	case ResourceMBeans:
		f.WriteString("MBEANS ")
		writeQuotedString(&f.Builder, r.Name)
	default:
		f.WriteString("TABLE ")
		f.qname(QualifiedName{Keyspace: r.Keyspace, Name: r.Name})
	}
}

func (f *formatter) describe(d *Describe) {
	f.WriteString("DESCRIBE ")
	switch d.Kind {
	case DescribeCluster:
		f.WriteString("CLUSTER")
	case DescribeSchema:
		if d.Full {
			f.WriteString("FULL ")
		}
		f.WriteString("SCHEMA")
	case DescribeKeyspaces:
		f.WriteString("KEYSPACES")
	case DescribeKeyspace:
		if d.Only {
			f.WriteString("ONLY ")
		}
		f.WriteString("KEYSPACE")
		if d.Name.Keyspace != "" {
			f.WriteByte(' ')
			f.ident(d.Name.Keyspace)
		}
	case DescribeTables:
		f.WriteString("TABLES")
	case DescribeTable:
		f.WriteString("TABLE ")
		f.qname(d.Name)
	case DescribeIndex:
		f.WriteString("INDEX ")
		f.qname(d.Name)
	case DescribeView:
		f.WriteString("MATERIALIZED VIEW ")
		f.qname(d.Name)
	case DescribeTypes:
		f.WriteString("TYPES")
	case DescribeType:
		f.WriteString("TYPE ")
		f.typeName(d.Name)
	case DescribeFunctions:
		f.WriteString("FUNCTIONS")
	case DescribeFunction:
		f.WriteString("FUNCTION ")
		f.functionName(d.Name)
	case DescribeAggregates:
		f.WriteString("AGGREGATES")
	case DescribeAggregate:
		f.WriteString("AGGREGATE ")
		f.functionName(d.Name)
	default:
		// The first word of the generic form is quoted when it is a
		// keyword, so that it is not read as one of the forms above.
		first := d.Name.Keyspace
		if first == "" {
			first = d.Name.Name
		}
		if _, isKw := keywords[first]; isKw {
			writeQuotedIdent(&f.Builder, first)
		} else {
			f.ident(first)
		}
		if d.Name.Keyspace != "" {
			f.WriteByte('.')
			f.ident(d.Name.Name)
		}
	}
	if d.WithInternals {
		f.WriteString(" WITH INTERNALS")
	}
}
