package cql

// This file defines the sealed AST. Every statement type implements Statement;
// the unexported marker method keeps the set closed to this package.
//
// Identifiers are stored as Cassandra resolves them: unquoted identifiers are
// lower-cased by the parser, quoted identifiers keep their case (and have their
// doubled quotes un-escaped).

// Statement is a parsed CQL statement.
type Statement interface {
	isStatement()
}

// QualifiedName is an optionally keyspace-qualified object name.
type QualifiedName struct {
	Keyspace string // "" when not qualified
	Name     string
}

// ---------------------------------------------------------------------------
// Terms (values in statements)

// Term is a value expression: a literal, a bind marker, a collection/tuple/UDT
// literal, a function call, a cast, or arithmetic.
type Term interface {
	isTerm()
}

// LiteralKind classifies constants the way Cassandra's lexer does.
type LiteralKind uint8

const (
	LitString   LiteralKind = iota + 1 // 'text' or $$text$$; Text holds the unescaped value
	LitInteger                         // -?[0-9]+
	LitFloat                           // decimal/exponent forms, NaN, Infinity (with optional '-')
	LitBool                            // true / false (Text is lower-case)
	LitUUID                            // 8-4-4-4-12 hex
	LitHex                             // 0x... blob (Text keeps the "0x" prefix)
	LitDuration                        // 1h30m, P1DT2H, P0001-02-03T04:05:06
	LitNull                            // null
)

// Literal is a constant.
type Literal struct {
	Kind LiteralKind
	Text string
}

// BindMarker is '?' (Name == "") or ':name'. Index is the 0-based position of
// the marker among all markers of the statement, assigned by the parser in
// order of appearance.
type BindMarker struct {
	Index int
	Name  string
}

// CollectionLiteral is [a, b] (list), {a, b} (set) or {k: v} (map). An empty
// '{}' is parsed as a map literal with no entries.
type CollectionLiteral struct {
	Kind   CollectionKind
	Elems  []Term // list and set elements
	Keys   []Term // map keys, parallel to Values
	Values []Term
}

// CollectionKind is the syntactic kind of a collection literal.
type CollectionKind uint8

const (
	ListLiteral CollectionKind = iota + 1
	SetLiteral
	MapLiteral
)

// TupleLiteral is (a, b, ...) with at least two elements when used as a value
// (a single parenthesised term is just that term).
type TupleLiteral struct {
	Elems []Term
}

// UDTLiteral is {field: value, ...} where keys are identifiers.
type UDTLiteral struct {
	Fields []string
	Values []Term
}

// FunctionCall is name(args...), e.g. now(), token(a, b), ks.fn(x).
type FunctionCall struct {
	Name QualifiedName
	Args []Term
}

// TypeHint is (type) term, a type hint on a literal or marker.
type TypeHint struct {
	Type TypeExpr
	Term Term
}

// CastTerm is CAST(term AS native_type) used as a value (Parser.g's
// simpleTerm; in a SELECT clause CAST is a CastSel).
type CastTerm struct {
	Term Term
	Type TypeExpr
}

// Negation is -term (for non-literal operands; negative number literals are
// parsed as a single Literal).
type Negation struct {
	Term Term
}

// BinaryOp is arithmetic: + - * / %.
type BinaryOp struct {
	Op          byte
	Left, Right Term
}

func (*Literal) isTerm()           {}
func (*BindMarker) isTerm()        {}
func (*CollectionLiteral) isTerm() {}
func (*TupleLiteral) isTerm()      {}
func (*UDTLiteral) isTerm()        {}
func (*FunctionCall) isTerm()      {}
func (*TypeHint) isTerm()          {}
func (*CastTerm) isTerm()          {}
func (*Negation) isTerm()          {}
func (*BinaryOp) isTerm()          {}

// ---------------------------------------------------------------------------
// Types as written

// TypeExpr is a type as written in DDL or a cast: native names, collections,
// frozen<...>, tuple<...>, vector<T, n>, a user type name, or a quoted custom
// class.
type TypeExpr struct {
	Name      string // native name ("int", "text", "varchar", ...), "list", "set", "map", "tuple", "frozen", "vector", or a UDT name
	Keyspace  string // for qualified UDT names
	Params    []TypeExpr
	Dimension int    // vector<T, n>
	Custom    string // 'class.Name' custom types
}

// ---------------------------------------------------------------------------
// Options (WITH clauses)

// Property is one `name = value` of a WITH clause. Value is either a constant
// Literal (strings, numbers, booleans) or a map literal of constants
// (replication = {...}, compaction = {...}).
type Property struct {
	Name  string
	Value Term
}

// ---------------------------------------------------------------------------
// Selection and relations

// Selector is one item of a SELECT clause.
type Selector struct {
	Expr  SelectorExpr
	Alias string // "" when no AS
}

// SelectorExpr is what a selector computes.
type SelectorExpr interface {
	isSelectorExpr()
}

// ColumnSel selects a column.
type ColumnSel struct{ Name string }

