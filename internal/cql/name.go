package cql

// StatementName returns the name of a statement as users say it: "SELECT",
// "CREATE INDEX", "ALTER TABLE", "DESCRIBE", ... The executor uses it to
// name features that are not built yet.
func StatementName(s Statement) string {
	switch s := s.(type) {
	case *Select:
		return "SELECT"
	case *Insert:
		return "INSERT"
	case *Update:
		return "UPDATE"
	case *Delete:
		return "DELETE"
	case *Batch:
		return "BATCH"
	case *Use:
		return "USE"
	case *Truncate:
		return "TRUNCATE"
	case *CreateKeyspace:
		return "CREATE KEYSPACE"
	case *AlterKeyspace:
		return "ALTER KEYSPACE"
	case *DropKeyspace:
		return "DROP KEYSPACE"
	case *CreateTable:
		return "CREATE TABLE"
	case *AlterTable:
		return "ALTER TABLE"
	case *DropTable:
		return "DROP TABLE"
	case *CreateIndex:
		if s.Custom {
			return "CREATE CUSTOM INDEX"
		}
		return "CREATE INDEX"
	case *DropIndex:
		return "DROP INDEX"
	case *CreateType:
		return "CREATE TYPE"
	case *AlterType:
		return "ALTER TYPE"
	case *DropType:
		return "DROP TYPE"
	case *CreateMaterializedView:
		return "CREATE MATERIALIZED VIEW"
	case *AlterMaterializedView:
		return "ALTER MATERIALIZED VIEW"
	case *DropMaterializedView:
		return "DROP MATERIALIZED VIEW"
	case *CreateFunction:
		return "CREATE FUNCTION"
	case *DropFunction:
		return "DROP FUNCTION"
	case *CreateAggregate:
		return "CREATE AGGREGATE"
	case *DropAggregate:
		return "DROP AGGREGATE"
	case *CreateTrigger:
		return "CREATE TRIGGER"
	case *DropTrigger:
		return "DROP TRIGGER"
	case *CreateRole:
		return "CREATE ROLE"
	case *AlterRole:
		return "ALTER ROLE"
	case *DropRole:
		return "DROP ROLE"
	case *CreateUser:
		return "CREATE USER"
	case *AlterUser:
		return "ALTER USER"
	case *DropUser:
		return "DROP USER"
	case *GrantPermissions, *GrantRole:
		return "GRANT"
	case *RevokePermissions, *RevokeRole:
		return "REVOKE"
	case *ListPermissions:
		return "LIST PERMISSIONS"
	case *ListRoles:
		return "LIST ROLES"
	case *ListUsers:
		return "LIST USERS"
	case *AddIdentity:
		return "ADD IDENTITY"
	case *DropIdentity:
		return "DROP IDENTITY"
	case *Describe:
		return "DESCRIBE"
	}
	return "statement"
}

var indexTargetKindNames = [...]string{IndexColumn: "column", IndexValues: "VALUES", IndexKeys: "KEYS", IndexEntries: "ENTRIES", IndexFull: "FULL"}

func (k IndexTargetKind) String() string { return enumName(indexTargetKindNames[:], int(k)) }

var alterTypeOpNames = [...]string{AlterTypeAlterField: "ALTER", AlterTypeAddField: "ADD", AlterTypeRenameField: "RENAME"}

func (o AlterTypeOp) String() string { return enumName(alterTypeOpNames[:], int(o)) }

var alterTableOpNames = [...]string{
	AlterTableAlterColumnType: "ALTER TYPE", AlterTableMaskColumn: "MASK", AlterTableUnmaskColumn: "DROP MASKED",
	AlterTableAddColumns: "ADD", AlterTableDropColumns: "DROP", AlterTableRenameColumns: "RENAME",
	AlterTableDropCompactStorage: "DROP COMPACT STORAGE", AlterTableWith: "WITH",
}

func (o AlterTableOp) String() string { return enumName(alterTableOpNames[:], int(o)) }

var roleOptionKindNames = [...]string{
	RolePassword: "PASSWORD", RoleHashedPassword: "HASHED PASSWORD",
	RoleSuperuser: "SUPERUSER", RoleLogin: "LOGIN", RoleOptionsMap: "OPTIONS",
	RoleAccessAllDatacenters: "ACCESS TO ALL DATACENTERS", RoleAccessDatacenters: "ACCESS TO DATACENTERS",
	RoleAccessAllCidrs: "ACCESS FROM ALL CIDRS", RoleAccessCidrs: "ACCESS FROM CIDRS",
}

func (k RoleOptionKind) String() string { return enumName(roleOptionKindNames[:], int(k)) }

var resourceKindNames = [...]string{
	ResourceAllKeyspaces: "ALL KEYSPACES", ResourceKeyspace: "KEYSPACE", ResourceTable: "TABLE",
	ResourceAllTablesInKeyspace: "ALL TABLES IN KEYSPACE", ResourceAllRoles: "ALL ROLES", ResourceRole: "ROLE",
	ResourceAllFunctions: "ALL FUNCTIONS", ResourceAllFunctionsInKeyspace: "ALL FUNCTIONS IN KEYSPACE",
	ResourceFunction: "FUNCTION", ResourceAllMBeans: "ALL MBEANS", ResourceMBean: "MBEAN", ResourceMBeans: "MBEANS",
}

func (k ResourceKind) String() string { return enumName(resourceKindNames[:], int(k)) }

var describeKindNames = [...]string{
	DescribeCluster: "CLUSTER", DescribeSchema: "SCHEMA", DescribeKeyspaces: "KEYSPACES", DescribeKeyspace: "KEYSPACE",
	DescribeTables: "TABLES", DescribeTable: "TABLE", DescribeIndex: "INDEX", DescribeView: "MATERIALIZED VIEW",
	DescribeTypes: "TYPES", DescribeType: "TYPE", DescribeFunctions: "FUNCTIONS", DescribeFunction: "FUNCTION",
	DescribeAggregates: "AGGREGATES", DescribeAggregate: "AGGREGATE", DescribeGeneric: "generic",
}

func (k DescribeKind) String() string { return enumName(describeKindNames[:], int(k)) }

func enumName(names []string, i int) string {
	if i >= 0 && i < len(names) && names[i] != "" {
		return names[i]
	}
	return "?"
}
