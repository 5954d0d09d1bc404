package node

import (
	"fmt"
	"log/slog"
	"strings"

	"github.com/cqld/cqld/internal/query"
)

// Cassandra 5.0's guardrails keys (conf/cassandra.yaml; Config.java for the
// defaults: thresholds -1, flags true, lists empty, sizes null).

// guardrailThresholds maps a threshold guardrail's name to its warn and
// fail fields.
func guardrailThresholds(g *query.Guardrails) map[string][2]*int64 {
	return map[string][2]*int64{
		"keyspaces":                    {&g.KeyspacesWarn, &g.KeyspacesFail},
		"tables":                       {&g.TablesWarn, &g.TablesFail},
		"columns_per_table":            {&g.ColumnsPerTableWarn, &g.ColumnsPerTableFail},
		"secondary_indexes_per_table":  {&g.SecondaryIndexesPerTableWarn, &g.SecondaryIndexesPerTableFail},
		"materialized_views_per_table": {&g.MaterializedViewsPerTableWarn, &g.MaterializedViewsPerTableFail},
		"page_size":                    {&g.PageSizeWarn, &g.PageSizeFail},
		"partition_keys_in_select":     {&g.PartitionKeysInSelectWarn, &g.PartitionKeysInSelectFail},
		"in_select_cartesian_product":  {&g.InSelectCartesianProductWarn, &g.InSelectCartesianProductFail},
		"items_per_collection":         {&g.ItemsPerCollectionWarn, &g.ItemsPerCollectionFail},
		"fields_per_udt":               {&g.FieldsPerUDTWarn, &g.FieldsPerUDTFail},
		"vector_dimensions":            {&g.VectorDimensionsWarn, &g.VectorDimensionsFail},
		"minimum_replication_factor":   {&g.MinimumReplicationFactorWarn, &g.MinimumReplicationFactorFail},
		"maximum_replication_factor":   {&g.MaximumReplicationFactorWarn, &g.MaximumReplicationFactorFail},
		"collection_size":              {&g.CollectionSizeWarn, &g.CollectionSizeFail},
		"column_value_size":            {&g.ColumnValueSizeWarn, &g.ColumnValueSizeFail},
	}
}

// guardrailFlags maps a *_enabled key to its negated field; the value
// stored is !enabled (zero_ttl_on_twcs_warned is handled apart).
func guardrailFlags(g *query.Guardrails) map[string]*bool {
	return map[string]*bool{
		"secondary_indexes_enabled":                 &g.SecondaryIndexesDisabled,
		"user_timestamps_enabled":                   &g.UserTimestampsDisabled,
		"group_by_enabled":                          &g.GroupByDisabled,
		"alter_table_enabled":                       &g.AlterTableDisabled,
		"drop_truncate_table_enabled":               &g.DropTruncateTableDisabled,
		"drop_keyspace_enabled":                     &g.DropKeyspaceDisabled,
		"uncompressed_tables_enabled":               &g.UncompressedTablesDisabled,
		"compact_tables_enabled":                    &g.CompactTablesDisabled,
		"read_before_write_list_operations_enabled": &g.ReadBeforeWriteListOperationsDisabled,
		"allow_filtering_enabled":                   &g.AllowFilteringDisabled,
		"simplestrategy_enabled":                    &g.SimpleStrategyDisabled,
		"zero_ttl_on_twcs_enabled":                  &g.ZeroTTLOnTWCSDisabled,
	}
}

// notEnforcedGuardrails are 5.0 guardrail keys cqld accepts but does not
// enforce (see README).
var notEnforcedGuardrails = []string{"data_disk_usage_"}

// isSizeGuardrail reports whether the thresholds of the guardrail are data
// sizes ("64KiB") rather than counts.
func isSizeGuardrail(name string) bool {
	return name == "collection_size" || name == "column_value_size"
}