// FunctionSel is a function or aggregate call; COUNT(*) is Name "count" with
// Star set. writetime(c), ttl(c), maxwritetime(c) and token(...) are
// FunctionSel too.
type FunctionSel struct {
	Name QualifiedName
	Args []SelectorExpr
	Star bool
}

// CastSel is CAST(expr AS type).
type CastSel struct {
	Expr SelectorExpr
	Type TypeExpr
}

// TermSel is a literal, bind marker or other term used as a selector.
type TermSel struct{ Term Term }

// HintSel is (type) selector for a selector that is not a term, e.g.
// (blob) v: the value read as the hinted type (Selectable.WithTypeHint).
// A hint on a term is a TermSel holding a TypeHint.
type HintSel struct {
	Type TypeExpr
	Expr SelectorExpr
}

// FieldSel is expr.field (UDT field selection).
type FieldSel struct {
	Expr  SelectorExpr
	Field string
}

// ElementSel is expr[key] or expr[from..to] (either bound may be nil for a slice).
type ElementSel struct {
	Expr     SelectorExpr
	Key      Term // element selection when !Slice
	Slice    bool
	From, To Term
}

// ArithSel is selector arithmetic.
type ArithSel struct {
	Op          byte // + - * / %
	Left, Right SelectorExpr
}

// NegSel is unary minus on a selector.
type NegSel struct{ Expr SelectorExpr }

// CollectionSel is a list, set or map literal built from selectors that
// are not all terms, e.g. [a, b] or {k: v} over columns. Keys and Values
// are parallel for maps; Elems hold list and set elements.
type CollectionSel struct {
	Kind   CollectionKind
	Elems  []SelectorExpr
	Keys   []SelectorExpr
	Values []SelectorExpr
}

// TupleSel is a tuple built from selectors that are not all terms, e.g. (a, b).
type TupleSel struct{ Elems []SelectorExpr }

func (*CollectionSel) isSelectorExpr() {}
func (*TupleSel) isSelectorExpr()      {}
func (*ColumnSel) isSelectorExpr()     {}
func (*FunctionSel) isSelectorExpr()   {}
func (*CastSel) isSelectorExpr()       {}
func (*TermSel) isSelectorExpr()       {}
func (*HintSel) isSelectorExpr()       {}
func (*FieldSel) isSelectorExpr()      {}
func (*ElementSel) isSelectorExpr()    {}
func (*ArithSel) isSelectorExpr()      {}
func (*NegSel) isSelectorExpr()        {}

// Operator is a relation operator.
type Operator uint8

const (
	OpEq Operator = iota + 1
	OpLt
	OpLte
	OpGt
	OpGte
	OpNeq
	OpIn
	OpContains
	OpContainsKey
	OpLike
	OpIsNot // IS NOT NULL (Value is a LitNull literal)
	// NOT IN, NOT CONTAINS and NOT CONTAINS KEY are Cassandra 5.1 syntax:
	// the parser never produces them (5.0 answers a syntax error).
	OpNotIn
	OpNotContains
	OpNotContainsKey
)

var operatorText = [...]string{
	OpEq: "=", OpLt: "<", OpLte: "<=", OpGt: ">", OpGte: ">=", OpNeq: "!=", OpIn: "IN",
	OpContains: "CONTAINS", OpContainsKey: "CONTAINS KEY", OpLike: "LIKE", OpIsNot: "IS NOT",
	OpNotIn: "NOT IN", OpNotContains: "NOT CONTAINS", OpNotContainsKey: "NOT CONTAINS KEY",
}

func (o Operator) String() string {
	if int(o) < len(operatorText) && operatorText[o] != "" {
		return operatorText[o]
	}
	return "?"
}

// Relation is one WHERE conjunct.
//
//   - single column:  Columns = [c], e.g. c = 1, c IN (1, 2), c IN ?, c CONTAINS 3
//   - element:        Columns = [m], MapKey set: m['k'] = 1
//   - multi-column:   Columns = [a, b], Tuple true: (a, b) > (1, 2), (a, b) IN ((1,2),(3,4)), (a,b) IN ?
//   - token:          Columns = [a, b], Token true: token(a, b) > 5
//   - custom index expression (Parser.g's customIndexExpression):
//     Index set, Columns nil, Value the expression: expr(idx, 'query')
//
// For IN, InValues holds the listed terms; when the whole list is a single
// marker (c IN ?), InMarker is set instead. For the other operators Value is
// the right-hand side (a TupleLiteral or marker for multi-column relations).
type Relation struct {
	Columns  []string
	Tuple    bool
	Token    bool
	MapKey   Term
	Op       Operator
	Value    Term
	InValues []Term
	InMarker *BindMarker
	// Index names the index of a custom index expression (nil otherwise).
	Index *QualifiedName
}

// Ordering is one ORDER BY item. Column is set for ordinary ordering; ANN
// ordering (ORDER BY v ANN OF [..]) sets Ann.
type Ordering struct {
	Column string
	Desc   bool
	Ann    Term
}

