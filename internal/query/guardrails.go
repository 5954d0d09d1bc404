package query

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/cqld/cqld/internal/cql"
	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/types"
)

// Guardrails is Cassandra 5.0's guardrails configuration (cassandra.yaml's
// *_warn_threshold, *_fail_threshold, *_enabled, *_warned, *_ignored and
// *_disallowed keys; Cassandra's Guardrails.java). The zero value is
// Cassandra's defaults except ZeroTTLOnTWCSWarned (true in Cassandra): a
// threshold <= 0 is disabled (Cassandra's -1), and the boolean flags are
// negated so that false is Cassandra's default "enabled".
//
// Guardrails apply only to ordinary users (ClientState.isOrdinaryUser):
// never to internal queries nor to superusers, and with
// AllowAllAuthenticator every client is a superuser (ClientState.isSuper
// is true when the authenticator does not require authentication).
type Guardrails struct {
	KeyspacesWarn, KeyspacesFail                                 int64
	TablesWarn, TablesFail                                       int64
	ColumnsPerTableWarn, ColumnsPerTableFail                     int64
	SecondaryIndexesPerTableWarn, SecondaryIndexesPerTableFail   int64
	MaterializedViewsPerTableWarn, MaterializedViewsPerTableFail int64
	PageSizeWarn, PageSizeFail                                   int64
	PartitionKeysInSelectWarn, PartitionKeysInSelectFail         int64
	InSelectCartesianProductWarn, InSelectCartesianProductFail   int64
	// CollectionSizeWarn, CollectionSizeFail, ColumnValueSizeWarn and
	// ColumnValueSizeFail are in bytes.
	CollectionSizeWarn, CollectionSizeFail                     int64
	ColumnValueSizeWarn, ColumnValueSizeFail                   int64
	ItemsPerCollectionWarn, ItemsPerCollectionFail             int64
	FieldsPerUDTWarn, FieldsPerUDTFail                         int64
	VectorDimensionsWarn, VectorDimensionsFail                 int64
	MinimumReplicationFactorWarn, MinimumReplicationFactorFail int64
	MaximumReplicationFactorWarn, MaximumReplicationFactorFail int64
	// MaximumTimestamp* and MinimumTimestamp* are maximum_timestamp_* and
	// minimum_timestamp_*: how far (µs) a USING TIMESTAMP may be after or
	// before now; 0 is Cassandra's null (disabled).
	MaximumTimestampWarn, MaximumTimestampFail int64
	MinimumTimestampWarn, MinimumTimestampFail int64

	// Disabled flags: the negation of the *_enabled keys.
	SecondaryIndexesDisabled              bool // secondary_indexes_enabled
	UserTimestampsDisabled                bool // user_timestamps_enabled
	GroupByDisabled                       bool // group_by_enabled
	AlterTableDisabled                    bool // alter_table_enabled
	DropTruncateTableDisabled             bool // drop_truncate_table_enabled
	DropKeyspaceDisabled                  bool // drop_keyspace_enabled
	UncompressedTablesDisabled            bool // uncompressed_tables_enabled
	CompactTablesDisabled                 bool // compact_tables_enabled
	ReadBeforeWriteListOperationsDisabled bool // read_before_write_list_operations_enabled
	AllowFilteringDisabled                bool // allow_filtering_enabled
	SimpleStrategyDisabled                bool // simplestrategy_enabled
	ZeroTTLOnTWCSDisabled                 bool // zero_ttl_on_twcs_enabled
	// ZeroTTLOnTWCSWarned is zero_ttl_on_twcs_warned (true in Cassandra).
	ZeroTTLOnTWCSWarned bool

	// Values guardrails, in configuration order. Consistency levels are
	// names (ONE, LOCAL_QUORUM, ...).
	TablePropertiesWarned, TablePropertiesIgnored, TablePropertiesDisallowed []string
	ReadConsistencyLevelsWarned, ReadConsistencyLevelsDisallowed             []string
	WriteConsistencyLevelsWarned, WriteConsistencyLevelsDisallowed           []string
}

// active reports whether any guardrail can trigger.
func (g *Guardrails) active() bool {
	return !reflect.DeepEqual(*g, Guardrails{})
}

// superuserChecker is implemented by a Security that knows superusers
// (internal/auth): IsSuperuser is Cassandra's ClientState.isSuper.
type superuserChecker interface {
	IsSuperuser(ctx context.Context, user string) bool
}

// guardrailsApply reports whether guardrails apply to sess
// (Guardrail.enabled(ClientState): ordinary users only).
func (e *Executor) guardrailsApply(ctx context.Context, sess *Session) bool {
	if !e.guardrailsOn || sess == nil || sess.Internal || e.cfg.Security == nil {
		// Internal queries are exempt, and with AllowAllAuthenticator
		// every client is a superuser.
		return false
	}
	if su, ok := e.cfg.Security.(superuserChecker); ok {
		return !su.IsSuperuser(ctx, sess.User)
	}
	return true
}

// guardrailState collects the warnings of one statement's guardrails.
type guardrailState struct {
	g     *Guardrails
	warns []string
	// now is the current time in µs (for the timestamp guardrails).
	now int64
}

func guardrailMsg(name, msg, reason string) string {
	out := fmt.Sprintf("Guardrail %s violated: %s", name, msg)
	if reason != "" {
		if strings.HasSuffix(msg, ".") {
			out += " " + reason
		} else {
			out += ". " + reason
		}
	}
	return out
}

