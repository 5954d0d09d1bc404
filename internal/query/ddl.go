package query

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/cqld/cqld/internal/cql"
	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/types"
	"github.com/google/uuid"
)

var validName = regexp.MustCompile(`^\w+$`)

// propertyString returns a constant property value as text.
func propertyString(p cql.Property) (string, error) {
	l, ok := p.Value.(*cql.Literal)
	if !ok || l.Kind == cql.LitNull {
		return "", cqlerr.Syntaxf("Invalid value for property '%s'. It should be a string", p.Name)
	}
	return l.Text, nil
}

// propertyMap returns a map property value with constant keys and values.
func propertyMap(p cql.Property) (map[string]string, error) {
	m, ok := p.Value.(*cql.CollectionLiteral)
	if !ok || (m.Kind != cql.MapLiteral && !(m.Kind == cql.SetLiteral && len(m.Elems) == 0)) {
		return nil, cqlerr.Syntaxf("Invalid value for property '%s'. It should be a map.", p.Name)
	}
	out := make(map[string]string, len(m.Keys))
	for i := range m.Keys {
		k, ok1 := m.Keys[i].(*cql.Literal)
		v, ok2 := m.Values[i].(*cql.Literal)
		if !ok1 || !ok2 {
			return nil, cqlerr.Syntaxf("Invalid value for property '%s'. It should be a map of constants.", p.Name)
		}
		out[k.Text] = v.Text
	}
	return out, nil
}

// replicationOptions validates a replication map and returns it as
// system_schema.keyspaces stores it.
func replicationOptions(ks string, in map[string]string) (map[string]string, error) {
	class, ok := in["class"]
	if !ok {
		return nil, cqlerr.ConfigErrorf("Missing replication strategy class")
	}
	full := class
	if !strings.Contains(class, ".") {
		full = "org.apache.cassandra.locator." + class
	}
	out := map[string]string{"class": full}
	checkRF := func(key, v string) error {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return cqlerr.ConfigErrorf("Replication factor must be numeric; found %s", v)
		}
		if n < 0 {
			return cqlerr.ConfigErrorf("Replication factor must be non-negative; found %s", v)
		}
		return nil
	}
	switch full {
	case schema.SimpleStrategyClass:
		rf, ok := in["replication_factor"]
		if !ok {
			return nil, cqlerr.ConfigErrorf("SimpleStrategy requires a replication_factor strategy option.")
		}
		if err := checkRF("replication_factor", rf); err != nil {
			return nil, err
		}
		for k := range in {
			if k != "class" && k != "replication_factor" {
				return nil, cqlerr.ConfigErrorf("Unrecognized strategy option {%s} passed to SimpleStrategy for keyspace %s", k, ks)
			}
		}
		out["replication_factor"] = rf
	case schema.NetworkTopologyClass:
		for k, v := range in {
			if k == "class" {
				continue
			}
			if err := checkRF(k, v); err != nil {
				return nil, err
			}
			if k == "replication_factor" {
				// Cassandra 4.0+: a default for every known datacenter.
				if _, set := in["datacenter1"]; !set {
					out["datacenter1"] = v
				}
				continue
			}
			out[k] = v
		}
	case "org.apache.cassandra.locator.LocalStrategy", "org.apache.cassandra.locator.EverywhereStrategy":
		return nil, cqlerr.ConfigErrorf("Unable to use given strategy class: %s is reserved for internal use.", class)
	default:
		return nil, cqlerr.ConfigErrorf("Unable to find replication strategy class '%s'", full)
	}
	return out, nil
}

