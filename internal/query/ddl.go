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

// replication is a validated replication map (as system_schema.keyspaces
// stores it) with the client warnings Cassandra's
// AbstractReplicationStrategy.maybeWarnOnOptions gives for it.
type replication struct {
	options  map[string]string
	warnings []string
}

// localDatacenter is the datacenter of this node (system.local data_center).
func (e *Executor) localDatacenter() string {
	if e.cfg.Node != nil {
		if dc := e.cfg.Node.Local().DataCenter; dc != "" {
			return dc
		}
	}
	return "datacenter1"
}

// defaultKeyspaceRF is default_keyspace_rf.
func (e *Executor) defaultKeyspaceRF() int {
	return max(e.cfg.DefaultKeyspaceRF, 1)
}

// replicationOptions validates a replication map as Cassandra 5.0 does
// (ReplicationParams.fromMapWithDefaults, the strategy's prepareOptions,
// AbstractReplicationStrategy.validateReplicationStrategy). prev holds the
// keyspace's current options on ALTER (nil on CREATE). The cluster is this
// one node, in datacenter dc; defaultRF is default_keyspace_rf.
func replicationOptions(ks string, in, prev map[string]string, dc string, defaultRF int) (*replication, error) {
	class, ok := in["class"]
	if !ok {
		return nil, cqlerr.ConfigErrorf("Missing replication strategy class")
	}
	full := class
	if !strings.Contains(class, ".") {
		full = "org.apache.cassandra.locator." + class
	}
	var keys []string
	opts := map[string]string{}
	for k, v := range in {
		if k != "class" {
			keys = append(keys, k)
			opts[k] = v
		}
	}
	// The first unrecognized option reported is the first in the
	// iteration order of Cassandra's options map (new HashMap<>(map)).
	keys = javaHashMapOrder(keys, len(in))
	checkRF := func(v string) error {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return cqlerr.ConfigErrorf("Replication factor must be numeric; found %s", v)
		}
		if n < 0 {
			return cqlerr.ConfigErrorf("Replication factor must be non-negative; found %s", v)
		}
		return nil
	}
	// unrecognized reports the first option the strategy does not know
	// (AbstractReplicationStrategy.validateExpectedOptions).
	unrecognized := func(strategy string, known func(string) bool) error {
		for _, k := range keys {
			if _, ok := opts[k]; ok && !known(k) {
				return cqlerr.ConfigErrorf("Unrecognized strategy option {%s} passed to %s for keyspace %s", k, strategy, ks)
			}
		}
		return nil
	}
	r := &replication{options: map[string]string{"class": full}}
	switch full {
	case schema.SimpleStrategyClass:
		// SimpleStrategy.prepareOptions: the previous (or default) factor.
		if _, ok := opts["replication_factor"]; !ok {
			rf := strconv.Itoa(defaultRF)
			if p, ok := prev["replication_factor"]; ok {
				rf = p
			}
			opts["replication_factor"] = rf
		}
		if err := unrecognized("SimpleStrategy", func(k string) bool { return k == "replication_factor" }); err != nil {
			return nil, err
		}
		rf := opts["replication_factor"]
		if err := checkRF(rf); err != nil {
			return nil, err
		}
		r.options["replication_factor"] = rf
	case schema.NetworkTopologyClass:
		// NetworkTopologyStrategy.prepareOptions: 'replication_factor'
		// expands to every datacenter not given (keeping the previous
		// ones on ALTER); zero factors are dropped.
		if len(opts) == 0 {
			rf := strconv.Itoa(defaultRF)
			if p, ok := prev["replication_factor"]; ok {
				rf = p
			}
			opts["replication_factor"] = rf
		}
		if rf, ok := opts["replication_factor"]; ok {
			delete(opts, "replication_factor")
			for k, v := range prev {
				if _, set := opts[k]; !set && k != "replication_factor" && k != "class" {
					opts[k] = v
					keys = append(keys, k)
				}
			}
			if err := checkRF(rf); err != nil {
				return nil, err
			}
			if _, set := opts[dc]; !set {
				opts[dc] = strings.TrimSpace(rf)
				keys = append(keys, dc)
			}
		}
		for k, v := range opts {
			if v == "0" {
				delete(opts, k)
			}
		}
		for _, k := range keys {
			if v, ok := opts[k]; ok {
				if err := checkRF(v); err != nil {
					return nil, err
				}
			}
		}
		if len(opts) == 0 {
			return nil, cqlerr.ConfigErrorf("Configuration for at least one datacenter must be present")
		}
		if err := unrecognized("NetworkTopologyStrategy", func(k string) bool { return k == dc }); err != nil {
			return nil, err
		}
		for k, v := range opts {
			r.options[k] = v
		}
	case schema.LocalStrategyClass:
		return nil, cqlerr.Invalidf("Unable to use given strategy class: LocalStrategy is reserved for internal use.")
	case "org.apache.cassandra.locator.OldNetworkTopologyStrategy":
		return nil, cqlerr.ConfigErrorf("The support for the OldNetworkTopologyStrategy has been removed in C* version 4.0. The keyspace strategy should be switch to NetworkTopologyStrategy")
	default:
		return nil, cqlerr.ConfigErrorf("Unable to find replication strategy class '%s'", full)
	}
	r.warnings = replicationWarnings(ks, r.options, dc)
	return r, nil
}

