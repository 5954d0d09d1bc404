package cql

import (
	"strings"
)

// This file prints the AST back as canonical CQL: upper-case keywords,
// identifiers quoted only where CQL requires it, one space between items.
// The output of Format parses back to an equivalent statement (the fuzz
// test checks that formatting is a fixed point).

// Format returns s as canonical CQL text, without a trailing ';'.
func Format(s Statement) string {
	var f formatter
	f.statement(s)
	return f.String()
}

// FormatTerm returns t as CQL, e.g. "[1, 2]", "now()", "(int)?".
func FormatTerm(t Term) string {
	var f formatter
	f.term(t)
	return f.String()
}

// FormatSelector returns e as CQL, e.g. "writetime(v)", "m['k']", "a + 1".
func FormatSelector(e SelectorExpr) string {
	var f formatter
	f.selector(e)
	return f.String()
}

// formatTerm is FormatTerm for messages; it never fails on nil.
func formatTerm(t Term) string {
	if t == nil {
		return "null"
	}
	return FormatTerm(t)
}

type formatter struct {
	strings.Builder
}

func (f *formatter) statement(s Statement) {
	switch s := s.(type) {
	case *Select:
		f.selectStmt(s)
	case *Insert:
		f.insert(s)
	case *Update:
		f.update(s)
	case *Delete:
		f.delete(s)
	case *Batch:
		f.WriteString("BEGIN ")
		switch s.Type {
		case UnloggedBatch:
			f.WriteString("UNLOGGED ")
		case CounterBatch:
			f.WriteString("COUNTER ")
		}
		f.WriteString("BATCH")
		f.using(s.Using)
		for _, st := range s.Statements {
			f.WriteByte(' ')
			f.statement(st)
			f.WriteByte(';')
		}
		f.WriteString(" APPLY BATCH")
	case *Use:
		f.WriteString("USE ")
		f.ident(s.Keyspace)
	case *CreateKeyspace:
		f.WriteString("CREATE KEYSPACE ")
		if s.IfNotExists {
			f.WriteString("IF NOT EXISTS ")
		}
		f.ident(s.Name)
		f.WriteString(" WITH ")
		f.properties(s.Properties)
	case *AlterKeyspace:
		f.WriteString("ALTER KEYSPACE ")
		if s.IfExists {
			f.WriteString("IF EXISTS ")
		}
		f.ident(s.Name)
		f.WriteString(" WITH ")
		f.properties(s.Properties)
	case *DropKeyspace:
		f.WriteString("DROP KEYSPACE ")
		if s.IfExists {
			f.WriteString("IF EXISTS ")
		}
		f.ident(s.Name)
	case *CreateTable:
		f.createTable(s)
	case *DropTable:
		f.WriteString("DROP TABLE ")
		if s.IfExists {
			f.WriteString("IF EXISTS ")
		}
		f.qname(s.Name)
	case *Truncate:
		f.WriteString("TRUNCATE ")
		f.qname(s.Name)
	case nil:
	default:
		if !f.schemaStatement(s) {
			panic("cql: Format of unknown statement type")
		}
	}
}