func keyspaceFromProperties(name string, props []cql.Property, old *schema.Keyspace) (*schema.Keyspace, error) {
	ks := &schema.Keyspace{Name: name, DurableWrites: true}
	if old != nil {
		ks.Replication, ks.DurableWrites = old.Replication, old.DurableWrites
	}
	for _, p := range props {
		switch p.Name {
		case "replication":
			m, err := propertyMap(p)
			if err != nil {
				return nil, err
			}
			r, err := replicationOptions(name, m)
			if err != nil {
				return nil, err
			}
			ks.Replication = r
		case "durable_writes":
			s, err := propertyString(p)
			if err != nil {
				return nil, err
			}
			b, err := strconv.ParseBool(strings.ToLower(s))
			if err != nil {
				return nil, cqlerr.Syntaxf("Invalid boolean value %s for 'durable_writes'", s)
			}
			ks.DurableWrites = b
		default:
			return nil, cqlerr.Syntaxf("Unknown property '%s'", p.Name)
		}
	}
	if ks.Replication == nil {
		return nil, cqlerr.ConfigErrorf("Missing mandatory option 'replication'")
	}
	return ks, nil
}

func (e *Executor) compileCreateKeyspace(c *compiled, st *cql.CreateKeyspace) error {
	if len(st.Name) > 48 || !validName.MatchString(st.Name) {
		return cqlerr.Invalidf("Keyspace name must not be empty, more than 48 characters long, or contain non-alphanumeric-underscore characters (got \"%s\")", st.Name)
	}
	ks, err := keyspaceFromProperties(st.Name, st.Properties, nil)
	if err != nil {
		return err
	}
	c.ddl = func(ctx context.Context, e *Executor) (*Result, error) {
		if schema.IsSystemKeyspace(st.Name) {
			return nil, cqlerr.KeyspaceExists(st.Name)
		}
		nks := *ks
		changed, err := e.cfg.Schema.CreateKeyspace(&nks, st.IfNotExists)
		if err != nil {
			return nil, err
		}
		if !changed {
			return &Result{Kind: VoidResult}, nil
		}
		return e.schemaChanged(&SchemaChange{Change: "CREATED", Target: "KEYSPACE", Keyspace: st.Name}), nil
	}
	return nil
}

func (e *Executor) compileAlterKeyspace(c *compiled, st *cql.AlterKeyspace) error {
	c.ddl = func(ctx context.Context, e *Executor) (*Result, error) {
		changed, err := e.cfg.Schema.AlterKeyspace(st.Name, st.IfExists, func(old *schema.Keyspace) (*schema.Keyspace, error) {
			return keyspaceFromProperties(st.Name, st.Properties, old)
		})
		if err != nil {
			return nil, err
		}
		if !changed {
			return &Result{Kind: VoidResult}, nil
		}
		return e.schemaChanged(&SchemaChange{Change: "UPDATED", Target: "KEYSPACE", Keyspace: st.Name}), nil
	}
	return nil
}

func (e *Executor) dropKeyspace(ctx context.Context, st *cql.DropKeyspace) (*Result, error) {
	ks, err := e.cfg.Schema.DropKeyspace(st.Name, st.IfExists)
	if err != nil {
		return nil, err
	}
	if ks == nil {
		return &Result{Kind: VoidResult}, nil
	}
	for _, t := range ks.Tables {
		if err := e.cfg.Coordinator.Truncate(ctx, t); err != nil {
			e.cfg.Logger.Warn("dropping data of dropped keyspace", "keyspace", ks.Name, "table", t.Name, "err", err)
		}
	}
	return e.schemaChanged(&SchemaChange{Change: "DROPPED", Target: "KEYSPACE", Keyspace: st.Name}), nil
}

// resolveType turns a written type into a types.Type.
func resolveType(te cql.TypeExpr, ks string) (*types.Type, error) {
	return resolveTypeFrozen(te, ks, false)
}