// replicationWarnings are the client warnings of
// AbstractReplicationStrategy.maybeWarnOnOptions for a keyspace of this
// one-node cluster: a replication factor above the number of nodes.
func replicationWarnings(ks string, r map[string]string, localDC string) []string {
	k := &schema.Keyspace{Replication: r}
	var out []string
	switch r["class"] {
	case schema.SimpleStrategyClass:
		if n := k.ReplicationFactor(""); n > 1 {
			out = append(out, fmt.Sprintf("Your replication factor %d for keyspace %s is higher than the number of nodes 1", n, ks))
		}
	case schema.NetworkTopologyClass:
		// Datacenters without nodes are not warned about.
		if n := k.ReplicationFactor(localDC); n > 1 {
			out = append(out, fmt.Sprintf("Your replication factor %d for keyspace %s is higher than the number of nodes 1 for datacenter %s", n, ks, localDC))
		}
	}
	return out
}

// keyspaceProperties checks the written properties of CREATE/ALTER
// KEYSPACE (KeyspaceAttributes.validate) and returns the replication map
// (nil when not given).
func keyspaceProperties(props []cql.Property) (repl map[string]string, durable *bool, err error) {
	for _, p := range props {
		switch p.Name {
		case "replication":
			m, err := propertyMap(p)
			if err != nil {
				return nil, nil, err
			}
			repl = m
		case "durable_writes":
			s, err := propertyString(p)
			if err != nil {
				return nil, nil, err
			}
			b, err := strconv.ParseBool(strings.ToLower(s))
			if err != nil {
				return nil, nil, cqlerr.Syntaxf("Invalid boolean value %s for 'durable_writes'", s)
			}
			durable = &b
		default:
			return nil, nil, cqlerr.Syntaxf("Unknown property '%s'", p.Name)
		}
	}
	if len(repl) > 0 {
		if _, ok := repl["class"]; !ok {
			return nil, nil, cqlerr.ConfigErrorf("Missing replication strategy class")
		}
	}
	return repl, durable, nil
}

// keyspaceFromProperties builds the keyspace a CREATE (old nil) or ALTER
// KEYSPACE defines, with the client warnings of its replication.
func (e *Executor) keyspaceFromProperties(name string, props []cql.Property, old *schema.Keyspace) (*schema.Keyspace, []string, error) {
	repl, durable, err := keyspaceProperties(props)
	if err != nil {
		return nil, nil, err
	}
	ks := &schema.Keyspace{Name: name, DurableWrites: true}
	var prev map[string]string
	if old != nil {
		ks.Replication, ks.DurableWrites = old.Replication, old.DurableWrites
		prev = map[string]string{}
		for k, v := range old.Replication {
			if k != "class" {
				prev[k] = v
			}
		}
	}
	if durable != nil {
		ks.DurableWrites = *durable
	}
	var warnings []string
	if repl != nil {
		r, err := replicationOptions(name, repl, prev, e.localDatacenter(), e.defaultKeyspaceRF())
		if err != nil {
			return nil, nil, err
		}
		ks.Replication, warnings = r.options, r.warnings
	} else if old != nil {
		// AlterKeyspaceStatement validates (and warns about) the
		// unchanged replication too.
		warnings = replicationWarnings(name, ks.Replication, e.localDatacenter())
	}
	if ks.Replication == nil {
		return nil, nil, cqlerr.ConfigErrorf("Missing mandatory option 'replication'")
	}
	return ks, warnings, nil
}

