package ceiling

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/query"
	"github.com/cqld/cqld/internal/types"
)

// stmtKind is what a parsed statement does.
type stmtKind int

const (
	stmtSystem stmtKind = iota // a SELECT from system or system_schema tables
	stmtCreateKeyspace
	stmtCreateTable
	stmtUse
	stmtInsert
	stmtUpdate
	stmtSelect
)

// stmt is a parsed statement. Bound values are consumed in statement order:
// bound[i] is the role of the i-th marker.
type stmt struct {
	kind stmtKind
	text string
	ks   string // keyspace of the statement (CREATE KEYSPACE, USE, tables)
	name string // table name

	// CREATE TABLE
	def         *tableDef
	ifNotExists bool

	// DML on tab.
	tab   *table
	bound []boundRef
	// SELECT
	proj  []int // projected column indexes
	limit int   // 0: none
	// cols are the projected columns of a prepared SELECT: one slice for
	// every execution, so that the transport's cache of v5 result
	// metadata ids (keyed by the slice) hits instead of hashing the
	// columns with MD5 for every response (5% of the ceiling's CPU).
	cols []query.ColumnSpec
}

// boundRef says what a bound value is for: a column value (INSERT/UPDATE
// SET, or = in WHERE), or the clustering bound of a slice.
type boundRef struct {
	col   int
	slice string // "", ">", ">=", "<", "<="
}

var (
	reCreateKS    = regexp.MustCompile(`(?is)^\s*create\s+keyspace\s+(if\s+not\s+exists\s+)?"?(\w+)"?`)
	reCreateTable = regexp.MustCompile(`(?is)^\s*create\s+(?:table|columnfamily)\s+(if\s+not\s+exists\s+)?([\w."]+)\s*\((.*)\)\s*(?:with\s.*)?;?\s*$`)
	reUse         = regexp.MustCompile(`(?is)^\s*use\s+"?(\w+)"?\s*;?\s*$`)
	reInsert      = regexp.MustCompile(`(?is)^\s*insert\s+into\s+([\w."]+)\s*\(([^)]*)\)\s*values\s*\(([^)]*)\)\s*;?\s*$`)
	reUpdate      = regexp.MustCompile(`(?is)^\s*update\s+([\w."]+)\s+set\s+(.*?)\s+where\s+(.*?)\s*;?\s*$`)
	reSelect      = regexp.MustCompile(`(?is)^\s*select\s+(.*?)\s+from\s+([\w."]+)(?:\s+where\s+(.*?))?(?:\s+limit\s+(\d+))?\s*;?\s*$`)
	reRestriction = regexp.MustCompile(`(?is)^\s*"?(\w+)"?\s*(=|>=|<=|>|<)\s*\?\s*$`)
	reAnd         = regexp.MustCompile(`(?i)\s+and\s+`)
)

func unsupported(cql string) error {
	return cqlerr.Invalidf("the benchmark ceiling server does not understand: %s", cql)
}

// splitName splits "ks.t" (or "t", resolved against the session keyspace).
func splitName(name, sessKS string) (ks, t string) {
	name = strings.ReplaceAll(name, `"`, "")
	if k, t, ok := strings.Cut(name, "."); ok {
		return strings.ToLower(k), strings.ToLower(t)
	}
	return sessKS, strings.ToLower(name)
}

func isSystemKeyspace(ks string) bool {
	return ks == "system" || strings.HasPrefix(ks, "system_")
}

// parse parses cql against the current schema.
func (h *handler) parse(cql, sessKS string) (*stmt, error) {
	if m := reSelect.FindStringSubmatch(cql); m != nil {
		ks, name := splitName(m[2], sessKS)
		if isSystemKeyspace(ks) {
			return &stmt{kind: stmtSystem, text: cql, ks: ks, name: name}, nil
		}
		tab, err := h.table(ks, name)
		if err != nil {
			return nil, err
		}
		s := &stmt{kind: stmtSelect, text: cql, ks: ks, name: name, tab: tab}
		if strings.TrimSpace(m[1]) == "*" {
			for i := range tab.cols {
				s.proj = append(s.proj, i)
			}
		} else {
			for _, c := range strings.Split(m[1], ",") {
				i, err := tab.column(c)
				if err != nil {
					return nil, err
				}
				s.proj = append(s.proj, i)
			}
		}
		if m[4] != "" {
			s.limit, _ = strconv.Atoi(m[4])
		}
		if m[3] == "" {
			return nil, unsupported(cql)
		}
		for _, r := range reAnd.Split(m[3], -1) {
			rm := reRestriction.FindStringSubmatch(r)
			if rm == nil {
				return nil, unsupported(cql)
			}
			i, err := tab.column(rm[1])
			if err != nil {
				return nil, err
			}
			ref := boundRef{col: i}
			if rm[2] != "=" {
				ref.slice = rm[2]
			}
			s.bound = append(s.bound, ref)
		}
		return s, s.checkKey(true)
	}
	if m := reInsert.FindStringSubmatch(cql); m != nil {
		ks, name := splitName(m[1], sessKS)
		tab, err := h.table(ks, name)
		if err != nil {
			return nil, err
		}
		s := &stmt{kind: stmtInsert, text: cql, ks: ks, name: name, tab: tab}
		cols := strings.Split(m[2], ",")
		vals := strings.Split(m[3], ",")
		if len(cols) != len(vals) {
			return nil, cqlerr.Invalidf("Unmatched column names/values")
		}
		for i, c := range cols {
			if strings.TrimSpace(vals[i]) != "?" {
				return nil, unsupported(cql)
			}
			ci, err := tab.column(c)
			if err != nil {
				return nil, err
			}
			s.bound = append(s.bound, boundRef{col: ci})
		}
		return s, s.checkKey(false)
	}
	if m := reUpdate.FindStringSubmatch(cql); m != nil {
		ks, name := splitName(m[1], sessKS)
		tab, err := h.table(ks, name)
		if err != nil {
			return nil, err
		}
		s := &stmt{kind: stmtUpdate, text: cql, ks: ks, name: name, tab: tab}
		for _, part := range append(strings.Split(m[2], ","), reAnd.Split(m[3], -1)...) {
			rm := reRestriction.FindStringSubmatch(part)
			if rm == nil || rm[2] != "=" {
				return nil, unsupported(cql)
			}
			ci, err := tab.column(rm[1])
			if err != nil {
				return nil, err
			}
			s.bound = append(s.bound, boundRef{col: ci})
		}
		return s, s.checkKey(false)
	}
	if m := reCreateKS.FindStringSubmatch(cql); m != nil {
		return &stmt{kind: stmtCreateKeyspace, text: cql, ks: strings.ToLower(m[2]), ifNotExists: m[1] != ""}, nil
	}
	if m := reCreateTable.FindStringSubmatch(cql); m != nil {
		ks, name := splitName(m[2], sessKS)
		def, err := parseTableBody(m[3])
		if err != nil {
			return nil, err
		}
		return &stmt{kind: stmtCreateTable, text: cql, ks: ks, name: name, def: def, ifNotExists: m[1] != ""}, nil
	}
	if m := reUse.FindStringSubmatch(cql); m != nil {
		return &stmt{kind: stmtUse, text: cql, ks: strings.ToLower(m[1])}, nil
	}
	return nil, unsupported(cql)
}