func resolveTypeFrozen(te cql.TypeExpr, ks string, frozen bool) (*types.Type, error) {
	if te.Custom != "" {
		return &types.Type{Kind: types.Custom, Class: te.Custom}, nil
	}
	name := strings.ToLower(te.Name)
	if t, ok := types.NativeByName[name]; ok && len(te.Params) == 0 && te.Keyspace == "" {
		return t, nil
	}
	params := func(n int, inner bool) ([]*types.Type, error) {
		if len(te.Params) != n && n >= 0 {
			return nil, cqlerr.Syntaxf("Invalid type %s: expected %d type parameters", name, n)
		}
		out := make([]*types.Type, len(te.Params))
		for i, p := range te.Params {
			t, err := resolveTypeFrozen(p, ks, inner)
			if err != nil {
				return nil, err
			}
			out[i] = t
		}
		return out, nil
	}
	switch name {
	case "frozen":
		ps, err := params(1, true)
		if err != nil {
			return nil, err
		}
		t := *ps[0]
		if !t.IsCollection() && t.Kind != types.UDT && t.Kind != types.Tuple {
			return nil, cqlerr.Invalidf("frozen<> is only allowed on collections, tuples, and user-defined types (got %s)", t.String())
		}
		t.Frozen = true
		return &t, nil
	case "list", "set":
		ps, err := params(1, true)
		if err != nil {
			return nil, err
		}
		if ps[0].Kind == types.Counter {
			return nil, cqlerr.Invalidf("Counters are not allowed inside collections: %s<counter>", name)
		}
		if name == "list" {
			return types.ListOf(ps[0], frozen), nil
		}
		return types.SetOf(ps[0], frozen), nil
	case "map":
		ps, err := params(2, true)
		if err != nil {
			return nil, err
		}
		return types.MapOf(ps[0], ps[1], frozen), nil
	case "tuple":
		ps, err := params(-1, true)
		if err != nil {
			return nil, err
		}
		return types.TupleOf(ps...), nil
	case "vector":
		ps, err := params(1, true)
		if err != nil {
			return nil, err
		}
		if te.Dimension <= 0 {
			return nil, cqlerr.Invalidf("vectors may only have positive dimensions; given %d", te.Dimension)
		}
		return &types.Type{Kind: types.Vector, Params: ps, Dimension: te.Dimension, Frozen: true}, nil
	}
	if te.Keyspace != "" {
		ks = te.Keyspace
	}
	return nil, cqlerr.Invalidf("Unknown type %s.%s", ks, te.Name)
}

