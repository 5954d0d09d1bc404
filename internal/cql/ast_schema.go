package cql

// This file defines the AST of the schema, security and DESCRIBE statements
// beyond keyspaces and CREATE/DROP TABLE: indexes, user types, materialized
// views, functions, aggregates, triggers, ALTER TABLE, roles and users,
// permissions, identities and DESCRIBE. Field comments name the Parser.g
// rule each statement follows.

// ColumnMask is a dynamic data masking clause: MASKED WITH DEFAULT or
// MASKED WITH fn(args...) (Parser.g's columnMask).
type ColumnMask struct {
	Default  bool          // MASKED WITH DEFAULT
	Function QualifiedName // when !Default
	Args     []Term
}

// IndexTargetKind says which part of a column an index covers.
type IndexTargetKind uint8

const (
	IndexColumn  IndexTargetKind = iota // c (values of a non-frozen collection, or the column)
	IndexValues                         // VALUES(c)
	IndexKeys                           // KEYS(c)
	IndexEntries                        // ENTRIES(c)
	IndexFull                           // FULL(c)
)

// IndexTarget is one indexIdent of CREATE INDEX.
type IndexTarget struct {
	Column string
	Kind   IndexTargetKind
}

// CreateIndex is CREATE [CUSTOM] INDEX [IF NOT EXISTS] [name] ON table
// (targets) [USING 'class'] [WITH OPTIONS = {...}].
type CreateIndex struct {
	Custom      bool
	IfNotExists bool
	Name        QualifiedName // Name.Name is "" when the index is unnamed
	Table       QualifiedName
	Targets     []IndexTarget
	Using       string // index class or alias ('StorageAttachedIndex', 'sai'); "" when absent
	Properties  []Property
}

// DropIndex is DROP INDEX [IF EXISTS] [ks.]name.
type DropIndex struct {
	Name     QualifiedName
	IfExists bool
}

// FieldDef is one field of CREATE TYPE.
type FieldDef struct {
	Name string
	Type TypeExpr
}

// CreateType is CREATE TYPE [IF NOT EXISTS] name (field type, ...).
type CreateType struct {
	Name        QualifiedName
	IfNotExists bool
	Fields      []FieldDef
}

// Rename is one "a TO b" of ALTER TABLE/TYPE ... RENAME.
type Rename struct {
	From, To string
}

// AlterTypeOp is the action of ALTER TYPE.
type AlterTypeOp uint8

const (
	AlterTypeAlterField  AlterTypeOp = iota + 1 // ALTER f TYPE t
	AlterTypeAddField                           // ADD [IF NOT EXISTS] f t
	AlterTypeRenameField                        // RENAME [IF EXISTS] a TO b [AND ...]
)

// AlterType is ALTER TYPE [IF EXISTS] name (ALTER | ADD | RENAME) ...
type AlterType struct {
	Name     QualifiedName
	IfExists bool
	Op       AlterTypeOp
	// IfFieldExists is ADD's IF NOT EXISTS or RENAME's IF EXISTS.
	IfFieldExists bool
	Field         string   // ALTER and ADD
	Type          TypeExpr // ALTER and ADD
	Renames       []Rename // RENAME
}

// DropType is DROP TYPE [IF EXISTS] name.
type DropType struct {
	Name     QualifiedName
	IfExists bool
}

// CreateMaterializedView is CREATE MATERIALIZED VIEW [IF NOT EXISTS] name AS
// SELECT ... FROM base [WHERE ...] PRIMARY KEY (...) [WITH ...]. Select holds
// the selection, the base table and the WHERE clause (its other clauses are
// not part of the grammar and stay empty).
type CreateMaterializedView struct {
	Name            QualifiedName
	IfNotExists     bool
	Select          *Select
	PartitionKey    []string
	Clustering      []string
	ClusteringOrder []ClusteringOrder
	Properties      []Property
}

// AlterMaterializedView is ALTER MATERIALIZED VIEW [IF EXISTS] name WITH ...
type AlterMaterializedView struct {
	Name       QualifiedName
	IfExists   bool
	Properties []Property
}

// DropMaterializedView is DROP MATERIALIZED VIEW [IF EXISTS] name.
type DropMaterializedView struct {
	Name     QualifiedName
	IfExists bool
}

