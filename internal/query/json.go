package query

import (
	"bytes"
	"sync"
	"time"

	"github.com/cqld/cqld/internal/cql"
	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/types"
)

// fromJson() and INSERT JSON. The JSON-to-value conversion is Cassandra's
// AbstractType.fromJSONObject, implemented once in types.FromJSON.

// name is from_json or its pre-5.0 name fromjson (FromJsonFct registers
// both), which messages and the failure's function name follow.
func (c *compiled) compileFromJSON(name string, f *cql.FunctionCall, recv ColumnSpec, now func() time.Time) (termFn, error) {
	if len(f.Args) != 1 {
		return nil, cqlerr.Invalidf("Invalid number of arguments for function system.%s(text)", name) // FunctionFactory
	}
	arg, err := c.compileTerm(f.Args[0], ColumnSpec{Keyspace: recv.Keyspace, Table: recv.Table,
		Name: "arg0(system." + name + ")", Type: types.TextType}, now)
	if err != nil {
		return nil, err
	}
	typ := recv.Type
	return func(vals []Value) ([]byte, bool, error) {
		b, unset, err := arg(vals)
		if err != nil || unset || b == nil {
			return nil, unset, err
		}
		v, err := types.DecodeJSON(b)
		if err != nil {
			return nil, false, fromJSONFailure(name, "Could not decode JSON string '%s': %s", b, err)
		}
		out, err := types.FromJSON(typ, v)
		if err != nil {
			return nil, false, fromJSONFailure(name, "%s", cqlerr.As(err).Message)
		}
		return out, false, nil
	}, nil
}

func fromJSONFailure(name, format string, args ...any) error {
	e := cqlerr.New(cqlerr.FunctionFailure, "execution of 'system."+name+"[text]' failed: "+format, args...)
	e.Keyspace, e.Table = "system", name
	return e
}

// jsonRow is an INSERT JSON document converted to column values.
type jsonRow struct {
	vals    map[string][]byte // present columns (nil value: explicit null)
	err     error
	present map[string]bool
}

// jsonInsert parses the JSON of one INSERT JSON statement. A bound JSON
// value is parsed once per execution: every column's term asks for it, so
// the last document is cached by its text.
type jsonInsert struct {
	table *schema.Table
	arg   termFn
	// unwritable columns cannot be written yet; giving them a value fails.
	unwritable map[string]error

	mu      sync.Mutex
	lastDoc []byte
	last    *jsonRow
}

func (j *jsonInsert) row(vals []Value) (*jsonRow, error) {
	b, unset, err := j.arg(vals)
	if err != nil {
		return nil, err
	}
	if b == nil && !unset {
		return nil, cqlerr.Invalidf("Got null for INSERT JSON values")
	}
	j.mu.Lock()
	if j.last != nil && bytes.Equal(j.lastDoc, b) {
		r := j.last
		j.mu.Unlock()
		return r, r.err
	}
	j.mu.Unlock()
	r := j.parse(b)
	j.mu.Lock()
	j.lastDoc, j.last = append([]byte(nil), b...), r
	j.mu.Unlock()
	return r, r.err
}

func (j *jsonInsert) parse(doc []byte) *jsonRow {
	r := &jsonRow{vals: map[string][]byte{}, present: map[string]bool{}}
	v, err := types.DecodeJSON(doc)
	if err == nil && v == nil {
		r.err = cqlerr.Invalidf("Got null for INSERT JSON values")
		return r
	}
	obj, ok := v.(*types.JSONObject)
	if err != nil || !ok {
		msg := "Cannot deserialize value of type `java.util.LinkedHashMap<java.lang.Object,java.lang.Object>`"
		if err != nil {
			msg = err.Error()
		} else {
			msg += " from " + types.JavaClassName(v) + " value"
		}
		r.err = cqlerr.Invalidf("Could not decode JSON string as a map: %s. (String was: %s)", msg, doc)
		return r
	}
	obj = types.HandleCaseSensitivity(obj)
	for _, col := range j.table.Columns {
		e, ok := obj.Values[col.Name]
		if !ok {
			continue
		}
		r.present[col.Name] = true
		if e == nil {
			r.vals[col.Name] = nil
			continue
		}
		if werr := j.unwritable[col.Name]; werr != nil {
			r.err = werr
			return r
		}
		b, err := types.FromJSON(col.Type, e)
		if err != nil {
			r.err = cqlerr.Invalidf("Error decoding JSON value for %s: %s", col.Name, cqlerr.As(err).Message)
			return r
		}
		r.vals[col.Name] = b
	}
	for _, k := range obj.Keys {
		if j.table.Column(k) == nil {
			r.err = cqlerr.Invalidf("JSON values map contains unrecognized column: %s", k)
			return r
		}
	}
	return r
}

// column returns the term of one column: its JSON value, or null (DEFAULT
// NULL) / unset (DEFAULT UNSET) when the document omits it.
func (j *jsonInsert) column(name string, defaultUnset bool) termFn {
	return func(vals []Value) ([]byte, bool, error) {
		r, err := j.row(vals)
		if err != nil {
			return nil, false, err
		}
		if !r.present[name] {
			return nil, defaultUnset, nil
		}
		return r.vals[name], false, nil
	}
}

// compileInsertJSON compiles INSERT INTO t JSON '...' | ? [DEFAULT NULL |
// DEFAULT UNSET], as Cassandra's UpdateStatement.ParsedInsertJson: every
// column of the table gets the document's value; key columns become
// equality restrictions (a missing one fails as a null key would).
func (e *Executor) compileInsertJSON(c *compiled, t *schema.Table, st *cql.Insert) error {
	if t.IsCounter {
		return cqlerr.Invalidf("INSERT statements are not allowed on counter tables, use UPDATE instead")
	}
	arg, err := c.compileTerm(st.Json, ColumnSpec{Keyspace: t.Keyspace, Table: t.Name, Name: "[json]", Type: types.TextType}, e.now)
	if err != nil {
		return err
	}
	j := &jsonInsert{table: t, arg: arg, unwritable: map[string]error{}}
	defaultUnset := st.JsonDefault == "unset"
	p := &modifyPlan{table: t, insert: true, pk: make([]*keyVals, len(t.PartitionKey)), ck: make([]*keyVals, len(t.Clustering))}
	if err := c.compileUsing(p, st.Using, e.now); err != nil {
		return err
	}
	for _, col := range t.Columns {
		f := j.column(col.Name, defaultUnset)
		switch col.Kind {
		case schema.PartitionKey:
			p.pk[col.Position] = &keyVals{fns: []termFn{f}}
		case schema.Clustering:
			p.ck[col.Position] = &keyVals{fns: []termFn{f}}
		default:
			if err := checkWritable(col); err != nil {
				j.unwritable[col.Name] = err
				continue
			}
			p.ops = append(p.ops, columnOp{col: col, kind: opSet, value: f})
		}
	}
	if st.IfNotExists {
		if err := checkConditional(t, p, st.Using, "updates"); err != nil {
			return err
		}
		p.cas = &casSpec{ifNotExists: true}
	}
	c.modify = p
	c.pkIndexes = nil
	return nil
}