func (e *Executor) compileCreateTable(c *compiled, st *cql.CreateTable, keyspace string) error {
	ksName := st.Name.Keyspace
	if ksName == "" {
		ksName = keyspace
	}
	if ksName == "" {
		return cqlerr.Invalidf("No keyspace has been specified. USE a keyspace, or explicitly specify keyspace.tablename")
	}
	name := st.Name.Name
	if len(name) > 222 || !validName.MatchString(name) {
		return cqlerr.Invalidf("Table name must not be empty, more than 222 characters long, or contain non-alphanumeric-underscore characters (got \"%s\")", name)
	}
	if st.CompactStorage {
		return cqlerr.Invalidf("COMPACT STORAGE tables are not allowed starting with version 4.0")
	}
	defs := map[string]*cql.ColumnDef{}
	var order []string
	for i := range st.Columns {
		d := &st.Columns[i]
		if d.Mask != nil {
			// Refuse rather than create the table without its mask.
			return cqlerr.NotImplemented("dynamic data masking (MASKED WITH)")
		}
		if _, dup := defs[d.Name]; dup {
			return cqlerr.Invalidf("Duplicate column '%s' declaration for table %s.%s", d.Name, ksName, name)
		}
		defs[d.Name] = d
		order = append(order, d.Name)
	}
	if len(st.PartitionKey) == 0 {
		return cqlerr.Invalidf("No PRIMARY KEY specifed for table '%s' (exactly one required)", name)
	}
	var cols []*schema.Column
	inPK := map[string]bool{}
	hasCounter, hasNonCounter := false, false
	addKey := func(n string, kind schema.ColumnKind, pos int) error {
		d, ok := defs[n]
		if !ok {
			return cqlerr.Invalidf("Unknown definition %s referenced in PRIMARY KEY", n)
		}
		if inPK[n] {
			return cqlerr.Invalidf("Duplicate definition for %s in PRIMARY KEY", n)
		}
		inPK[n] = true
		if d.Static {
			return cqlerr.Invalidf("Static column %s cannot be part of the PRIMARY KEY", n)
		}
		t, err := resolveType(d.Type, ksName)
		if err != nil {
			return err
		}
		if t.IsMultiCell() {
			return cqlerr.Invalidf("Invalid non-frozen collection type %s for PRIMARY KEY component %s", t, n)
		}
		if t.Kind == types.Counter {
			return cqlerr.Invalidf("counter type is not supported for PRIMARY KEY column '%s'", n)
		}
		if t.Kind == types.Duration {
			return cqlerr.Invalidf("duration type is not supported for PRIMARY KEY column '%s'", n)
		}
		cols = append(cols, &schema.Column{Name: n, Type: t, Kind: kind, Position: pos})
		return nil
	}
	for i, n := range st.PartitionKey {
		if err := addKey(n, schema.PartitionKey, i); err != nil {
			return err
		}
	}
	for i, n := range st.Clustering {
		if err := addKey(n, schema.Clustering, i); err != nil {
			return err
		}
	}
	for _, n := range order {
		if inPK[n] {
			continue
		}
		d := defs[n]
		t, err := resolveType(d.Type, ksName)
		if err != nil {
			return err
		}
		kind := schema.Regular
		if d.Static {
			if len(st.Clustering) == 0 {
				return cqlerr.Invalidf("Static columns are only useful (and thus allowed) if the table has at least one clustering column")
			}
			kind = schema.Static
		}
		if t.Kind == types.Counter {
			hasCounter = true
		} else {
			hasNonCounter = true
		}
		cols = append(cols, &schema.Column{Name: n, Type: t, Kind: kind, Position: -1})
	}
	if hasCounter && hasNonCounter {
		return cqlerr.Invalidf("Cannot mix counter and non counter columns in the same table")
	}
	// CLUSTERING ORDER BY.
	if len(st.ClusteringOrder) > 0 {
		byName := map[string]*schema.Column{}
		for _, col := range cols {
			if col.Kind == schema.Clustering {
				byName[col.Name] = col
			}
		}
		for i, o := range st.ClusteringOrder {
			col, ok := byName[o.Column]
			if !ok {
				return cqlerr.Invalidf("Only clustering key columns can be defined in CLUSTERING ORDER directive: %s is not a clustering column", o.Column)
			}
			if col.Position != i {
				return cqlerr.Invalidf("The order of columns in the CLUSTERING ORDER directive must match that of the clustering columns (%s must appear before %s)",
					st.Clustering[i], o.Column)
			}
			col.Desc = o.Desc
		}
		if len(st.ClusteringOrder) < len(st.Clustering) {
			return cqlerr.Invalidf("Missing CLUSTERING ORDER for column %s", st.Clustering[len(st.ClusteringOrder)])
		}
	}
	params, err := tableParams(st.Properties)
	if err != nil {
		return err
	}
	if hasCounter && params.DefaultTimeToLive > 0 {
		return cqlerr.Invalidf("Cannot set default_time_to_live on a table with counters")
	}
	c.ddl = func(ctx context.Context, e *Executor) (*Result, error) {
		s := e.cfg.Schema.Current()
		if s.Keyspace(ksName) == nil {
			return nil, cqlerr.Invalidf("Keyspace '%s' doesn't exist", ksName)
		}
		fresh := make([]*schema.Column, len(cols))
		for i, col := range cols {
			cc := *col
			fresh[i] = &cc
		}
		t := schema.NewTable(ksName, name, uuid.New(), fresh, params)
		changed, err := e.cfg.Schema.CreateTable(t, st.IfNotExists)
		if err != nil {
			return nil, err
		}
		if !changed {
			return &Result{Kind: VoidResult}, nil
		}
		return e.schemaChanged(&SchemaChange{Change: "CREATED", Target: "TABLE", Keyspace: ksName, Name: name}), nil
	}
	return nil
}