// checkSchemaKeyspace is AlterSchemaStatement.execute's check: the local
// system keyspaces (SchemaConstants.isLocalSystemKeyspace, which includes
// the virtual system keyspaces) cannot be modified.
func checkSchemaKeyspace(name string) error {
	switch strings.ToLower(name) {
	case schema.SystemKeyspace, schema.SystemSchemaKeyspace, schema.SystemViews, schema.SystemVirtualSchema:
		return cqlerr.Invalidf("System keyspace '%s' is not user-modifiable", name)
	}
	return nil
}

func (e *Executor) compileCreateKeyspace(c *compiled, st *cql.CreateKeyspace) error {
	if err := checkSchemaKeyspace(st.Name); err != nil {
		return err
	}
	if len(st.Name) > 48 || !validName.MatchString(st.Name) {
		return cqlerr.Invalidf("Keyspace name must not be empty, more than 48 characters long, or contain non-alphanumeric-underscore characters (got \"%s\")", st.Name)
	}
	repl, _, err := keyspaceProperties(st.Properties)
	if err != nil {
		return err
	}
	if repl == nil {
		return cqlerr.ConfigErrorf("Missing mandatory option 'replication'")
	}
	c.ddl = func(ctx context.Context, e *Executor) (*Result, error) {
		if schema.IsSystemKeyspace(st.Name) || e.cfg.Schema.Current().Keyspace(st.Name) != nil {
			if st.IfNotExists {
				return &Result{Kind: VoidResult}, nil
			}
			return nil, cqlerr.KeyspaceExists(st.Name)
		}
		ks, warnings, err := e.keyspaceFromProperties(st.Name, st.Properties, nil)
		if err != nil {
			return nil, err
		}
		changed, err := e.cfg.Schema.CreateKeyspace(ks, st.IfNotExists)
		if err != nil {
			return nil, err
		}
		if !changed {
			return &Result{Kind: VoidResult}, nil
		}
		res := e.schemaChanged(&SchemaChange{Change: "CREATED", Target: "KEYSPACE", Keyspace: st.Name})
		res.Warnings = append(res.Warnings, warnings...)
		return res, nil
	}
	return nil
}

func (e *Executor) compileAlterKeyspace(c *compiled, st *cql.AlterKeyspace) error {
	if err := checkSchemaKeyspace(st.Name); err != nil {
		return err
	}
	c.ddl = func(ctx context.Context, e *Executor) (*Result, error) {
		var warnings []string
		changed, err := e.cfg.Schema.AlterKeyspace(st.Name, st.IfExists, func(old *schema.Keyspace) (*schema.Keyspace, error) {
			ks, w, err := e.keyspaceFromProperties(st.Name, st.Properties, old)
			if err != nil {
				return nil, err
			}
			warnings = w
			// AlterKeyspaceStatement.clientWarnings
			if old.ReplicationFactor("") < ks.ReplicationFactor("") {
				warnings = append(warnings, "When increasing replication factor you need to run a full (-full) repair to distribute the data.")
			}
			return ks, nil
		})
		if err != nil {
			return nil, err
		}
		if !changed {
			return &Result{Kind: VoidResult}, nil
		}
		res := e.schemaChanged(&SchemaChange{Change: "UPDATED", Target: "KEYSPACE", Keyspace: st.Name})
		res.Warnings = append(res.Warnings, warnings...)
		return res, nil
	}
	return nil
}

func (e *Executor) dropKeyspace(ctx context.Context, st *cql.DropKeyspace) (*Result, error) {
	ks, removals, err := e.cfg.Schema.DropKeyspace(st.Name, st.IfExists, e.cfg.AutoSnapshot)
	if err != nil {
		return nil, err
	}
	if ks == nil {
		return &Result{Kind: VoidResult}, nil
	}
	dropErr := e.removeDropped(ctx, removals...)
	for _, t := range ks.Tables {
		e.dropped(ctx, DataResource(ks.Name, t.Name))
	}
	e.dropped(ctx, DataResource(ks.Name, ""))
	res := e.schemaChanged(&SchemaChange{Change: "DROPPED", Target: "KEYSPACE", Keyspace: st.Name})
	if dropErr != nil {
		return nil, dropErr
	}
	return res, nil
}