// checkKey verifies that the statement binds the whole partition key with =
// (and, for writes, the whole clustering key).
func (s *stmt) checkKey(isSelect bool) error {
	have := map[int]bool{}
	for _, b := range s.bound {
		if b.slice == "" {
			have[b.col] = true
		}
	}
	need := s.tab.pk
	if !isSelect {
		need = append(append([]int{}, s.tab.pk...), s.tab.ck...)
	}
	for _, c := range need {
		if !have[c] {
			return cqlerr.Invalidf("the benchmark ceiling server needs %s bound with = in: %s", s.tab.cols[c].name, s.text)
		}
	}
	return nil
}

// tableDef is a parsed CREATE TABLE body.
type tableDef struct {
	cols   []column
	pk, ck []int
}

type column struct {
	name string
	typ  *types.Type
}

// parseTableBody parses "c type [PRIMARY KEY], ..., PRIMARY KEY ((p, q), c)".
// Only native types are accepted.
func parseTableBody(body string) (*tableDef, error) {
	def := &tableDef{}
	var pkSpec string
	for _, part := range splitTopLevel(body) {
		f := strings.Fields(part)
		if len(f) == 0 {
			continue
		}
		if strings.EqualFold(f[0], "primary") {
			_, spec, _ := strings.Cut(part, "(")
			pkSpec = "(" + spec
			continue
		}
		if len(f) < 2 {
			return nil, cqlerr.Syntaxf("bad column definition %q", part)
		}
		t := types.NativeByName[strings.ToLower(f[1])]
		if t == nil {
			return nil, cqlerr.Invalidf("the benchmark ceiling server supports native types only, not %s", f[1])
		}
		def.cols = append(def.cols, column{name: strings.ToLower(strings.Trim(f[0], `"`)), typ: t})
		if len(f) >= 4 && strings.EqualFold(f[2], "primary") {
			pkSpec = "(" + f[0] + ")"
		}
	}
	if pkSpec == "" {
		return nil, cqlerr.Invalidf("No PRIMARY KEY specifed (exactly one required)")
	}
	idx := func(name string) (int, error) {
		name = strings.ToLower(strings.Trim(strings.TrimSpace(name), `"`))
		for i, c := range def.cols {
			if c.name == name {
				return i, nil
			}
		}
		return 0, cqlerr.Invalidf("Unknown definition %s referenced in PRIMARY KEY", name)
	}
	inner := strings.TrimSpace(pkSpec)
	inner = strings.TrimSuffix(strings.TrimPrefix(inner, "("), ")")
	parts := splitTopLevel(inner)
	for i, p := range parts {
		p = strings.TrimSpace(p)
		if i == 0 && strings.HasPrefix(p, "(") {
			for _, q := range strings.Split(strings.Trim(p, "()"), ",") {
				c, err := idx(q)
				if err != nil {
					return nil, err
				}
				def.pk = append(def.pk, c)
			}
			continue
		}
		c, err := idx(p)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			def.pk = append(def.pk, c)
		} else {
			def.ck = append(def.ck, c)
		}
	}
	return def, nil
}

// splitTopLevel splits s at commas outside parentheses and angle brackets.
func splitTopLevel(s string) []string {
	var out []string
	depth, from := 0, 0
	for i, r := range s {
		switch r {
		case '(', '<':
			depth++
		case ')', '>':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[from:i])
				from = i + 1
			}
		}
	}
	return append(out, s[from:])
}

func (t *table) column(name string) (int, error) {
	name = strings.ToLower(strings.Trim(strings.TrimSpace(name), `"`))
	for i, c := range t.cols {
		if c.name == name {
			return i, nil
		}
	}
	return 0, cqlerr.Invalidf("Undefined column name %s in table %s.%s", name, t.ks, t.name)
}

func (h *handler) table(ks, name string) (*table, error) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	if ks == "" {
		return nil, cqlerr.Invalidf("No keyspace has been specified. USE a keyspace, or explicitly specify keyspace.tablename")
	}
	t := h.tables[ks+"."+name]
	if t == nil {
		return nil, cqlerr.Invalidf("table %s does not exist", name)
	}
	return t, nil
}