// tableParams applies WITH options over Cassandra's defaults.
func tableParams(props []cql.Property) (schema.TableParams, error) {
	p := schema.DefaultTableParams()
	seen := map[string]bool{}
	for _, prop := range props {
		if seen[prop.Name] {
			return p, cqlerr.Syntaxf("Multiple definitions for property '%s'", prop.Name)
		}
		seen[prop.Name] = true
		str := func() (string, error) { return propertyString(prop) }
		num := func() (float64, error) {
			s, err := str()
			if err != nil {
				return 0, err
			}
			f, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return 0, cqlerr.Syntaxf("Invalid double value %s for '%s'", s, prop.Name)
			}
			return f, nil
		}
		integer := func() (int32, error) {
			s, err := str()
			if err != nil {
				return 0, err
			}
			n, err := strconv.ParseInt(s, 10, 32)
			if err != nil {
				return 0, cqlerr.Syntaxf("Invalid integer value %s for '%s'", s, prop.Name)
			}
			return int32(n), nil
		}
		boolean := func() (bool, error) {
			s, err := str()
			if err != nil {
				return false, err
			}
			b, err := strconv.ParseBool(strings.ToLower(s))
			if err != nil {
				return false, cqlerr.Syntaxf("Invalid boolean value %s for '%s'", s, prop.Name)
			}
			return b, nil
		}
		var err error
		switch prop.Name {
		case "comment":
			p.Comment, err = str()
		case "additional_write_policy":
			p.AdditionalWritePolicy, err = str()
		case "speculative_retry":
			p.SpeculativeRetry, err = str()
		case "read_repair":
			var s string
			s, err = str()
			p.ReadRepair = strings.ToUpper(s)
			if err == nil && p.ReadRepair != "BLOCKING" && p.ReadRepair != "NONE" {
				err = cqlerr.ConfigErrorf("Invalid read_repair value %s", s)
			}
		case "memtable":
			p.Memtable, err = str()
		case "bloom_filter_fp_chance":
			p.BloomFilterFPChance, err = num()
			if err == nil && (p.BloomFilterFPChance <= 0 || p.BloomFilterFPChance > 1) {
				err = cqlerr.ConfigErrorf("bloom_filter_fp_chance must be larger than 0 and less than or equal to 1.0 (got %v)", p.BloomFilterFPChance)
			}
		case "crc_check_chance":
			p.CRCCheckChance, err = num()
		case "default_time_to_live":
			p.DefaultTimeToLive, err = integer()
			if err == nil && p.DefaultTimeToLive < 0 {
				err = cqlerr.ConfigErrorf("default_time_to_live must be greater than or equal to 0 (got %d)", p.DefaultTimeToLive)
			}
		case "gc_grace_seconds":
			p.GCGraceSeconds, err = integer()
			if err == nil && p.GCGraceSeconds < 0 {
				err = cqlerr.ConfigErrorf("gc_grace_seconds must be greater than or equal to 0 (got %d)", p.GCGraceSeconds)
			}
		case "max_index_interval":
			p.MaxIndexInterval, err = integer()
		case "min_index_interval":
			p.MinIndexInterval, err = integer()
		case "memtable_flush_period_in_ms":
			p.MemtableFlushPeriodInMs, err = integer()
		case "cdc":
			p.CDC, err = boolean()
		case "allow_auto_snapshot":
			p.AllowAutoSnapshot, err = boolean()
		case "incremental_backups":
			p.Incremental, err = boolean()
		case "caching":
			var m map[string]string
			m, err = propertyMap(prop)
			if err == nil {
				p.Caching = map[string]string{"keys": "ALL", "rows_per_partition": "NONE"}
				for k, v := range m {
					if k != "keys" && k != "rows_per_partition" {
						return p, cqlerr.ConfigErrorf("Invalid caching sub-options %s: only \"keys\" and \"rows_per_partition\" are allowed", k)
					}
					p.Caching[k] = strings.ToUpper(v)
				}
			}
		case "compaction":
			var m map[string]string
			m, err = propertyMap(prop)
			if err == nil {
				if _, ok := m["class"]; !ok {
					return p, cqlerr.ConfigErrorf("Missing sub-option 'class' for the 'compaction' option.")
				}
				if !strings.Contains(m["class"], ".") {
					m["class"] = "org.apache.cassandra.db.compaction." + m["class"]
				}
				if strings.HasSuffix(m["class"], "SizeTieredCompactionStrategy") {
					def := map[string]string{"max_threshold": "32", "min_threshold": "4"}
					for k, v := range def {
						if _, ok := m[k]; !ok {
							m[k] = v
						}
					}
				}
				p.Compaction = m
			}
		case "compression":
			var m map[string]string
			m, err = propertyMap(prop)
			if err == nil {
				if cls, ok := m["class"]; ok && cls != "" && !strings.Contains(cls, ".") {
					m["class"] = "org.apache.cassandra.io.compress." + cls
				}
				if m["enabled"] == "false" {
					m = map[string]string{"enabled": "false"}
				} else if _, ok := m["chunk_length_in_kb"]; !ok {
					m["chunk_length_in_kb"] = "16"
				}
				p.Compression = m
			}
		case "extensions":
			var m map[string]string
			m, err = propertyMap(prop)
			if err == nil {
				p.Extensions = map[string][]byte{}
				for k, v := range m {
					p.Extensions[k] = []byte(v)
				}
			}
		default:
			return p, cqlerr.Syntaxf("Unknown property '%s'", prop.Name)
		}
		if err != nil {
			return p, err
		}
	}
	return p, nil
}

