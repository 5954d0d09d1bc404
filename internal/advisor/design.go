package advisor

import (
	"fmt"
	"os"
	"strings"

	"gopkg.in/yaml.v3"
)

// Model is a conceptual model with its access patterns (seed 002's and seed
// 004's method: entities, relationships, then one table per query).
type Model struct {
	Entities      map[string]Entity `yaml:"entities"`
	Relationships []Relationship    `yaml:"relationships"`
	Queries       []ModelQuery      `yaml:"queries"`
}

// Entity is a conceptual entity: its key attributes and attribute types.
type Entity struct {
	Key        []string          `yaml:"key"`
	Attributes map[string]string `yaml:"attributes"`
}

// Relationship links two entities.
type Relationship struct {
	Name        string `yaml:"name"`
	From        string `yaml:"from"`
	To          string `yaml:"to"`
	Cardinality string `yaml:"cardinality"`
}

// ModelQuery is one access pattern. Attributes are written entity.attr.
type ModelQuery struct {
	Name        string         `yaml:"name"`
	Description string         `yaml:"description"`
	Entity      string         `yaml:"entity"`
	Given       []string       `yaml:"given"`
	Range       []string       `yaml:"range"`
	Order       []OrderingSpec `yaml:"order"`
	Returns     []string       `yaml:"returns"`
	Bucket      string         `yaml:"bucket"` // optional: day or hour; added automatically for time ranges
}

// OrderingSpec is one ORDER of a query.
type OrderingSpec struct {
	Attribute string `yaml:"attribute"`
	Direction string `yaml:"direction"`
}

// LoadModel reads a model YAML file.
func LoadModel(path string) (*Model, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseModel(b)
}