// FunctionArg is one argument of CREATE FUNCTION.
type FunctionArg struct {
	Name string
	Type TypeExpr
}

// CreateFunction is CREATE [OR REPLACE] FUNCTION [IF NOT EXISTS] name
// (args) (CALLED | RETURNS NULL) ON NULL INPUT RETURNS type LANGUAGE lang
// AS 'body'.
type CreateFunction struct {
	Name              QualifiedName
	OrReplace         bool
	IfNotExists       bool
	Args              []FunctionArg
	CalledOnNullInput bool
	ReturnType        TypeExpr
	Language          string // lower-cased
	Body              string
}

// DropFunction is DROP FUNCTION [IF EXISTS] name [(types)]; DropAggregate
// reuses the shape. ArgsSpecified distinguishes "f" from "f()".
type DropFunction struct {
	Name          QualifiedName
	IfExists      bool
	ArgTypes      []TypeExpr
	ArgsSpecified bool
}

// CreateAggregate is CREATE [OR REPLACE] AGGREGATE [IF NOT EXISTS] name
// (types) SFUNC f STYPE t [FINALFUNC f] [INITCOND term].
type CreateAggregate struct {
	Name        QualifiedName
	OrReplace   bool
	IfNotExists bool
	ArgTypes    []TypeExpr
	StateFunc   string
	StateType   TypeExpr
	FinalFunc   string // "" when absent
	InitCond    Term   // nil when absent
}

// DropAggregate is DROP AGGREGATE [IF EXISTS] name [(types)].
type DropAggregate struct {
	Name          QualifiedName
	IfExists      bool
	ArgTypes      []TypeExpr
	ArgsSpecified bool
}

// CreateTrigger is CREATE TRIGGER [IF NOT EXISTS] name ON table USING 'class'.
type CreateTrigger struct {
	Name        string
	IfNotExists bool
	Table       QualifiedName
	Class       string
}

// DropTrigger is DROP TRIGGER [IF EXISTS] name ON table.
type DropTrigger struct {
	Name     string
	IfExists bool
	Table    QualifiedName
}

// AlterTableOp is the action of ALTER TABLE.
type AlterTableOp uint8

const (
	AlterTableAlterColumnType    AlterTableOp = iota + 1 // ALTER c TYPE t (refused by Cassandra 5.0 at execution)
	AlterTableMaskColumn                                 // ALTER [IF EXISTS] c MASKED WITH ...
	AlterTableUnmaskColumn                               // ALTER [IF EXISTS] c DROP MASKED
	AlterTableAddColumns                                 // ADD [IF NOT EXISTS] c t [STATIC] [mask] | ADD (...)
	AlterTableDropColumns                                // DROP [IF EXISTS] c | DROP (c, ...) [USING TIMESTAMP n]
	AlterTableRenameColumns                              // RENAME [IF EXISTS] a TO b [AND ...]
	AlterTableDropCompactStorage                         // DROP COMPACT STORAGE
	AlterTableWith                                       // WITH property AND ...
)

// AlterTable is ALTER TABLE [IF EXISTS] name followed by one action.
type AlterTable struct {
	Name     QualifiedName
	IfExists bool
	Op       AlterTableOp
	// IfColumnExists is the IF EXISTS of ALTER, DROP and RENAME;
	// IfColumnNotExists the IF NOT EXISTS of ADD.
	IfColumnExists    bool
	IfColumnNotExists bool
	Column            string      // ALTER
	Type              TypeExpr    // ALTER c TYPE t
	Mask              *ColumnMask // ALTER c MASKED WITH ...
	Add               []ColumnDef // ADD (Name, Type, Static, Mask)
	Drop              []string    // DROP
	DropTimestamp     Term        // DROP ... USING TIMESTAMP n (an integer Literal), or nil
	Renames           []Rename    // RENAME
	Properties        []Property  // WITH
}

// ---------------------------------------------------------------------------
// Roles, users, permissions

// RoleOptionKind is one option of CREATE/ALTER ROLE (and USER).
type RoleOptionKind uint8