// maskingEnabled is Cassandra's ColumnMask.ensureEnabled: MASKED WITH is
// refused unless dynamic_data_masking_enabled (false by default).
func (e *Executor) maskingEnabled() error {
	if !e.cfg.DynamicDataMaskingEnabled {
		return cqlerr.Invalidf(maskingDisabled)
	}
	return nil
}

// resolveType turns a written type into a types.Type (without user
// types; see resolveTypeIn in ddl_types.go).
func resolveType(te cql.TypeExpr, ks string) (*types.Type, error) {
	return resolveTypeIn(nil, te, ks)
}

func (e *Executor) compileCreateTable(c *compiled, st *cql.CreateTable, keyspace string) error {
	ksName := st.Name.Keyspace
	if ksName == "" {
		ksName = keyspace
	}
	if ksName == "" {
		return cqlerr.Invalidf("No keyspace has been specified. USE a keyspace, or explicitly specify keyspace.tablename")
	}
	for i := range st.Columns {
		if st.Columns[i].Mask != nil {
			// CreateTableStatement.validate: ColumnMask.ensureEnabled.
			if err := e.maskingEnabled(); err != nil {
				return err
			}
		}
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
		t, err := resolveTypeIn(e.cfg.Schema.Current(), d.Type, ksName)
		if err != nil {
			return err
		}
		if t.IsMultiCell() {
			if t.Kind == types.UDT {
				return cqlerr.Invalidf("Invalid non-frozen user-defined type %s for PRIMARY KEY column '%s'", quoteIdentIfNeeded(ksName+"."+t.Name), n)
			}
			return cqlerr.Invalidf("Invalid non-frozen collection type %s for PRIMARY KEY column '%s'", t, n)
		}
		if t.Kind == types.Counter {
			return cqlerr.Invalidf("counter type is not supported for PRIMARY KEY column '%s'", n)
		}
		if typeReferencesDuration(t) {
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
		t, err := resolveTypeIn(e.cfg.Schema.Current(), d.Type, ksName)
		if err != nil {
			return err
		}
		if err := checkUDTColumn(t); err != nil {
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
		// Cassandra's checks: every listed column is a clustering column;
		// the list follows the clustering order and may stop early (the
		// rest is ASC), but may not skip a column.
		var notClustering []string
		listed := map[string]bool{}
		for _, o := range st.ClusteringOrder {
			listed[o.Column] = true
			if _, ok := byName[o.Column]; !ok {
				notClustering = append(notClustering, o.Column)
			}
		}
		if len(notClustering) > 0 {
			return cqlerr.Invalidf("Only clustering key columns can be defined in CLUSTERING ORDER directive: [%s] are not clustering columns", strings.Join(notClustering, ", "))
		}
		for i, o := range st.ClusteringOrder {
			if i >= len(st.Clustering) {
				return cqlerr.Invalidf("Duplicate column %s in CLUSTERING ORDER directive", o.Column)
			}
			if c := st.Clustering[i]; c != o.Column {
				if listed[c] {
					return cqlerr.Invalidf("The order of columns in the CLUSTERING ORDER directive must match that of the clustering columns (%s must appear before %s)", c, o.Column)
				}
				return cqlerr.Invalidf("Missing CLUSTERING ORDER for column %s", c)
			}
			byName[o.Column].Desc = o.Desc
		}
	}
	id, props, err := tableIDProperty(st.Properties)
	if err != nil {
		return err
	}
	params, err := tableParams(props)
	if err != nil {
		return err
	}
	if hasCounter && params.DefaultTimeToLive > 0 {
		return cqlerr.Invalidf("Cannot set default_time_to_live on a table with counters")
	}
	masked := &schema.Table{Keyspace: ksName, Name: name}
	for _, col := range cols {
		if d := defs[col.Name]; d != nil && d.Mask != nil {
			m, err := e.prepareMask(masked, col, d.Mask)
			if err != nil {
				return err
			}
			col.Mask = m
		}
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
		tid := id
		if tid == uuid.Nil {
			tid = uuid.New()
		}
		t := schema.NewTable(ksName, name, tid, fresh, params)
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

// tableIDProperty takes the ID option out of a CREATE's WITH options
// (TableAttributes.getId): the table's id, as DESCRIBE ... WITH INTERNALS
// prints it, so that its output recreates the table over the same data
// files in Cassandra. uuid.Nil when absent.
func tableIDProperty(props []cql.Property) (uuid.UUID, []cql.Property, error) {
	for i, prop := range props {
		if prop.Name != "id" {
			continue
		}
		s, err := propertyString(prop)
		if err != nil {
			return uuid.Nil, nil, err
		}
		id, err := uuid.Parse(s)
		if err != nil || len(s) != 36 {
			return uuid.Nil, nil, cqlerr.ConfigErrorf("Invalid table id")
		}
		rest := append(append([]cql.Property(nil), props[:i]...), props[i+1:]...)
		return id, rest, nil
	}
	return uuid.Nil, props, nil
}

// refuseIDChange refuses the ID option of an ALTER TABLE or ALTER
// MATERIALIZED VIEW (TableAttributes.asAlteredTableParams).
func refuseIDChange(props []cql.Property) error {
	for _, prop := range props {
		if prop.Name == "id" {
			return cqlerr.ConfigErrorf("Cannot alter table id.")
		}
	}
	return nil
}

// tableParams applies WITH options over Cassandra's defaults.
func tableParams(props []cql.Property) (schema.TableParams, error) {
	return tableParamsOver(schema.DefaultTableParams(), props)
}

// tableParamsOver applies WITH options over p (CREATE TABLE: the defaults;
// ALTER TABLE: the table's current options). Map options are replaced as a
// whole, never modified in place.
func tableParamsOver(p schema.TableParams, props []cql.Property) (schema.TableParams, error) {
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
			if err == nil && p.DefaultTimeToLive > maxTTL {
				err = cqlerr.ConfigErrorf("default_time_to_live must be less than or equal to %d (got %d)", maxTTL, p.DefaultTimeToLive)
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
				// CompactionParams.create: every strategy but UCS gets the
				// default thresholds (supportsThresholdParams).
				if !strings.HasSuffix(m["class"], ".UnifiedCompactionStrategy") {
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
				p.Compression, err = compressionOptions(m)
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
	ksName, err := keyspaceOf(st.Name, keyspace)
	if err != nil {
		return err
	}
	c.ddl = func(ctx context.Context, e *Executor) (*Result, error) {
		r, err := e.cfg.Schema.DropTable(ksName, st.Name.Name, st.IfExists, e.cfg.AutoSnapshot)
		if err != nil {
			return nil, err
		}
		if r == nil {
			return &Result{Kind: VoidResult}, nil
		}
		dropErr := e.removeDropped(ctx, *r)
		e.dropped(ctx, DataResource(ksName, r.Table.Name))
		res := e.schemaChanged(&SchemaChange{Change: "DROPPED", Target: "TABLE", Keyspace: ksName, Name: r.Table.Name})
		if dropErr != nil {
			return nil, dropErr
		}
		return res, nil
	}
	return nil
}

func (e *Executor) compileTruncate(c *compiled, s *schema.Schema, st *cql.Truncate, keyspace string) error {
	t, err := resolveTable(s, st.Name, keyspace)
	if err != nil {
		return err
	}
	if schema.IsVirtualKeyspace(t.Keyspace) {
		// The virtual tables refuse it (AbstractVirtualTable.truncate),
		// except system_logs, which has no rows in cqld.
		if t.Keyspace == schema.SystemViews && t.Name == schema.SystemLogsTable {
			c.ddl = func(context.Context, *Executor) (*Result, error) { return &Result{Kind: VoidResult}, nil }
			return nil
		}
		return cqlerr.Invalidf("Truncation is not supported by table %s.%s", t.Keyspace, t.Name)
	}
	// Stored system tables take TRUNCATE, as they take writes (TRUNCATE
	// system_traces.sessions clears the traces, TRUNCATE
	// system.prepared_statements leaked statements).
	if t.Virtual {
		return cqlerr.Invalidf("Cannot TRUNCATE table %s.%s: system tables are not user-modifiable", t.Keyspace, t.Name)
	}
	if t.IsView() {
		return cqlerr.Invalidf("Cannot TRUNCATE materialized view directly; must truncate base table instead")
	}
	c.ddl = func(ctx context.Context, e *Executor) (*Result, error) {
		if err := e.autoSnapshot(ctx, truncatedPrefix, keyspaceOrEmpty(e.cfg.Schema.Current(), t.Keyspace), t); err != nil {
			return nil, cqlerr.New(cqlerr.TruncateError, "Error during truncate: %v", err)
		}
		if err := e.truncate(ctx, t); err != nil {
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