func (s *guardrailState) warn(name, msg, reason string) {
	m := guardrailMsg(name, msg, reason)
	for _, w := range s.warns {
		if w == m {
			return
		}
	}
	s.warns = append(s.warns, m)
}

func guardrailFail(name, msg, reason string) error {
	return cqlerr.Invalidf("%s", guardrailMsg(name, msg, reason))
}

// maxThreshold is Cassandra's MaxThreshold.guard; msg builds the message
// (isWarning, value, threshold).
func (s *guardrailState) maxThreshold(name, reason string, warnT, failT, value int64, msg func(warn bool, value, threshold int64) string) error {
	if failT > 0 && value > failT {
		return guardrailFail(name, msg(false, value, failT), reason)
	}
	if warnT > 0 && value > warnT {
		s.warn(name, msg(true, value, warnT), reason)
	}
	return nil
}

// minThreshold is Cassandra's MinThreshold.guard.
func (s *guardrailState) minThreshold(name string, warnT, failT, value int64, msg func(warn bool, value, threshold int64) string) error {
	if failT > 0 && value < failT {
		return guardrailFail(name, msg(false, value, failT), "")
	}
	if warnT > 0 && value < warnT {
		s.warn(name, msg(true, value, warnT), "")
	}
	return nil
}

// ensureEnabled is EnableFlag.ensureEnabled.
func (s *guardrailState) ensureEnabled(name, reason string, disabled, warned bool, feature string) error {
	if disabled {
		return guardrailFail(name, feature+" is not allowed", reason)
	}
	if warned {
		s.warn(name, feature+" is not recommended", reason)
	}
	return nil
}

func javaSet(vals []string) string { return "[" + strings.Join(vals, ", ") + "]" }

// values is Cassandra's Values.guard; it returns the values to ignore.
func (s *guardrailState) values(name, what string, vals, warned, ignored, disallowed []string, less func(a, b string) bool) ([]string, error) {
	pick := func(set []string) []string {
		var out []string
		for _, v := range vals {
			for _, x := range set {
				if v == x {
					out = append(out, v)
					break
				}
			}
		}
		sort.Slice(out, func(i, j int) bool { return less(out[i], out[j]) })
		return dedupSorted(out)
	}
	if d := pick(disallowed); len(d) > 0 {
		return nil, guardrailFail(name, fmt.Sprintf("Provided values %s are not allowed for %s (disallowed values are: %s)",
			javaSet(d), what, javaSet(disallowed)), "")
	}
	ign := pick(ignored)
	if len(ign) > 0 {
		s.warn(name, fmt.Sprintf("Ignoring provided values %s as they are not supported for %s (ignored values are: %s)",
			javaSet(ign), what, javaSet(ignored)), "")
	}
	if w := pick(warned); len(w) > 0 {
		s.warn(name, fmt.Sprintf("Provided values %s are not recommended for %s (warned values are: %s)",
			javaSet(w), what, javaSet(warned)), "")
	}
	return ign, nil
}