const (
	RolePassword             RoleOptionKind = iota + 1 // PASSWORD = 's'
	RoleHashedPassword                                 // HASHED PASSWORD = 's'
	RoleSuperuser                                      // SUPERUSER = bool
	RoleLogin                                          // LOGIN = bool
	RoleOptionsMap                                     // OPTIONS = {...}
	RoleAccessAllDatacenters                           // ACCESS TO ALL DATACENTERS
	RoleAccessDatacenters                              // ACCESS TO DATACENTERS {'dc', ...}
	RoleAccessAllCidrs                                 // ACCESS FROM ALL CIDRS
	RoleAccessCidrs                                    // ACCESS FROM CIDRS {'cidr', ...}
)

// RoleOption is one roleOption. Text holds a password; Bool a SUPERUSER or
// LOGIN value; Map the OPTIONS map; List the datacenters or CIDR groups.
type RoleOption struct {
	Kind RoleOptionKind
	Text string
	Bool bool
	Map  *CollectionLiteral
	List []string
}

// CreateRole is CREATE ROLE [IF NOT EXISTS] name [WITH option AND ...].
type CreateRole struct {
	Name        string
	IfNotExists bool
	Options     []RoleOption
}

// AlterRole is ALTER ROLE [IF EXISTS] name [WITH option AND ...].
type AlterRole struct {
	Name     string
	IfExists bool
	Options  []RoleOption
}

// DropRole is DROP ROLE [IF EXISTS] name.
type DropRole struct {
	Name     string
	IfExists bool
}

// CreateUser is the legacy CREATE USER [IF NOT EXISTS] name [WITH [HASHED |
// GENERATED] PASSWORD ['s']] [SUPERUSER | NOSUPERUSER]. Password, when set,
// is a RolePassword or RoleHashedPassword option.
// User names keep their case (Cassandra does not fold them).
type CreateUser struct {
	Name        string
	IfNotExists bool
	Password    *RoleOption
	Superuser   bool
	NoSuperuser bool
}

// AlterUser is the legacy ALTER USER [IF EXISTS] name [WITH ... PASSWORD]
// [SUPERUSER | NOSUPERUSER].
type AlterUser struct {
	Name        string
	IfExists    bool
	Password    *RoleOption
	Superuser   bool
	NoSuperuser bool
}

// DropUser is DROP USER [IF EXISTS] name.
type DropUser struct {
	Name     string
	IfExists bool
}

// ResourceKind is the kind of a permission resource.
type ResourceKind uint8

const (
	ResourceAllKeyspaces           ResourceKind = iota + 1 // ALL KEYSPACES
	ResourceKeyspace                                       // KEYSPACE ks
	ResourceTable                                          // [TABLE] [ks.]t
	ResourceAllTablesInKeyspace                            // ALL TABLES IN KEYSPACE ks
	ResourceAllRoles                                       // ALL ROLES
	ResourceRole                                           // ROLE r
	ResourceAllFunctions                                   // ALL FUNCTIONS
	ResourceAllFunctionsInKeyspace                         // ALL FUNCTIONS IN KEYSPACE ks
	ResourceFunction                                       // FUNCTION [ks.]f(types)
	ResourceAllMBeans                                      // ALL MBEANS
	ResourceMBean                                          // MBEAN 'name'
	ResourceMBeans                                         // MBEANS 'pattern'
)

// Resource is what a permission applies to (Parser.g's resource). Name
// holds the table (with Keyspace), role, function (with Keyspace and
// ArgTypes) or MBean name; Keyspace alone names a keyspace.
type Resource struct {
	Kind     ResourceKind
	Keyspace string
	Name     string
	ArgTypes []TypeExpr
}

// Permissions is permissionOrAll: ALL [PERMISSIONS], or a list of
// permission names in upper case ("SELECT", "MODIFY", "SELECT_MASKED", ...).
type Permissions struct {
	All   bool
	Names []string
}

// GrantPermissions is GRANT permissions ON resource TO role.
type GrantPermissions struct {
	Permissions Permissions
	Resource    Resource
	Role        string
}

// RevokePermissions is REVOKE permissions ON resource FROM role.
type RevokePermissions struct {
	Permissions Permissions
	Resource    Resource
	Role        string
}

// GrantRole is GRANT role TO grantee.
type GrantRole struct {
	Role, Grantee string
}