// ParseModel decodes model YAML (unknown keys are errors).
func ParseModel(b []byte) (*Model, error) {
	var m Model
	dec := yaml.NewDecoder(bytesReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	return &m, m.validate()
}

func (m *Model) validate() error {
	for name, e := range m.Entities {
		if len(e.Key) == 0 {
			return fmt.Errorf("model: entity %s has no key", name)
		}
		for _, k := range e.Key {
			if _, ok := e.Attributes[k]; !ok {
				return fmt.Errorf("model: key %s of entity %s is not one of its attributes", k, name)
			}
		}
	}
	for i, q := range m.Queries {
		if q.Name == "" {
			m.Queries[i].Name = fmt.Sprintf("Q%d", i+1)
		}
		if _, ok := m.Entities[q.Entity]; !ok {
			return fmt.Errorf("model: query %s: unknown entity %q", m.Queries[i].Name, q.Entity)
		}
		all := append(append(append([]string(nil), q.Given...), q.Range...), q.Returns...)
		for _, o := range q.Order {
			all = append(all, o.Attribute)
		}
		for _, a := range all {
			if _, _, err := m.attribute(a); err != nil {
				return fmt.Errorf("model: query %s: %w", m.Queries[i].Name, err)
			}
		}
	}
	return nil
}

// attribute resolves "entity.attr" to its entity, name and type.
func (m *Model) attribute(ref string) (entity, attr string, err error) {
	e, a, ok := strings.Cut(ref, ".")
	if !ok {
		return "", "", fmt.Errorf("attribute %q must be written entity.attribute", ref)
	}
	ent, ok := m.Entities[e]
	if !ok {
		return "", "", fmt.Errorf("unknown entity %q in %q", e, ref)
	}
	if _, ok := ent.Attributes[a]; !ok {
		return "", "", fmt.Errorf("entity %s has no attribute %q", e, a)
	}
	return e, a, nil
}

// DesignColumn is one column of a generated table.
type DesignColumn struct {
	Name   string
	Type   string
	Mark   string // K, C↑, C↓, S or ""
	Origin string // entity.attribute
}

// DesignTable is one generated table, answering one query.
type DesignTable struct {
	Name    string
	Query   ModelQuery
	Columns []DesignColumn
	// Statement is the CQL SELECT the query becomes.
	Statement string
}

// plural is the simple English plural used in table names.
func plural(s string) string {
	switch {
	case strings.HasSuffix(s, "y") && len(s) > 1 && !strings.ContainsAny(s[len(s)-2:len(s)-1], "aeiou"):
		return s[:len(s)-1] + "ies"
	case strings.HasSuffix(s, "s") || strings.HasSuffix(s, "x") || strings.HasSuffix(s, "ch") || strings.HasSuffix(s, "sh"):
		return s + "es"
	}
	return s + "s"
}

// Design generates one table per query.
func Design(m *Model) []DesignTable {
	var out []DesignTable
	used := map[string]int{}
	for _, q := range m.Queries {
		t := designTable(m, q)
		if n := used[t.Name]; n > 0 {
			t.Name = fmt.Sprintf("%s_%d", t.Name, n+1)
		}
		used[t.Name]++
		out = append(out, t)
	}
	return out
}

func isTimeType(typ string) bool {
	return typ == "timestamp" || typ == "timeuuid"
}

func designTable(m *Model, q ModelQuery) DesignTable {
	ent := m.Entities[q.Entity]
	t := DesignTable{Query: q}
	seen := map[string]bool{}
	add := func(ref, mark string) {
		e, a, _ := m.attribute(ref)
		if seen[a] {
			return
		}
		seen[a] = true
		t.Columns = append(t.Columns, DesignColumn{Name: a, Type: m.Entities[e].Attributes[a], Mark: mark, Origin: e + "." + a})
	}
	// Name: <entities>_by_<given and range attributes>.
	var by []string
	ownKeyOnly := len(q.Given) > 0
	for _, g := range append(append([]string(nil), q.Given...), q.Range...) {
		e, a, _ := m.attribute(g)
		part := a
		if e != q.Entity {
			part = e
		} else if !contains(ent.Key, a) {
			ownKeyOnly = false
		}
		if e != q.Entity {
			ownKeyOnly = false
		}
		if !contains(by, part) {
			by = append(by, part)
		}
	}
	t.Name = plural(q.Entity)
	if !(ownKeyOnly && len(q.Range) == 0) && len(by) > 0 {
		t.Name += "_by_" + strings.Join(by, "_")
	}
	// Partition key: the equality attributes.
	for _, g := range q.Given {
		add(g, "K")
	}
	// A time range would make partitions grow forever: add a bucket.
	bucket := q.Bucket
	for _, r := range q.Range {
		e, a, _ := m.attribute(r)
		if bucket == "" && isTimeType(m.Entities[e].Attributes[a]) {
			bucket = "day"
		}
		if bucket != "" && isTimeType(m.Entities[e].Attributes[a]) {
			name := a + "_" + bucket
			if !seen[name] {
				seen[name] = true
				t.Columns = append(t.Columns, DesignColumn{Name: name, Type: "date", Mark: "K", Origin: "bucket of " + e + "." + a})
				if bucket == "hour" {
					t.Columns[len(t.Columns)-1].Type = "timestamp"
				}
			}
			break
		}
	}
	// Clustering: range attributes, then ordering, then the entity key for
	// uniqueness.
	dir := map[string]string{}
	for _, o := range q.Order {
		dir[o.Attribute] = strings.ToLower(o.Direction)
	}
	mark := func(ref string) string {
		if dir[ref] == "desc" {
			return "C↓"
		}
		return "C↑"
	}
	for _, r := range q.Range {
		add(r, mark(r))
	}
	for _, o := range q.Order {
		add(o.Attribute, mark(o.Attribute))
	}
	for _, k := range ent.Key {
		ref := q.Entity + "." + k
		add(ref, mark(ref))
	}
	// Everything else returned: static when it belongs to the entity the
	// partition key identifies (fixed per partition), regular otherwise.
	keyEntity := ""
	for _, g := range q.Given {
		e, a, _ := m.attribute(g)
		if e != q.Entity && contains(m.Entities[e].Key, a) {
			keyEntity = e
		}
	}
	hasClustering := false
	for _, c := range t.Columns {
		if strings.HasPrefix(c.Mark, "C") {
			hasClustering = true
		}
	}
	for _, r := range q.Returns {
		e, _, _ := m.attribute(r)
		if e == keyEntity && hasClustering {
			add(r, "S")
		} else {
			add(r, "")
		}
	}
	t.Statement = selectFor(m, t)
	return t
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func selectFor(m *Model, t DesignTable) string {
	var where []string
	for _, c := range t.Columns {
		if c.Mark == "K" {
			where = append(where, c.Name+" = ?")
		}
	}
	for _, r := range t.Query.Range {
		_, a, _ := m.attribute(r)
		where = append(where, a+" >= ?", a+" < ?")
	}
	return fmt.Sprintf("SELECT * FROM %s WHERE %s", t.Name, strings.Join(where, " AND "))
}

// DDL renders the generated tables as CQL.
func DDL(keyspace string, tables []DesignTable) string {
	var b strings.Builder
	if keyspace != "" {
		fmt.Fprintf(&b, "CREATE KEYSPACE IF NOT EXISTS %s WITH replication = {'class': 'NetworkTopologyStrategy', 'datacenter1': 3};\n\n", keyspace)
	}
	for _, t := range tables {
		name := t.Name
		if keyspace != "" {
			name = keyspace + "." + t.Name
		}
		q := t.Query
		comment := q.Name
		if q.Description != "" {
			comment += ": " + q.Description
		}
		fmt.Fprintf(&b, "-- %s\nCREATE TABLE %s (\n", comment, name)
		var pk, ck, order []string
		for _, c := range t.Columns {
			static := ""
			if c.Mark == "S" {
				static = " STATIC"
			}
			fmt.Fprintf(&b, "    %s %s%s,\n", c.Name, c.Type, static)
			switch c.Mark {
			case "K":
				pk = append(pk, c.Name)
			case "C↑":
				ck = append(ck, c.Name)
				order = append(order, c.Name+" ASC")
			case "C↓":
				ck = append(ck, c.Name)
				order = append(order, c.Name+" DESC")
			}
		}
		key := "(" + strings.Join(pk, ", ") + ")"
		if len(ck) > 0 {
			key += ", " + strings.Join(ck, ", ")
		}
		fmt.Fprintf(&b, "    PRIMARY KEY (%s)\n)", key)
		hasDesc := false
		for _, o := range order {
			hasDesc = hasDesc || strings.HasSuffix(o, "DESC")
		}
		if hasDesc {
			fmt.Fprintf(&b, " WITH CLUSTERING ORDER BY (%s)", strings.Join(order, ", "))
		}
		b.WriteString(";\n\n")
	}
	return b.String()
}