func dedupSorted(in []string) []string {
	out := in[:0]
	for i, v := range in {
		if i == 0 || v != in[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// consistencyNames are Cassandra's ConsistencyLevel names by protocol code
// (also their enum order).
var consistencyNames = []string{"ANY", "ONE", "TWO", "THREE", "QUORUM", "ALL", "LOCAL_QUORUM",
	"EACH_QUORUM", "SERIAL", "LOCAL_SERIAL", "LOCAL_ONE", "NODE_LOCAL"}

// ConsistencyName returns Cassandra's name of a consistency level.
func ConsistencyName(c Consistency) string {
	if int(c) < len(consistencyNames) {
		return consistencyNames[c]
	}
	return "0x" + strconv.FormatUint(uint64(c), 16)
}

// ConsistencyByName returns the consistency level of a Cassandra name.
func ConsistencyByName(name string) (Consistency, bool) {
	for i, n := range consistencyNames {
		if strings.EqualFold(n, strings.TrimSpace(name)) {
			return Consistency(i), true
		}
	}
	return 0, false
}

func consistencyLess(a, b string) bool {
	x, _ := ConsistencyByName(a)
	y, _ := ConsistencyByName(b)
	return x < y
}

// checkGuardrails applies the guardrails to one statement of an ordinary
// user before it runs (Cassandra checks them in prepare, validate and
// execute; the outcome is the same). It returns the statement to run (a
// recompiled one when table properties were ignored) and the warnings.
func (e *Executor) checkGuardrails(ctx context.Context, c *compiled, opts *Options) (*compiled, []string, error) {
	s := &guardrailState{g: &e.cfg.Guardrails, now: e.now().UnixMicro()}
	var err error
	switch {
	case c.sel != nil:
		err = e.guardSelect(s, c, opts)
	case c.modify != nil:
		if err = s.guardWriteCL(c.modify, opts); err == nil {
			err = s.guardModify(c.modify, opts.Values)
		}
	case c.batch != nil:
		err = s.guardWriteCL(nil, opts)
		if err == nil && c.batch.timestamp != nil {
			err = s.ensureEnabled("user_timestamps", "", s.g.UserTimestampsDisabled, false, "User provided timestamps (USING TIMESTAMP)")
			if err == nil && len(c.batch.stmts) > 0 {
				err = s.guardTimestamp(c.batch.stmts[0].table.Name, c.batch.timestamp, opts.Values)
			}
		}
		for _, p := range c.batch.stmts {
			if err == nil {
				err = s.guardModify(p, opts.Values)
			}
		}
	case c.ddl != nil && c.stmt != nil:
		var ignored []string
		ignored, err = e.guardDDL(s, c)
		if err == nil && len(ignored) > 0 {
			c, err = e.recompileWithout(c, ignored)
		}
	}
	if err != nil {
		return nil, nil, err
	}
	return c, s.warns, nil
}

// guardBatchStatement applies the guardrails of one statement of a BATCH
// request (the write consistency is checked once, with the first).
func (e *Executor) guardBatchStatement(c *compiled, opts *Options, first bool) ([]string, error) {
	s := &guardrailState{g: &e.cfg.Guardrails, now: e.now().UnixMicro()}
	if first {
		if err := s.guardWriteCL(nil, opts); err != nil {
			return nil, err
		}
	}
	if c.modify != nil {
		if err := s.guardModify(c.modify, opts.Values); err != nil {
			return nil, err
		}
	}
	return s.warns, nil
}

func (s *guardrailState) guardWriteCL(p *modifyPlan, opts *Options) error {
	g := s.g
	if len(g.WriteConsistencyLevelsWarned) == 0 && len(g.WriteConsistencyLevelsDisallowed) == 0 {
		return nil
	}
	cls := []string{ConsistencyName(Consistency(opts.Consistency))}
	if p != nil && p.cas != nil {
		cls = append(cls, ConsistencyName(opts.serialConsistency()))
	}
	_, err := s.values("write_consistency_levels", "write consistency levels", cls,
		g.WriteConsistencyLevelsWarned, nil, g.WriteConsistencyLevelsDisallowed, consistencyLess)
	return err
}

// guardModify checks an INSERT, UPDATE or DELETE: user timestamps, list
// operations that read before writing, and the written collections.
func (s *guardrailState) guardModify(p *modifyPlan, vals []Value) error {
	g := s.g
	if p.timestamp != nil {
		if err := s.ensureEnabled("user_timestamps", "", g.UserTimestampsDisabled, false, "User provided timestamps (USING TIMESTAMP)"); err != nil {
			return err
		}
		if err := s.guardTimestamp(p.table.Name, p.timestamp, vals); err != nil {
			return err
		}
	}
	for i := range p.ops {
		op := &p.ops[i]
		if op.col.Type.Kind == types.List && g.ReadBeforeWriteListOperationsDisabled {
			feature := ""
			switch op.kind {
			case opSetElem:
				feature = "Setting of list items by index requiring read before write"
			case opSub:
				feature = "Removal of list items requiring read before write"
			case opDelElem:
				feature = "Removal of list items by index requiring read before write"
			}
			if feature != "" {
				return s.ensureEnabled("read_before_write_list_operations", "", true, false, feature)
			}
		}
		if err := s.guardCollection(op, vals); err != nil {
			return err
		}
		if err := s.guardColumnValueSize(op, vals); err != nil {
			return err
		}
	}
	return nil
}

// guardColumnValueSize is column_value_size, checked on every cell value
// and cell path written (Cassandra's UpdateParameters.addCell).
func (s *guardrailState) guardColumnValueSize(op *columnOp, vals []Value) error {
	g := s.g
	if g.ColumnValueSizeWarn <= 0 && g.ColumnValueSizeFail <= 0 {
		return nil
	}
	t := op.col.Type
	if op.value == nil || t.Kind == types.Counter || t.Kind == types.UDT {
		return nil
	}
	b, unset, err := op.value(vals)
	if err != nil || unset || b == nil {
		return nil
	}
	var sizes []int
	switch {
	case op.kind == opSetElem:
		k, kunset, err := op.elem(vals)
		if err != nil || kunset || k == nil {
			return nil
		}
		if t.Kind == types.Map {
			sizes = append(sizes, len(k))
		}
		sizes = append(sizes, len(b))
	case !t.IsMultiCell() || !isCollection(t):
		if op.kind != opSet {
			return nil
		}
		sizes = append(sizes, len(b))
	case op.kind == opSet || op.kind == opAdd || op.kind == opPrepend:
		switch t.Kind {
		case types.Map:
			ks, vs, err := types.DecodeMap(b)
			if err != nil {
				return nil
			}
			for i := range ks {
				sizes = append(sizes, len(ks[i]), len(vs[i]))
			}
		default:
			els, err := types.DecodeCollection(b)
			if err != nil {
				return nil
			}
			for _, el := range els {
				if t.Kind == types.Set {
					sizes = append(sizes, len(el), 0)
				} else {
					sizes = append(sizes, 16, len(el)) // timeuuid path
				}
			}
		}
	}
	name := op.col.Name
	for _, n := range sizes {
		if err := s.maxThreshold("column_value_size", "", g.ColumnValueSizeWarn, g.ColumnValueSizeFail, int64(n),
			func(warn bool, v, th int64) string {
				return fmt.Sprintf("Value of column %s has size %d, this exceeds the %s threshold of %d.", name, v, warnWord(warn), th)
			}); err != nil {
			return err
		}
	}
	return nil
}

// guardTimestamp is maximum_timestamp and minimum_timestamp on a USING
// TIMESTAMP (ModificationStatement.validateTimestamp).
func (s *guardrailState) guardTimestamp(table string, f termFn, vals []Value) error {
	g := s.g
	if g.MaximumTimestampWarn <= 0 && g.MaximumTimestampFail <= 0 && g.MinimumTimestampWarn <= 0 && g.MinimumTimestampFail <= 0 {
		return nil
	}
	ts, unset, err := evalInt64(f, vals)
	if err != nil || unset {
		return nil
	}
	rel := func(d, sign int64) int64 {
		if d <= 0 {
			return 0
		}
		return s.now + sign*d
	}
	if err := s.maxThreshold("maximum_timestamp", "Timestamps too far in the future can lead to data that can't be easily overwritten",
		rel(g.MaximumTimestampWarn, 1), rel(g.MaximumTimestampFail, 1), ts, func(warn bool, v, th int64) string {
			return fmt.Sprintf("The modification to table %s has a timestamp %d after the maximum allowable %s threshold %d", table, v, warnWord(warn), th)
		}); err != nil {
		return err
	}
	minWarn, minFail := rel(g.MinimumTimestampWarn, -1), rel(g.MinimumTimestampFail, -1)
	const reason = "Timestamps too far in the past can cause writes can be unexpectedly lost"
	if minFail > 0 && ts < minFail {
		return guardrailFail("minimum_timestamp", fmt.Sprintf("The modification to table %s has a timestamp %d before the minimum allowable %s threshold %d", table, ts, "failure", minFail), reason)
	}
	if minWarn > 0 && ts < minWarn {
		s.warn("minimum_timestamp", fmt.Sprintf("The modification to table %s has a timestamp %d before the minimum allowable %s threshold %d", table, ts, "warning", minWarn), reason)
	}
	return nil
}

// Cell.dataSize() of Cassandra: timestamp (8), ttl (4) and local deletion
// time (4) on top of the value and the cell path.
const cellOverhead = 16

// guardCollection is the collection_size and items_per_collection check
// of Cassandra's Lists/Sets/Maps setters and adders: only the written
// elements count (no read before write).
func (s *guardrailState) guardCollection(op *columnOp, vals []Value) error {
	g := s.g
	if g.CollectionSizeWarn <= 0 && g.CollectionSizeFail <= 0 && g.ItemsPerCollectionWarn <= 0 && g.ItemsPerCollectionFail <= 0 {
		return nil
	}
	t := op.col.Type
	if !isCollection(t) || (op.kind != opSet && op.kind != opAdd && op.kind != opPrepend) {
		return nil
	}
	b, unset, err := op.value(vals)
	if err != nil || unset || b == nil {
		return nil // the write itself reports bad values
	}
	var items, size int64
	multi := t.IsMultiCell()
	switch t.Kind {
	case types.Map:
		ks, vs, err := types.DecodeMap(b)
		if err != nil {
			return nil
		}
		seen := map[string]bool{}
		for i := range ks {
			if seen[string(ks[i])] {
				continue
			}
			seen[string(ks[i])] = true
			items++
			size += cellOverhead + int64(len(ks[i])+len(vs[i]))
		}
	default:
		els, err := types.DecodeCollection(b)
		if err != nil {
			return nil
		}
		seen := map[string]bool{}
		for _, el := range els {
			if t.Kind == types.Set {
				if seen[string(el)] {
					continue
				}
				seen[string(el)] = true
			}
			items++
			switch t.Kind {
			case types.Set:
				size += cellOverhead + int64(len(el))
			default: // list: the path is a 16-byte timeuuid
				size += cellOverhead + 16 + int64(len(el))
			}
		}
	}
	if multi && items == 0 {
		return nil
	}
	if !multi {
		size = cellOverhead + int64(len(b))
	}
	name := op.col.Name
	if err := s.maxThreshold("items_per_collection", "", g.ItemsPerCollectionWarn, g.ItemsPerCollectionFail, items,
		func(warn bool, v, th int64) string {
			return fmt.Sprintf("Detected collection %s with %d items, this exceeds the %s threshold of %d.", name, v, warnWord(warn), th)
		}); err != nil {
		return err
	}
	return s.maxThreshold("collection_size", "", g.CollectionSizeWarn, g.CollectionSizeFail, size,
		func(warn bool, v, th int64) string {
			return fmt.Sprintf("Detected collection %s of size %d, this exceeds the %s threshold of %d.", name, v, warnWord(warn), th)
		})
}

func warnWord(warn bool) string {
	if warn {
		return "warning"
	}
	return "failure"
}

// guardSelect checks a SELECT (Cassandra's SelectStatement): ALLOW
// FILTERING, GROUP BY, the read consistency, the page size and the IN
// restrictions. Queries of the system keyspaces are not checked (drivers
// read them on connect).
func (e *Executor) guardSelect(s *guardrailState, c *compiled, opts *Options) error {
	g := s.g
	p := c.sel
	t := p.table
	if schema.IsSystemKeyspace(t.Keyspace) {
		return nil
	}
	if st, ok := c.stmt.(*cql.Select); ok {
		if st.AllowFiltering {
			if err := s.ensureEnabled("allow_filtering", "ALLOW FILTERING can potentially visit all the data in the table and have unpredictable performance.",
				g.AllowFilteringDisabled, false, "Querying with ALLOW FILTERING"); err != nil {
				return err
			}
		}
		if len(st.GroupBy) > 0 {
			if err := s.ensureEnabled("group_by", "", g.GroupByDisabled, false, "GROUP BY functionality"); err != nil {
				return err
			}
		}
	}
	if len(g.ReadConsistencyLevelsWarned) > 0 || len(g.ReadConsistencyLevelsDisallowed) > 0 {
		if _, err := s.values("read_consistency_levels", "read consistency levels", []string{ConsistencyName(Consistency(opts.Consistency))},
			g.ReadConsistencyLevelsWarned, nil, g.ReadConsistencyLevelsDisallowed, consistencyLess); err != nil {
			return err
		}
	}
	vals := opts.Values
	if ps := int64(opts.PageSize); ps > 0 && (g.PageSizeWarn > 0 || g.PageSizeFail > 0) {
		limit := int64(1<<31 - 1)
		if p.limit != nil {
			if l, unset, err := evalInt32(p.limit, vals); err == nil && !unset && l > 0 {
				limit = int64(l)
			}
		}
		// Cassandra checks the page size of paged queries only.
		if p.aggregate || len(p.groupBy) > 0 || limit > ps {
			if err := s.maxThreshold("page_size", "", g.PageSizeWarn, g.PageSizeFail, ps, func(warn bool, v, th int64) string {
				if warn {
					return fmt.Sprintf("Query for table %s with page size %d exceeds warning threshold of %d.", t.Name, v, th)
				}
				return fmt.Sprintf("Aborting query for table %s, page size %d exceeds fail threshold of %d.", t.Name, v, th)
			}); err != nil {
				return err
			}
		}
	}
	if len(p.pk) > 0 {
		if err := s.guardCartesian("partition key", t.PartitionKey, p.pk, vals); err != nil {
			return err
		}
		if (g.PartitionKeysInSelectWarn > 0 || g.PartitionKeysInSelectFail > 0) && hasIn(p.pk) {
			keys, err := p.partitionKeys(vals)
			if err == nil {
				if err := s.maxThreshold("partition_keys_in_select", "", g.PartitionKeysInSelectWarn, g.PartitionKeysInSelectFail, int64(len(keys)),
					func(warn bool, v, th int64) string {
						if warn {
							return fmt.Sprintf("Query with partition keys in IN clause on table %s, with number of partition keys %d exceeds warning threshold of %d.", t.Name, v, th)
						}
						return fmt.Sprintf("Aborting query with partition keys in IN clause on table %s, number of partition keys %d exceeds fail threshold of %d.", t.Name, v, th)
					}); err != nil {
					return err
				}
			}
		}
	}
	if len(p.ck) > 0 {
		if err := s.guardCartesian("clustering key", t.Clustering, p.ck, vals); err != nil {
			return err
		}
	}
	return nil
}

// guardCartesian is in_select_cartesian_product, checked as Cassandra's
// MultiCBuilder grows (after each restricted column).
func (s *guardrailState) guardCartesian(what string, cols []*schema.Column, kvs []*keyVals, vals []Value) error {
	g := s.g
	if (g.InSelectCartesianProductWarn <= 0 && g.InSelectCartesianProductFail <= 0) || !hasIn(kvs) {
		return nil
	}
	size := int64(1)
	for i, kv := range kvs {
		if kv == nil || i >= len(cols) {
			break
		}
		var n int64
		switch {
		case kv.tuple == nil:
			v, err := expandValues(cols[i], kv, vals)
			if err != nil {
				return nil // reported by the query itself
			}
			n = int64(len(v))
		case kv.tuple.start == i:
			v, err := kv.tuple.tuples(vals)
			if err != nil {
				return nil
			}
			n = int64(len(v))
		default:
			continue // the rest of a multi-column IN
		}
		// Saturating: a product of long lists may pass int64, and a
		// wrapped size would be reported wrong, or pass a threshold.
		if n != 0 && size > math.MaxInt64/n {
			size = math.MaxInt64
		} else {
			size *= n
		}
		if err := s.maxThreshold("in_select_cartesian_product", "", g.InSelectCartesianProductWarn, g.InSelectCartesianProductFail, size,
			func(warn bool, v, th int64) string {
				if warn {
					return fmt.Sprintf("The cartesian product of the IN restrictions on %s produces %d values, this exceeds warning threshold of %d.", what, v, th)
				}
				return fmt.Sprintf("Aborting query because the cartesian product of the IN restrictions on %s produces %d values, this exceeds fail threshold of %d.", what, v, th)
			}); err != nil {
			return err
		}
	}
	return nil
}

// userKeyspaces returns the keyspaces of users (Schema.getUserKeyspaces).
func userKeyspaces(sc *schema.Schema) []*schema.Keyspace {
	var out []*schema.Keyspace
	for _, name := range sc.KeyspaceNames() {
		ks := sc.Keyspace(name)
		if ks == nil || ks.Virtual || schema.IsSystemKeyspace(name) {
			continue
		}
		out = append(out, ks)
	}
	return out
}

func propertyNames(props []cql.Property) []string {
	out := make([]string, 0, len(props))
	for _, p := range props {
		out = append(out, strings.ToLower(p.Name))
	}
	return out
}

func (s *guardrailState) guardTableProperties(props []cql.Property) ([]string, error) {
	g := s.g
	if len(g.TablePropertiesWarned) == 0 && len(g.TablePropertiesIgnored) == 0 && len(g.TablePropertiesDisallowed) == 0 {
		return nil, nil
	}
	return s.values("table_properties", "Table Properties", propertyNames(props),
		g.TablePropertiesWarned, g.TablePropertiesIgnored, g.TablePropertiesDisallowed, func(a, b string) bool { return a < b })
}

func (s *guardrailState) guardColumns(table string, n int64) error {
	return s.maxThreshold("columns_per_table", "", s.g.ColumnsPerTableWarn, s.g.ColumnsPerTableFail, n, func(warn bool, v, th int64) string {
		if warn {
			return fmt.Sprintf("The table %s has %d columns, this exceeds the warning threshold of %d.", table, v, th)
		}
		return fmt.Sprintf("Tables cannot have more than %d columns, but %d provided for table %s", th, v, table)
	})
}

// guardVector is vector_dimensions on a type as written (what is "Column
// c" or "Field f").
func (s *guardrailState) guardVector(what string, t cql.TypeExpr) error {
	if s.g.VectorDimensionsWarn <= 0 && s.g.VectorDimensionsFail <= 0 {
		return nil
	}
	if strings.EqualFold(t.Name, "vector") {
		if err := s.maxThreshold("vector_dimensions", "", s.g.VectorDimensionsWarn, s.g.VectorDimensionsFail, int64(t.Dimension),
			func(warn bool, v, th int64) string {
				return fmt.Sprintf("%s has a vector of %d dimensions, this exceeds the %s threshold of %d.", what, v, warnWord(warn), th)
			}); err != nil {
			return err
		}
	}
	for _, p := range t.Params {
		if err := s.guardVector(what, p); err != nil {
			return err
		}
	}
	return nil
}

func (s *guardrailState) guardFieldsPerUDT(name string, n int64) error {
	return s.maxThreshold("fields_per_udt", "", s.g.FieldsPerUDTWarn, s.g.FieldsPerUDTFail, n, func(warn bool, v, th int64) string {
		if warn {
			return fmt.Sprintf("The user type %s has %d columns, this exceeds the warning threshold of %d.", name, v, th)
		}
		return fmt.Sprintf("User types cannot have more than %d columns, but %d provided for user type %s.", th, v, name)
	})
}

// propMap returns a map property of props (nil when absent or not a map).
func propMap(props []cql.Property, name string) (map[string]string, bool) {
	for _, p := range props {
		if strings.EqualFold(p.Name, name) {
			m, err := propertyMap(p)
			return m, err == nil
		}
	}
	return nil, false
}

func propString(props []cql.Property, name string) (string, bool) {
	for _, p := range props {
		if strings.EqualFold(p.Name, name) {
			s, err := propertyString(p)
			return s, err == nil
		}
	}
	return "", false
}

// guardTableOptions checks uncompressed tables and zero TTL on TWCS for a
// table's properties over its current parameters (nil when creating).
func (s *guardrailState) guardTableOptions(props []cql.Property, old *schema.Table) error {
	g := s.g
	if m, ok := propMap(props, "compression"); ok {
		if v, set := m["enabled"]; set && strings.EqualFold(strings.TrimSpace(v), "false") {
			if err := s.ensureEnabled("uncompressed_tables_enabled", "", g.UncompressedTablesDisabled, false, "Uncompressed table"); err != nil {
				return err
			}
		}
	}
	class, ttl := "", int64(0)
	if old != nil {
		class, ttl = old.Params.Compaction["class"], int64(old.Params.DefaultTimeToLive)
	}
	compactionSet := false
	if m, ok := propMap(props, "compaction"); ok {
		class, compactionSet = m["class"], true
	}
	if v, ok := propString(props, "default_time_to_live"); ok {
		if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil {
			ttl = n
		}
	}
	if old != nil && !compactionSet {
		if _, ok := propString(props, "default_time_to_live"); !ok {
			return nil // neither changed
		}
	}
	if ttl == 0 && strings.HasSuffix(class, "TimeWindowCompactionStrategy") {
		return s.ensureEnabled("zero_ttl_on_twcs", "It is suspicious to use default_time_to_live set to 0 with such compaction strategy. "+
			"Please keep in mind that data will not start to automatically expire after they are older "+
			"than a respective compaction window unit of a certain size. Please set TTL for your INSERT or UPDATE "+
			"statements if you expect data to be expired as table settings will not do it. ",
			g.ZeroTTLOnTWCSDisabled, g.ZeroTTLOnTWCSWarned, "0 default_time_to_live on a table with TimeWindowCompactionStrategy compaction strategy")
	}
	return nil
}

// guardReplication checks simplestrategy and the replication factors of
// a CREATE or ALTER KEYSPACE.
func (s *guardrailState) guardReplication(ks string, props []cql.Property) error {
	g := s.g
	m, ok := propMap(props, "replication")
	if !ok {
		return nil
	}
	class := m["class"]
	if class == "SimpleStrategy" || class == schema.SimpleStrategyClass {
		if err := s.ensureEnabled("simplestrategy", "", g.SimpleStrategyDisabled, false, "SimpleStrategy"); err != nil {
			return err
		}
	}
	var keys []string
	for k := range m {
		if k != "class" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		rf, err := strconv.ParseInt(strings.TrimSpace(m[k]), 10, 64)
		if err != nil {
			continue
		}
		if err := s.minThreshold("minimum_replication_factor", g.MinimumReplicationFactorWarn, g.MinimumReplicationFactorFail, rf,
			func(warn bool, v, th int64) string {
				return fmt.Sprintf("The keyspace %s has a replication factor of %d, below the %s threshold of %d.", ks, v, warnWord(warn), th)
			}); err != nil {
			return err
		}
		if err := s.maxThreshold("maximum_replication_factor", "", g.MaximumReplicationFactorWarn, g.MaximumReplicationFactorFail, rf,
			func(warn bool, v, th int64) string {
				return fmt.Sprintf("The keyspace %s has a replication factor of %d, above the %s threshold of %d.", ks, v, warnWord(warn), th)
			}); err != nil {
			return err
		}
	}
	return nil
}

// guardDDL checks a schema statement; it returns the table properties to
// ignore.
func (e *Executor) guardDDL(s *guardrailState, c *compiled) ([]string, error) {
	g := s.g
	sc := c.schema
	ksOf := func(n cql.QualifiedName) string {
		if n.Keyspace != "" {
			return n.Keyspace
		}
		return c.keyspace
	}
	switch st := c.stmt.(type) {
	case *cql.CreateKeyspace:
		// The count is CreateKeyspaceStatement.validate, the replication
		// checks run in apply (not for IF NOT EXISTS of an existing one).
		if err := s.maxThreshold("keyspaces", "", g.KeyspacesWarn, g.KeyspacesFail, int64(len(userKeyspaces(sc))+1),
			func(warn bool, v, th int64) string {
				if warn {
					return fmt.Sprintf("Creating keyspace %s, current number of keyspaces %d exceeds warning threshold of %d.", st.Name, v, th)
				}
				return fmt.Sprintf("Cannot have more than %d keyspaces, aborting the creation of keyspace %s", th, st.Name)
			}); err != nil {
			return nil, err
		}
		if st.IfNotExists && sc.Keyspace(st.Name) != nil {
			return nil, nil
		}
		return nil, s.guardReplication(st.Name, st.Properties)
	case *cql.AlterKeyspace:
		return nil, s.guardReplication(st.Name, st.Properties)
	case *cql.DropKeyspace:
		return nil, s.ensureEnabled("drop_keyspace_enabled", "", g.DropKeyspaceDisabled, false, "DROP KEYSPACE functionality")
	case *cql.DropTable:
		return nil, s.ensureEnabled("drop_truncate_table_enabled", "", g.DropTruncateTableDisabled, false, "DROP and TRUNCATE TABLE functionality")
	case *cql.Truncate:
		return nil, s.ensureEnabled("drop_truncate_table_enabled", "", g.DropTruncateTableDisabled, false, "DROP and TRUNCATE TABLE functionality")
	case *cql.CreateTable:
		name := st.Name.Name
		ignored, err := s.guardTableProperties(st.Properties)
		if err != nil {
			return nil, err
		}
		if err := s.guardColumns(name, int64(len(st.Columns))); err != nil {
			return nil, err
		}
		for _, col := range st.Columns {
			if err := s.guardVector("Column "+col.Name, col.Type); err != nil {
				return nil, err
			}
		}
		if st.CompactStorage {
			if err := s.ensureEnabled("compact_tables", "", g.CompactTablesDisabled, false, "Creation of new COMPACT STORAGE tables"); err != nil {
				return nil, err
			}
		}
		if !schema.IsSystemKeyspace(ksOf(st.Name)) {
			if err := s.guardTableOptions(without(st.Properties, ignored), nil); err != nil {
				return nil, err
			}
		}
		if g.TablesWarn > 0 || g.TablesFail > 0 {
			n := 0
			for _, ks := range userKeyspaces(sc) {
				n += len(ks.Tables)
			}
			if err := s.maxThreshold("tables", "", g.TablesWarn, g.TablesFail, int64(n+1), func(warn bool, v, th int64) string {
				if warn {
					return fmt.Sprintf("Creating table %s, current number of tables %d exceeds warning threshold of %d.", name, v, th)
				}
				return fmt.Sprintf("Cannot have more than %d tables, aborting the creation of table %s", th, name)
			}); err != nil {
				return nil, err
			}
		}
		return ignored, nil
	case *cql.AlterTable:
		t := sc.Table(ksOf(st.Name), st.Name.Name)
		switch st.Op {
		case cql.AlterTableAddColumns, cql.AlterTableDropColumns, cql.AlterTableRenameColumns:
			if err := s.ensureEnabled("alter_table", "", g.AlterTableDisabled, false, "ALTER TABLE changing columns"); err != nil {
				return nil, err
			}
		}
		switch st.Op {
		case cql.AlterTableAddColumns:
			for _, col := range st.Add {
				if err := s.guardVector("Column "+col.Name, col.Type); err != nil {
					return nil, err
				}
			}
			if t != nil {
				n := len(t.Columns)
				for _, col := range st.Add {
					if t.Column(col.Name) == nil {
						n++
					}
				}
				if err := s.guardColumns(st.Name.Name, int64(n)); err != nil {
					return nil, err
				}
			}
		case cql.AlterTableWith:
			ignored, err := s.guardTableProperties(st.Properties)
			if err != nil {
				return nil, err
			}
			if t != nil && !schema.IsSystemKeyspace(t.Keyspace) {
				if err := s.guardTableOptions(without(st.Properties, ignored), t); err != nil {
					return nil, err
				}
			}
			return ignored, nil
		}
	case *cql.CreateIndex:
		if err := s.ensureEnabled("secondary_indexes", "", g.SecondaryIndexesDisabled, false, "Creating secondary indexes"); err != nil {
			return nil, err
		}
		ks := ksOf(st.Table)
		if t := sc.Table(ks, st.Table.Name); t != nil {
			name := st.Name.Name
			if name == "" && len(st.Targets) > 0 {
				name = sc.Keyspace(ks).DefaultIndexName(t.Name, st.Targets[0].Column)
			}
			if err := s.maxThreshold("secondary_indexes_per_table", "", g.SecondaryIndexesPerTableWarn, g.SecondaryIndexesPerTableFail, int64(len(t.Indexes)+1),
				func(warn bool, v, th int64) string {
					if warn {
						return fmt.Sprintf("Creating secondary index %s, current number of indexes %d exceeds warning threshold of %d.", name, v, th)
					}
					return fmt.Sprintf("Tables cannot have more than %d secondary indexes, aborting the creation of secondary index %s", th, name)
				}); err != nil {
				return nil, err
			}
		}
	case *cql.CreateMaterializedView:
		ignored, err := s.guardTableProperties(st.Properties)
		if err != nil {
			return nil, err
		}
		if st.Select != nil {
			if base := sc.Table(ksOf(st.Select.Table), st.Select.Table.Name); base != nil {
				name := st.Name.Name
				if err := s.maxThreshold("materialized_views_per_table", "", g.MaterializedViewsPerTableWarn, g.MaterializedViewsPerTableFail, int64(len(base.Views)+1),
					func(warn bool, v, th int64) string {
						if warn {
							return fmt.Sprintf("Creating materialized view %s, current number of views %d exceeds warning threshold of %d.", name, v, th)
						}
						return fmt.Sprintf("Tables cannot have more than %d materialized views, aborting the creation of materialized view %s", th, name)
					}); err != nil {
					return nil, err
				}
			}
		}
		return ignored, nil
	case *cql.AlterMaterializedView:
		return s.guardTableProperties(st.Properties)
	case *cql.CreateType:
		for _, f := range st.Fields {
			if err := s.guardVector("Field "+f.Name, f.Type); err != nil {
				return nil, err
			}
		}
		return nil, s.guardFieldsPerUDT(st.Name.Name, int64(len(st.Fields)))
	case *cql.AlterType:
		if st.Op == cql.AlterTypeAddField {
			if err := s.guardVector("Field "+st.Field, st.Type); err != nil {
				return nil, err
			}
			if ks := sc.Keyspace(ksOf(st.Name)); ks != nil {
				if ut := ks.Type(st.Name.Name); ut != nil {
					return nil, s.guardFieldsPerUDT(st.Name.Name, int64(len(ut.FieldNames)+1))
				}
			}
		}
	}
	return nil, nil
}

func without(props []cql.Property, names []string) []cql.Property {
	if len(names) == 0 {
		return props
	}
	out := make([]cql.Property, 0, len(props))
	for _, p := range props {
		drop := false
		for _, n := range names {
			if strings.EqualFold(p.Name, n) {
				drop = true
			}
		}
		if !drop {
			out = append(out, p)
		}
	}
	return out
}

// recompileWithout compiles c's statement again without the ignored table
// properties (Values' ignore action).
func (e *Executor) recompileWithout(c *compiled, ignored []string) (*compiled, error) {
	// Nothing left to alter: Cassandra applies an empty change.
	emptyAlter := func(name cql.QualifiedName) *compiled {
		return &compiled{schemaVersion: c.schemaVersion, schema: c.schema, ddl: func(ctx context.Context, e *Executor) (*Result, error) {
			return e.schemaChanged(&SchemaChange{Change: "UPDATED", Target: "TABLE", Keyspace: c.keyspaceOf(name), Name: name.Name}), nil
		}}
	}
	var stmt cql.Statement
	switch st := c.stmt.(type) {
	case *cql.CreateTable:
		cp := *st
		cp.Properties = without(st.Properties, ignored)
		stmt = &cp
	case *cql.AlterTable:
		cp := *st
		cp.Properties = without(st.Properties, ignored)
		if len(cp.Properties) == 0 {
			return emptyAlter(st.Name), nil
		}
		stmt = &cp
	case *cql.CreateMaterializedView:
		cp := *st
		cp.Properties = without(st.Properties, ignored)
		stmt = &cp
	case *cql.AlterMaterializedView:
		cp := *st
		cp.Properties = without(st.Properties, ignored)
		if len(cp.Properties) == 0 {
			return emptyAlter(st.Name), nil
		}
		stmt = &cp
	default:
		return c, nil
	}
	nc, err := e.compile(stmt, c.keyspace)
	if err != nil {
		return nil, err
	}
	nc.stmt = c.stmt
	return nc, nil
}

func (c *compiled) keyspaceOf(n cql.QualifiedName) string {
	if n.Keyspace != "" {
		return n.Keyspace
	}
	return c.keyspace
}