// Condition is one IF condition of a conditional update or delete.
// Element/Field address m[k] or u.f on the left-hand side.
type Condition struct {
	Column   string
	Element  Term
	Field    string
	Op       Operator
	Value    Term
	InValues []Term
	InMarker *BindMarker
}

// UsingClause holds USING TTL / TIMESTAMP values (nil when absent).
type UsingClause struct {
	TTL       Term
	Timestamp Term
}

// ---------------------------------------------------------------------------
// Statements

// Select is a SELECT statement.
type Select struct {
	Json              bool
	Distinct          bool
	Star              bool // SELECT * (Selectors empty)
	Selectors         []Selector
	Table             QualifiedName
	Where             []Relation
	GroupBy           []SelectorExpr
	OrderBy           []Ordering
	PerPartitionLimit Term
	Limit             Term
	AllowFiltering    bool
}

// Insert is INSERT INTO ... (cols) VALUES (...) or INSERT INTO ... JSON '...'.
type Insert struct {
	Table       QualifiedName
	Columns     []string
	Values      []Term
	Json        Term   // non-nil for INSERT JSON
	JsonDefault string // "", "null" or "unset" (DEFAULT NULL / DEFAULT UNSET)
	IfNotExists bool
	Using       UsingClause
}

// Assignment is one SET item of an UPDATE.
//
//   - c = v                      Op '=', Value v
//   - c = c + v / c = c - v      Op '+'/'-', Value v (counters, collection add/remove)
//   - c = v + c                  Op 'p' (prepend), Value v
//   - c += v / c -= v            same as c = c + v / c = c - v
//   - m[k] = v / l[i] = v        Element k, Op '='
//   - u.f = v                    Field f, Op '='
type Assignment struct {
	Column  string
	Element Term
	Field   string
	Op      byte
	Value   Term
}

// Update is an UPDATE statement.
type Update struct {
	Table      QualifiedName
	Using      UsingClause
	Set        []Assignment
	Where      []Relation
	IfExists   bool
	Conditions []Condition
}

// DeleteTarget is one item of DELETE's column list: c, c[k] or c.f.
type DeleteTarget struct {
	Column  string
	Element Term
	Field   string
}

// Delete is a DELETE statement.
type Delete struct {
	Targets    []DeleteTarget // empty: delete the whole row(s)
	Table      QualifiedName
	Using      UsingClause // only Timestamp is valid
	Where      []Relation
	IfExists   bool
	Conditions []Condition
}

// BatchType is LOGGED (default), UNLOGGED or COUNTER.
type BatchType uint8

const (
	LoggedBatch BatchType = iota
	UnloggedBatch
	CounterBatch
)

// Batch is BEGIN ... BATCH ... APPLY BATCH. Statements are *Insert, *Update
// or *Delete.
type Batch struct {
	Type       BatchType
	Using      UsingClause
	Statements []Statement
}

// Use is USE keyspace.
type Use struct{ Keyspace string }

// CreateKeyspace is CREATE KEYSPACE.
type CreateKeyspace struct {
	Name        string
	IfNotExists bool
	Properties  []Property
}

// AlterKeyspace is ALTER KEYSPACE.
type AlterKeyspace struct {
	Name       string
	IfExists   bool
	Properties []Property
}

// DropKeyspace is DROP KEYSPACE.
type DropKeyspace struct {
	Name     string
	IfExists bool
}

// ColumnDef is one column definition of CREATE TABLE.
type ColumnDef struct {
	Name       string
	Type       TypeExpr
	Static     bool
	PrimaryKey bool        // inline "c type PRIMARY KEY"
	Mask       *ColumnMask // MASKED WITH ..., or nil
}

// ClusteringOrder is one item of WITH CLUSTERING ORDER BY (...).
type ClusteringOrder struct {
	Column string
	Desc   bool
}

// CreateTable is CREATE TABLE (CREATE COLUMNFAMILY).
type CreateTable struct {
	Name            QualifiedName
	IfNotExists     bool
	Columns         []ColumnDef
	PartitionKey    []string // from PRIMARY KEY (...) or the inline PRIMARY KEY column
	Clustering      []string
	ClusteringOrder []ClusteringOrder
	CompactStorage  bool
	Properties      []Property
}

// DropTable is DROP TABLE.
type DropTable struct {
	Name     QualifiedName
	IfExists bool
}

// Truncate is TRUNCATE [TABLE] name.
type Truncate struct{ Name QualifiedName }

func (*Select) isStatement()         {}
func (*Insert) isStatement()         {}
func (*Update) isStatement()         {}
func (*Delete) isStatement()         {}
func (*Batch) isStatement()          {}
func (*Use) isStatement()            {}
func (*CreateKeyspace) isStatement() {}
func (*AlterKeyspace) isStatement()  {}
func (*DropKeyspace) isStatement()   {}
func (*CreateTable) isStatement()    {}
func (*DropTable) isStatement()      {}
func (*Truncate) isStatement()       {}