// loadGuardrailKey applies one guardrails key; it reports false for keys
// that are not guardrails.
func loadGuardrailKey(g *query.Guardrails, k string, v any, log *slog.Logger) (bool, error) {
	for name, f := range guardrailThresholds(g) {
		for i, suffix := range []string{"_warn_threshold", "_fail_threshold"} {
			if k != name+suffix {
				continue
			}
			var n int64
			var err error
			if isSizeGuardrail(name) {
				n, err = toBytes(v)
			} else {
				var x int
				x, err = toInt(v)
				n = int64(x)
				if err == nil && n == 0 {
					err = fmt.Errorf("invalid value 0 for %s: 0 is not allowed; if attempting to disable use -1", k)
				} else if err == nil && n < -1 {
					err = fmt.Errorf("invalid value %d for %s: negative values are not allowed, outside of -1 which disables the guardrail", n, k)
				}
			}
			if err != nil {
				return true, err
			}
			*f[i] = n
			return true, nil
		}
	}
	if f, ok := guardrailFlags(g)[k]; ok {
		b, err := toBool(v)
		*f = !b
		return true, err
	}
	var err error
	switch k {
	case "maximum_timestamp_warn_threshold", "maximum_timestamp_fail_threshold",
		"minimum_timestamp_warn_threshold", "minimum_timestamp_fail_threshold":
		d, err := toDuration(v)
		if err != nil {
			return true, err
		}
		us := d.Microseconds()
		switch k {
		case "maximum_timestamp_warn_threshold":
			g.MaximumTimestampWarn = us
		case "maximum_timestamp_fail_threshold":
			g.MaximumTimestampFail = us
		case "minimum_timestamp_warn_threshold":
			g.MinimumTimestampWarn = us
		default:
			g.MinimumTimestampFail = us
		}
		return true, nil
	case "zero_ttl_on_twcs_warned":
		g.ZeroTTLOnTWCSWarned, err = toBool(v)
	case "table_properties_warned":
		g.TablePropertiesWarned, err = toStringSet(v, false)
	case "table_properties_ignored":
		g.TablePropertiesIgnored, err = toStringSet(v, false)
	case "table_properties_disallowed":
		g.TablePropertiesDisallowed, err = toStringSet(v, false)
	case "read_consistency_levels_warned":
		g.ReadConsistencyLevelsWarned, err = toStringSet(v, true)
	case "read_consistency_levels_disallowed":
		g.ReadConsistencyLevelsDisallowed, err = toStringSet(v, true)
	case "write_consistency_levels_warned":
		g.WriteConsistencyLevelsWarned, err = toStringSet(v, true)
	case "write_consistency_levels_disallowed":
		g.WriteConsistencyLevelsDisallowed, err = toStringSet(v, true)
	default:
		for _, p := range notEnforcedGuardrails {
			if strings.HasPrefix(k, p) {
				log.Info("guardrail not enforced by cqld", "key", k)
				return true, nil
			}
		}
		return false, nil
	}
	return true, err
}

// toBytes parses a Cassandra 5.0 data size with its unit (DataStorageSpec:
// "100B", "5KiB", "1MiB", "1GiB"); -1 disables.
func toBytes(v any) (int64, error) {
	s := strings.TrimSpace(fmt.Sprint(v))
	if s == "-1" {
		return -1, nil
	}
	if n, ok := parseDataSize(s); ok {
		return n, nil
	}
	return 0, fmt.Errorf("invalid data storage: value must be a non-negative integer with a unit (B, KiB, MiB, GiB), got %q", s)
}

// toStringSet parses a YAML list (or a comma-separated string) into
// distinct values in order; consistency level names are checked and
// upper-cased.
func toStringSet(v any, consistency bool) ([]string, error) {
	var raw []string
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			raw = append(raw, fmt.Sprint(e))
		}
	default:
		s := strings.TrimSpace(fmt.Sprint(v))
		s = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
		if s != "" {
			raw = strings.Split(s, ",")
		}
	}
	var out []string
	for _, r := range raw {
		r = strings.TrimSpace(r)
		if r == "" {
			continue
		}
		if consistency {
			c, ok := query.ConsistencyByName(r)
			if !ok {
				return nil, fmt.Errorf("unknown consistency level %q", r)
			}
			r = query.ConsistencyName(c)
		} else {
			r = strings.ToLower(r)
		}
		dup := false
		for _, o := range out {
			dup = dup || o == r
		}
		if !dup {
			out = append(out, r)
		}
	}
	return out, nil
}

// validateGuardrails is GuardrailsOptions' check of warn against fail.
func validateGuardrails(g *query.Guardrails) error {
	for name, f := range guardrailThresholds(g) {
		warn, fail := *f[0], *f[1]
		if warn <= 0 || fail <= 0 {
			continue
		}
		if name == "minimum_replication_factor" {
			if warn < fail {
				return fmt.Errorf("the warn threshold %d for %s_warn_threshold should be greater than the fail threshold %d", warn, name, fail)
			}
			continue
		}
		if fail < warn {
			return fmt.Errorf("the warn threshold %d for %s_warn_threshold should be lower than the fail threshold %d", warn, name, fail)
		}
	}
	if g.MinimumReplicationFactorWarn > 0 && g.MaximumReplicationFactorWarn > 0 && g.MinimumReplicationFactorWarn > g.MaximumReplicationFactorWarn {
		return fmt.Errorf("the minimum replication factor warn threshold %d should be lower than the maximum replication factor warn threshold %d",
			g.MinimumReplicationFactorWarn, g.MaximumReplicationFactorWarn)
	}
	return nil
}
