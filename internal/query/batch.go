package query

import (
	"sort"
	"strconv"
	"strings"

	"github.com/cqld/cqld/internal/cql"
	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/mutation"
	"github.com/cqld/cqld/internal/schema"
)

// Batch guardrails of Cassandra 5.0's BatchStatement: the size warning and
// failure thresholds (batch_size_warn_threshold, batch_size_fail_threshold)
// and the warning for unlogged batches spanning many partitions
// (unlogged_batch_across_partitions_warn_threshold).

// Cassandra 5.0's defaults (conf/cassandra.yaml).
const (
	DefaultBatchSizeWarnThreshold                     = 5 * 1024
	DefaultBatchSizeFailThreshold                     = 50 * 1024
	DefaultUnloggedBatchAcrossPartitionsWarnThreshold = 10
)

// batchTable is one table's part of a batch.
type batchTable struct {
	t   *schema.Table
	ups []*mutation.PartitionUpdate
}

// cellDataSize is Cassandra's Cell.dataSize: timestamp, ttl and local
// deletion time, the value and the path.
func cellDataSize(c *mutation.Cell) int64 {
	return 8 + 4 + 4 + int64(len(c.Value)) + int64(len(c.Path))
}

// updateDataSize is PartitionUpdate.dataSize: the clustering and cells of
// every (non-static) row.
func updateDataSize(u *mutation.PartitionUpdate) int64 {
	var n int64
	for i := range u.Rows {
		r := &u.Rows[i]
		for _, v := range r.Clustering {
			n += int64(len(v))
		}
		for j := range r.Cells {
			n += cellDataSize(&r.Cells[j])
		}
	}
	return n
}

// tableSet formats table names as Java prints a Set<String>.
func tableSet(names map[string]bool) string {
	list := make([]string, 0, len(names))
	for n := range names {
		list = append(list, n)
	}
	sort.Strings(list)
	return "[" + strings.Join(list, ", ") + "]"
}

// checkBatch runs BatchStatement.verifyBatchSize and verifyBatchType (and
// the gc_grace_seconds warning of logged batches) over the updates of a
// batch about to be applied, and returns the client warnings, or the error
// that rejects the batch.
func (e *Executor) checkBatch(typ cql.BatchType, tables []batchTable) ([]string, error) {
	var warns []string
	if typ == cql.LoggedBatch {
		zero := map[string]bool{}
		for _, bt := range tables {
			if bt.t.Params.GCGraceSeconds == 0 {
				zero[tableString(bt.t)] = true
			}
		}
		if len(zero) > 0 {
			suffix := ""
			if len(zero) > 1 {
				suffix = "s"
			}
			warns = append(warns, "Executing a LOGGED BATCH on table"+suffix+" "+tableSet(zero)+
				", configured with a gc_grace_seconds of 0. The gc_grace_seconds is used to TTL batchlog entries, "+
				"so setting gc_grace_seconds too low on tables involved in an atomic batch might cause batchlog "+
				"entries to expire before being replayed.")
		}
	}
	// One mutation per keyspace and partition key, as Cassandra groups
	// them.
	mutations := map[string]bool{}
	keys := map[string]bool{}
	names := map[string]bool{}
	var size int64
	for _, bt := range tables {
		for _, u := range bt.ups {
			mutations[bt.t.Keyspace+"\x00"+string(u.Key)] = true
			keys[string(u.Key)] = true
			names[tableString(bt.t)] = true
			size += updateDataSize(u)
		}
	}
	if len(mutations) <= 1 {
		return warns, nil
	}
	warn, fail := e.cfg.BatchSizeWarnThreshold, e.cfg.BatchSizeFailThreshold
	if warn == 0 {
		warn = DefaultBatchSizeWarnThreshold
	}
	if fail == 0 {
		fail = DefaultBatchSizeFailThreshold
	}
	if warn >= 0 && size > warn {
		if fail >= 0 && size > fail {
			e.cfg.Logger.Error("Batch too large", "tables", tableSet(names), "size", size, "threshold", fail)
			return nil, cqlerr.Invalidf("Batch too large")
		}
		warns = append(warns, "Batch for "+tableSet(names)+" is of size "+strconv.FormatInt(size, 10)+
			", exceeding specified threshold of "+strconv.FormatInt(warn, 10)+" by "+strconv.FormatInt(size-warn, 10)+".")
	}
	across := e.cfg.UnloggedBatchAcrossPartitionsWarnThreshold
	if across == 0 {
		across = DefaultUnloggedBatchAcrossPartitionsWarnThreshold
	}
	if typ != cql.LoggedBatch && across >= 0 && len(keys) > across {
		suffix := ""
		if len(names) > 1 {
			suffix = "s"
		}
		warns = append(warns, "Unlogged batch covering "+strconv.Itoa(len(keys))+" partitions detected against table"+
			suffix+" "+tableSet(names)+". You should use a logged batch for atomicity, or asynchronous writes for performance.")
	}
	return warns, nil
}