func (f *formatter) selectStmt(s *Select) {
	f.WriteString("SELECT ")
	if s.Json {
		f.WriteString("JSON ")
	}
	if s.Distinct {
		f.WriteString("DISTINCT ")
	}
	if s.Star {
		f.WriteByte('*')
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
	f.WriteString(" FROM ")
	f.qname(s.Table)
	f.where(s.Where)
	for i, g := range s.GroupBy {
		if i == 0 {
			f.WriteString(" GROUP BY ")
		} else {
			f.WriteString(", ")
		}
		f.selector(g)
	}
	for i, o := range s.OrderBy {
		if i == 0 {
			f.WriteString(" ORDER BY ")
		} else {
			f.WriteString(", ")
		}
		f.ident(o.Column)
		if o.Ann != nil {
			f.WriteString(" ANN OF ")
			f.term(o.Ann)
		}
		if o.Desc {
			f.WriteString(" DESC")
		}
	}
	if s.PerPartitionLimit != nil {
		f.WriteString(" PER PARTITION LIMIT ")
		f.term(s.PerPartitionLimit)
	}
	if s.Limit != nil {
		f.WriteString(" LIMIT ")
		f.term(s.Limit)
	}
	if s.AllowFiltering {
		f.WriteString(" ALLOW FILTERING")
	}
}

func (f *formatter) where(rels []Relation) {
	for i := range rels {
		if i == 0 {
			f.WriteString(" WHERE ")
		} else {
			f.WriteString(" AND ")
		}
		f.relation(&rels[i])
	}
}

func (f *formatter) relation(r *Relation) {
	if r.Index != nil {
		f.WriteString("expr(")
		f.qname(*r.Index)
		f.WriteString(", ")
		f.term(r.Value)
		f.WriteByte(')')
		return
	}
	switch {
	case r.Token:
		f.WriteString("token")
		f.identList(r.Columns)
	case r.Tuple:
		f.identList(r.Columns)
	case len(r.Columns) == 1:
		f.ident(r.Columns[0])
		if r.MapKey != nil {
			f.WriteByte('[')
			f.term(r.MapKey)
			f.WriteByte(']')
		}
	}
	f.WriteByte(' ')
	f.WriteString(r.Op.String())
	switch r.Op {
	case OpIsNot:
		f.WriteString(" NULL")
	case OpIn, OpNotIn:
		f.WriteByte(' ')
		f.inValues(r.InValues, r.InMarker)
	default:
		f.WriteByte(' ')
		f.term(r.Value)
	}
}

func (f *formatter) inValues(vals []Term, m *BindMarker) {
	if m != nil {
		f.term(m)
		return
	}
	f.WriteByte('(')
	for i, v := range vals {
		if i > 0 {
			f.WriteString(", ")
		}
		f.term(v)
	}
	f.WriteByte(')')
}

func (f *formatter) identList(ids []string) {
	f.WriteByte('(')
	for i, id := range ids {
		if i > 0 {
			f.WriteString(", ")
		}
		f.ident(id)
	}
	f.WriteByte(')')
}

func (f *formatter) using(u UsingClause) {
	if u.TTL == nil && u.Timestamp == nil {
		return
	}
	f.WriteString(" USING ")
	if u.TTL != nil {
		f.WriteString("TTL ")
		f.term(u.TTL)
		if u.Timestamp != nil {
			f.WriteString(" AND ")
		}
	}
	if u.Timestamp != nil {
		f.WriteString("TIMESTAMP ")
		f.term(u.Timestamp)
	}
}

func (f *formatter) insert(s *Insert) {
	f.WriteString("INSERT INTO ")
	f.qname(s.Table)
	if s.Json != nil {
		f.WriteString(" JSON ")
		f.term(s.Json)
		if s.JsonDefault != "" {
			f.WriteString(" DEFAULT ")
			f.WriteString(strings.ToUpper(s.JsonDefault))
		}
	} else {
		f.WriteByte(' ')
		f.identList(s.Columns)
		f.WriteString(" VALUES (")
		for i, v := range s.Values {
			if i > 0 {
				f.WriteString(", ")
			}
			f.term(v)
		}
		f.WriteByte(')')
	}
	if s.IfNotExists {
		f.WriteString(" IF NOT EXISTS")
	}
	f.using(s.Using)
}

func (f *formatter) update(s *Update) {
	f.WriteString("UPDATE ")
	f.qname(s.Table)
	f.using(s.Using)
	f.WriteString(" SET ")
	for i, a := range s.Set {
		if i > 0 {
			f.WriteString(", ")
		}
		f.ident(a.Column)
		switch {
		case a.Element != nil:
			f.WriteByte('[')
			f.term(a.Element)
			f.WriteString("] = ")
			f.term(a.Value)
		case a.Field != "":
			f.WriteByte('.')
			f.ident(a.Field)
			f.WriteString(" = ")
			f.term(a.Value)
		case a.Op == '+' || a.Op == '-':
			f.WriteString(" = ")
			f.ident(a.Column)
			f.WriteByte(' ')
			f.WriteByte(a.Op)
			f.WriteByte(' ')
			f.term(a.Value)
		case a.Op == 'p':
			f.WriteString(" = ")
			f.term(a.Value)
			f.WriteString(" + ")
			f.ident(a.Column)
		default:
			f.WriteString(" = ")
			f.term(a.Value)
		}
	}
	f.where(s.Where)
	f.ifClause(s.IfExists, s.Conditions)
}

func (f *formatter) ifClause(ifExists bool, conds []Condition) {
	if ifExists {
		f.WriteString(" IF EXISTS")
		return
	}
	for i, c := range conds {
		if i == 0 {
			f.WriteString(" IF ")
		} else {
			f.WriteString(" AND ")
		}
		f.ident(c.Column)
		if c.Element != nil {
			f.WriteByte('[')
			f.term(c.Element)
			f.WriteByte(']')
		}
		if c.Field != "" {
			f.WriteByte('.')
			f.ident(c.Field)
		}
		f.WriteByte(' ')
		f.WriteString(c.Op.String())
		f.WriteByte(' ')
		if c.Op == OpIn {
			f.inValues(c.InValues, c.InMarker)
		} else {
			f.term(c.Value)
		}
	}
}

func (f *formatter) delete(s *Delete) {
	f.WriteString("DELETE ")
	for i, t := range s.Targets {
		if i > 0 {
			f.WriteString(", ")
		}
		f.ident(t.Column)
		if t.Element != nil {
			f.WriteByte('[')
			f.term(t.Element)
			f.WriteByte(']')
		}
		if t.Field != "" {
			f.WriteByte('.')
			f.ident(t.Field)
		}
	}
	if len(s.Targets) > 0 {
		f.WriteByte(' ')
	}
	f.WriteString("FROM ")
	f.qname(s.Table)
	f.using(s.Using)
	f.where(s.Where)
	f.ifClause(s.IfExists, s.Conditions)
}

func (f *formatter) createTable(s *CreateTable) {
	f.WriteString("CREATE TABLE ")
	if s.IfNotExists {
		f.WriteString("IF NOT EXISTS ")
	}
	f.qname(s.Name)
	f.WriteString(" (")
	inlinePK := false
	for i, c := range s.Columns {
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
		if c.PrimaryKey {
			f.WriteString(" PRIMARY KEY")
			inlinePK = true
		}
	}
	if !inlinePK && len(s.PartitionKey) > 0 {
		if len(s.Columns) > 0 {
			f.WriteString(", ")
		}
		f.WriteString("PRIMARY KEY (")
		if len(s.PartitionKey) == 1 {
			f.ident(s.PartitionKey[0])
		} else {
			f.identList(s.PartitionKey)
		}
		for _, c := range s.Clustering {
			f.WriteString(", ")
			f.ident(c)
		}
		f.WriteByte(')')
	}
	f.WriteByte(')')
	sep := " WITH "
	if len(s.ClusteringOrder) > 0 {
		f.WriteString(sep)
		sep = " AND "
		f.WriteString("CLUSTERING ORDER BY (")
		for i, o := range s.ClusteringOrder {
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
	if s.CompactStorage {
		f.WriteString(sep)
		sep = " AND "
		f.WriteString("COMPACT STORAGE")
	}
	if len(s.Properties) > 0 {
		f.WriteString(sep)
		f.properties(s.Properties)
	}
}

func (f *formatter) properties(props []Property) {
	for i, p := range props {
		if i > 0 {
			f.WriteString(" AND ")
		}
		f.ident(p.Name)
		f.WriteString(" = ")
		f.term(p.Value)
	}
}

// ---------------------------------------------------------------------------
// Terms

// precedence of arithmetic operators: 1 for + and -, 2 for * / %.
func precedence(op byte) int {
	if op == '+' || op == '-' {
		return 1
	}
	return 2
}

func (f *formatter) term(t Term) {
	switch t := t.(type) {
	case *Literal:
		f.literal(t)
	case *BindMarker:
		if t.Name == "" {
			f.WriteByte('?')
		} else {
			f.WriteByte(':')
			f.ident(t.Name)
		}
	case *CollectionLiteral:
		switch t.Kind {
		case ListLiteral:
			f.WriteByte('[')
			f.terms(t.Elems)
			f.WriteByte(']')
		case SetLiteral:
			f.WriteByte('{')
			f.terms(t.Elems)
			f.WriteByte('}')
		default:
			f.WriteByte('{')
			for i := range t.Keys {
				if i > 0 {
					f.WriteString(", ")
				}
				f.term(t.Keys[i])
				f.WriteString(": ")
				if i < len(t.Values) {
					f.term(t.Values[i])
				}
			}
			f.WriteByte('}')
		}
	case *TupleLiteral:
		f.WriteByte('(')
		f.terms(t.Elems)
		f.WriteByte(')')
	case *UDTLiteral:
		f.WriteByte('{')
		for i, name := range t.Fields {
			if i > 0 {
				f.WriteString(", ")
			}
			f.ident(name)
			f.WriteString(": ")
			if i < len(t.Values) {
				f.term(t.Values[i])
			}
		}
		f.WriteByte('}')
	case *FunctionCall:
		f.functionName(t.Name)
		f.WriteByte('(')
		f.terms(t.Args)
		f.WriteByte(')')
	case *TypeHint:
		f.WriteByte('(')
		t.Type.format(&f.Builder)
		f.WriteByte(')')
		f.operand(t.Term, false)
	case *CastTerm:
		f.WriteString("CAST(")
		f.term(t.Term)
		f.WriteString(" AS ")
		t.Type.format(&f.Builder)
		f.WriteByte(')')
	case *Negation:
		f.WriteByte('-')
		f.operand(t.Term, true)
	case *BinaryOp:
		f.binary(t.Op, func(t Term) { f.term(t) }, t.Left, t.Right)
	case nil:
		f.WriteString("null")
	default:
		panic("cql: Format of unknown term type")
	}
}

// operand writes t where only a simple term may appear (after a unary
// minus or a type hint). After a minus, number-like literals are written
// after a space: "-" "-1" would print as a "--" comment and "-" "0x01"
// would lex as the number -0. Arithmetic and negations are not simple
// terms, so a parsed statement never has them here; written in
// parentheses they read back as a one-element tuple, which the executor
// takes as a group (the receiver of an operand is never a tuple).
func (f *formatter) operand(t Term, afterMinus bool) {
	switch t := t.(type) {
	case *BinaryOp, *Negation:
		f.WriteByte('(')
		f.term(t)
		f.WriteByte(')')
		return
	case *Literal:
		if afterMinus && numberLike(t) {
			f.WriteByte(' ')
		}
	}
	f.term(t)
}

// binary writes left op right, parenthesising operands that bind less
// tightly (or equally, on the right, as the operators are left-associative).
func (f *formatter) binary(op byte, write func(Term), l, r Term) {
	wrap := func(t Term, right bool) {
		b, ok := t.(*BinaryOp)
		if ok && (precedence(b.Op) < precedence(op) || right && precedence(b.Op) == precedence(op)) {
			f.WriteByte('(')
			write(t)
			f.WriteByte(')')
			return
		}
		write(t)
	}
	wrap(l, false)
	f.WriteByte(' ')
	f.WriteByte(op)
	f.WriteByte(' ')
	wrap(r, true)
}

func (f *formatter) terms(ts []Term) {
	for i, t := range ts {
		if i > 0 {
			f.WriteString(", ")
		}
		f.term(t)
	}
}

func (f *formatter) literal(l *Literal) {
	switch l.Kind {
	case LitString:
		writeQuotedString(&f.Builder, l.Text)
	case LitNull:
		f.WriteString("null")
	default:
		f.WriteString(l.Text)
	}
}

// ---------------------------------------------------------------------------
// Selectors

func (f *formatter) selector(e SelectorExpr) {
	switch e := e.(type) {
	case *ColumnSel:
		f.ident(e.Name)
	case *FunctionSel:
		switch {
		case e.Star:
			f.functionName(e.Name)
			f.WriteString("(*)")
			return
		case e.Name.Keyspace == "" && (e.Name.Name == "writetime" || e.Name.Name == "maxwritetime" || e.Name.Name == "ttl") &&
			len(e.Args) == 1 && isColumnPath(e.Args[0]):
			// The WRITETIME/MAXWRITETIME/TTL selector forms; a user function
			// with one of these names and other arguments is quoted below.
			f.WriteString(e.Name.Name)
		default:
			f.functionName(e.Name)
		}
		f.WriteByte('(')
		for i, a := range e.Args {
			if i > 0 {
				f.WriteString(", ")
			}
			f.selector(a)
		}
		f.WriteByte(')')
	case *CastSel:
		f.WriteString("CAST(")
		f.selector(e.Expr)
		f.WriteString(" AS ")
		e.Type.format(&f.Builder)
		f.WriteByte(')')
	case *HintSel:
		f.WriteByte('(')
		e.Type.format(&f.Builder)
		f.WriteByte(')')
		if HintNeedsParens(e.Expr) {
			f.WriteByte('(')
			f.selector(e.Expr)
			f.WriteByte(')')
		} else {
			f.selector(e.Expr)
		}
	case *TermSel:
		f.selectorTerm(e.Term)
	case *FieldSel:
		f.selectorOperand(e.Expr)
		f.WriteByte('.')
		f.ident(e.Field)
	case *ElementSel:
		f.selectorOperand(e.Expr)
		f.WriteByte('[')
		if e.Slice {
			if e.From != nil {
				f.term(e.From)
				f.WriteByte(' ')
			}
			f.WriteString("..")
			if e.To != nil {
				f.WriteByte(' ')
				f.term(e.To)
			}
		} else {
			f.term(e.Key)
		}
		f.WriteByte(']')
	case *ArithSel:
		wrap := func(s SelectorExpr, right bool) {
			a, ok := s.(*ArithSel)
			if ok && (precedence(a.Op) < precedence(e.Op) || right && precedence(a.Op) == precedence(e.Op)) {
				f.WriteByte('(')
				f.selector(s)
				f.WriteByte(')')
				return
			}
			f.selector(s)
		}
		wrap(e.Left, false)
		f.WriteByte(' ')
		f.WriteByte(e.Op)
		f.WriteByte(' ')
		wrap(e.Right, true)
	case *NegSel:
		f.WriteByte('-')
		inner := e.Expr
		parens := false
		switch x := inner.(type) {
		case *ArithSel, *NegSel:
			parens = true
		case *TermSel:
			l, ok := x.Term.(*Literal)
			parens = ok && numberLike(l)
		}
		if parens {
			f.WriteByte('(')
			f.selector(inner)
			f.WriteByte(')')
		} else {
			f.selectorOperand(inner)
		}
	case *CollectionSel:
		switch e.Kind {
		case ListLiteral:
			f.WriteByte('[')
			f.selectorList(e.Elems)
			f.WriteByte(']')
		case SetLiteral:
			f.WriteByte('{')
			f.selectorList(e.Elems)
			f.WriteByte('}')
		default:
			f.WriteByte('{')
			for i := range e.Keys {
				if i > 0 {
					f.WriteString(", ")
				}
				f.selector(e.Keys[i])
				f.WriteString(": ")
				if i < len(e.Values) {
					f.selector(e.Values[i])
				}
			}
			f.WriteByte('}')
		}
	case *TupleSel:
		f.WriteByte('(')
		f.selectorList(e.Elems)
		f.WriteByte(')')
	case nil:
	default:
		panic("cql: Format of unknown selector type")
	}
}

func (f *formatter) selectorList(es []SelectorExpr) {
	for i, e := range es {
		if i > 0 {
			f.WriteString(", ")
		}
		f.selector(e)
	}
}

// numberLike reports whether l is written starting with a digit or a
// minus sign.
func numberLike(l *Literal) bool {
	switch l.Kind {
	case LitInteger, LitFloat, LitDuration, LitUUID, LitHex:
		return true
	}
	return strings.HasPrefix(l.Text, "-")
}

// isColumnPath reports whether e is a column with optional field and
// element selections, the argument of WRITETIME and TTL.
func isColumnPath(e SelectorExpr) bool {
	for {
		switch x := e.(type) {
		case *ColumnSel:
			return true
		case *FieldSel:
			e = x.Expr
		case *ElementSel:
			e = x.Expr
		default:
			return false
		}
	}
}

// selectorTerm writes a term used as a selector. Arithmetic and negation
// of terms are written in parentheses, which parse back as the same term.
func (f *formatter) selectorTerm(t Term) {
	switch t := t.(type) {
	case *BinaryOp, *Negation, *CastTerm:
		f.WriteByte('(')
		f.term(t)
		f.WriteByte(')')
	case *Literal:
		if strings.HasPrefix(t.Text, "-") {
			f.WriteByte('(')
			f.term(t)
			f.WriteByte(')')
			return
		}
		f.term(t)
	default:
		f.term(t)
	}
}

// HintNeedsParens reports whether the selector a type hint applies to is
// written in parentheses: a hint binds tighter than an operator, a field
// or an element selection.
func HintNeedsParens(e SelectorExpr) bool {
	switch e.(type) {
	case *ArithSel, *NegSel, *FieldSel, *ElementSel:
		return true
	}
	return false
}

// selectorOperand writes the receiver of a field or element selection.
func (f *formatter) selectorOperand(e SelectorExpr) {
	switch e.(type) {
	case *ArithSel, *NegSel:
		f.WriteByte('(')
		f.selector(e)
		f.WriteByte(')')
	default:
		f.selector(e)
	}
}

// ---------------------------------------------------------------------------
// Names

func (f *formatter) ident(s string) { writeIdent(&f.Builder, s) }

func (f *formatter) qname(q QualifiedName) {
	if q.Keyspace != "" {
		f.ident(q.Keyspace)
		f.WriteByte('.')
	}
	f.ident(q.Name)
}

func (f *formatter) functionName(q QualifiedName) {
	if q.Keyspace != "" {
		f.ident(q.Keyspace)
		f.WriteByte('.')
	}
	if isPlainIdent(q.Name) {
		k, isKw := keywords[q.Name]
		if !isKw || k.isFunctionKeyword() || k == kwToken || k == kwCount {
			f.WriteString(q.Name)
			return
		}
	}
	writeQuotedIdent(&f.Builder, q.Name)
}

// isPlainIdent reports whether s is a lower-case IDENT that lexes as an
// identifier or keyword (not as a boolean or NaN/Infinity).
func isPlainIdent(s string) bool {
	if s == "" || !('a' <= s[0] && s[0] <= 'z') {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || isDigit(c) || c == '_') {
			return false
		}
	}
	switch s {
	case "true", "false", "nan", "infinity":
		return false
	}
	return true
}

// writeIdent writes a column, table or keyspace name, quoted unless it is
// a lower-case identifier that is not a reserved keyword.
func writeIdent(b *strings.Builder, s string) {
	if isPlainIdent(s) {
		if k, isKw := keywords[s]; !isKw || k.isUnreserved() {
			b.WriteString(s)
			return
		}
	}
	writeQuotedIdent(b, s)
}

func writeQuotedIdent(b *strings.Builder, s string) {
	b.WriteByte('"')
	b.WriteString(strings.ReplaceAll(s, `"`, `""`))
	b.WriteByte('"')
}

func writeQuotedString(b *strings.Builder, s string) {
	b.WriteByte('\'')
	b.WriteString(strings.ReplaceAll(s, `'`, `''`))
	b.WriteByte('\'')
}

var literalKindNames = [...]string{
	LitString: "string", LitInteger: "integer", LitFloat: "float", LitBool: "boolean",
	LitUUID: "uuid", LitHex: "hex", LitDuration: "duration", LitNull: "null",
}

func (k LiteralKind) String() string {
	if int(k) < len(literalKindNames) && literalKindNames[k] != "" {
		return literalKindNames[k]
	}
	return "?"
}

func (k CollectionKind) String() string {
	switch k {
	case ListLiteral:
		return "list"
	case SetLiteral:
		return "set"
	case MapLiteral:
		return "map"
	}
	return "?"
}

func (t BatchType) String() string {
	switch t {
	case LoggedBatch:
		return "LOGGED"
	case UnloggedBatch:
		return "UNLOGGED"
	case CounterBatch:
		return "COUNTER"
	}
	return "?"
}