func (e *Executor) compileDropTable(c *compiled, st *cql.DropTable, keyspace string) error {
	ksName := st.Name.Keyspace
	if ksName == "" {
		ksName = keyspace
	}
	if ksName == "" {
		return cqlerr.Invalidf("No keyspace has been specified. USE a keyspace, or explicitly specify keyspace.tablename")
	}
	c.ddl = func(ctx context.Context, e *Executor) (*Result, error) {
		t, err := e.cfg.Schema.DropTable(ksName, st.Name.Name, st.IfExists)
		if err != nil {
			return nil, err
		}
		if t == nil {
			return &Result{Kind: VoidResult}, nil
		}
		if err := e.cfg.Coordinator.Truncate(ctx, t); err != nil {
			e.cfg.Logger.Warn("dropping data of dropped table", "keyspace", ksName, "table", t.Name, "err", err)
		}
		return e.schemaChanged(&SchemaChange{Change: "DROPPED", Target: "TABLE", Keyspace: ksName, Name: t.Name}), nil
	}
	return nil
}

func (e *Executor) compileTruncate(c *compiled, s *schema.Schema, st *cql.Truncate, keyspace string) error {
	t, err := resolveTable(s, st.Name, keyspace)
	if err != nil {
		return err
	}
	if t.Virtual || schema.IsSystemKeyspace(t.Keyspace) {
		return cqlerr.Invalidf("Cannot TRUNCATE table %s.%s: system tables are not user-modifiable", t.Keyspace, t.Name)
	}
	c.ddl = func(ctx context.Context, e *Executor) (*Result, error) {
		if err := e.cfg.Coordinator.Truncate(ctx, t); err != nil {
			return nil, cqlerr.New(cqlerr.TruncateError, "Error during truncate: %v", err)
		}
		return &Result{Kind: VoidResult}, nil
	}
	return nil
}

// sortedKeys is a small helper for deterministic output.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

var _ = fmt.Sprintf