// RevokeRole is REVOKE role FROM revokee.
type RevokeRole struct {
	Role, Revokee string
}

// ListPermissions is LIST permissions [ON resource] [OF role] [NORECURSIVE].
type ListPermissions struct {
	Permissions Permissions
	Resource    *Resource // nil: all resources
	Of          string    // "" when absent
	NoRecursive bool
}

// ListRoles is LIST ROLES [OF role] [NORECURSIVE].
type ListRoles struct {
	Of          string
	NoRecursive bool
}

// ListUsers is LIST USERS.
type ListUsers struct{}

// AddIdentity is ADD IDENTITY [IF NOT EXISTS] 'identity' TO ROLE 'role'.
type AddIdentity struct {
	Identity    string
	Role        string
	IfNotExists bool
}

// DropIdentity is DROP IDENTITY [IF EXISTS] 'identity'.
type DropIdentity struct {
	Identity string
	IfExists bool
}

// ---------------------------------------------------------------------------
// DESCRIBE

// DescribeKind is the form of a DESCRIBE statement.
type DescribeKind uint8

const (
	DescribeCluster    DescribeKind = iota + 1 // DESCRIBE CLUSTER
	DescribeSchema                             // DESCRIBE [FULL] SCHEMA
	DescribeKeyspaces                          // DESCRIBE KEYSPACES
	DescribeKeyspace                           // DESCRIBE [ONLY] KEYSPACE [ks]
	DescribeTables                             // DESCRIBE TABLES
	DescribeTable                              // DESCRIBE TABLE [ks.]t
	DescribeIndex                              // DESCRIBE INDEX [ks.]i
	DescribeView                               // DESCRIBE MATERIALIZED VIEW [ks.]v
	DescribeTypes                              // DESCRIBE TYPES
	DescribeType                               // DESCRIBE TYPE [ks.]t
	DescribeFunctions                          // DESCRIBE FUNCTIONS
	DescribeFunction                           // DESCRIBE FUNCTION [ks.]f
	DescribeAggregates                         // DESCRIBE AGGREGATES
	DescribeAggregate                          // DESCRIBE AGGREGATE [ks.]a
	DescribeGeneric                            // DESCRIBE [ks.]name (keyspace, table, view, index, type, function or aggregate)
)

// Describe is DESCRIBE / DESC in all its forms, optionally WITH INTERNALS.
// Name is the object named (Name.Keyspace alone for DESCRIBE KEYSPACE ks;
// empty for the current keyspace).
type Describe struct {
	Kind          DescribeKind
	Full          bool // DESCRIBE FULL SCHEMA
	Only          bool // DESCRIBE ONLY KEYSPACE
	Name          QualifiedName
	WithInternals bool
}

func (*CreateIndex) isStatement()            {}
func (*DropIndex) isStatement()              {}
func (*CreateType) isStatement()             {}
func (*AlterType) isStatement()              {}
func (*DropType) isStatement()               {}
func (*CreateMaterializedView) isStatement() {}
func (*AlterMaterializedView) isStatement()  {}
func (*DropMaterializedView) isStatement()   {}
func (*CreateFunction) isStatement()         {}
func (*DropFunction) isStatement()           {}
func (*CreateAggregate) isStatement()        {}
func (*DropAggregate) isStatement()          {}
func (*CreateTrigger) isStatement()          {}
func (*DropTrigger) isStatement()            {}
func (*AlterTable) isStatement()             {}
func (*CreateRole) isStatement()             {}
func (*AlterRole) isStatement()              {}
func (*DropRole) isStatement()               {}
func (*CreateUser) isStatement()             {}
func (*AlterUser) isStatement()              {}
func (*DropUser) isStatement()               {}
func (*GrantPermissions) isStatement()       {}
func (*RevokePermissions) isStatement()      {}
func (*GrantRole) isStatement()              {}
func (*RevokeRole) isStatement()             {}
func (*ListPermissions) isStatement()        {}
func (*ListRoles) isStatement()              {}
func (*ListUsers) isStatement()              {}
func (*AddIdentity) isStatement()            {}
func (*DropIdentity) isStatement()           {}
func (*Describe) isStatement()               {}
