package query

import (
	"bytes"
	"context"
	"math"
	"slices"

	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/mutation"
	"github.com/cqld/cqld/internal/tracing"
)

// reader runs the reads of one SELECT page.
type reader struct {
	e            *Executor
	ctx          context.Context
	p            *selectPlan
	cl           Consistency
	slices       []mutation.Slice
	vals         []Value
	nowSec       int64
	perPartition int32
}

// rangeBatch is how many partitions a filtered range read fetches at once.
const rangeBatch = 128

func (r *reader) fetch(cmd *mutation.ReadCommand) ([]mutation.Partition, error) {
	cmd.TableID = r.p.table.ID
	cmd.NowSec = r.nowSec
	cmd.Reversed = r.p.reversed
	if t := r.p.table; t.Virtual {
		if cmd.Key != nil {
			tracing.ReadPartition(r.ctx, t.Name)
		} else {
			tracing.ReadRange(r.ctx, cmd.StartToken, cmd.EndToken)
		}
		ps, err := r.e.virtualRead(t, cmd)
		if err == nil && tracing.FromContext(r.ctx) != nil {
			tracing.ReadDone(r.ctx, mutation.LiveRows(ps), 0, false)
		}
		return ps, err
	}
	parts, err := r.e.cfg.Coordinator.Read(r.ctx, r.p.table, r.cl, cmd)
	return dropShadowed(r.p.table, parts), err
}

// selectsNoRow reports whether the clustering restrictions select no row
// (an empty IN list): there is nothing to read.
func (r *reader) selectsNoRow() bool { return noSlices(r.slices) }

// noSlices reports whether clustering slices select no row: an empty list
// (nil means the whole partition).
func noSlices(slices []mutation.Slice) bool { return slices != nil && len(slices) == 0 }

// read returns up to want rows starting at ps (nil: from the start), and
// the paging state to continue from (nil when done).
func (r *reader) read(ps *pagingState, want int) ([]outRow, *pagingState, error) {
	if r.p.pk != nil {
		return r.readPartitions(ps, want)
	}
	if r.selectsNoRow() {
		// Not a scan (of the table or an index) that returns nothing.
		return nil, nil, nil
	}
	if r.p.index != nil {
		return r.readIndex(ps, want)
	}
	return r.readRange(ps, want)
}

// collect appends the rows of a partition that pass the filters; it stops at
// want rows and reports the paging state when it does.
func (r *reader) collect(rows []outRow, part *mutation.Partition, already int32, want int) ([]outRow, *pagingState, error) {
	p := r.p
	t := p.table
	key, err := mutation.SplitCompositeKey(part.Key, len(t.PartitionKey))
	if err != nil {
		return rows, nil, cqlerr.Serverf("corrupt partition key: %v", err)
	}
	var static []mutation.Cell
	if part.Static != nil {
		static = part.Static.Cells
	}
	in := already
	emit := func(row outRow) (bool, error) {
		ok, err := r.matches(&row)
		if err != nil || !ok {
			return false, err
		}
		rows = append(rows, row)
		in++
		return true, nil
	}
	noClusteringRestriction := len(p.ck) == 0 && p.ckSlice == nil && p.ckTuple == nil
	if len(part.Rows) == 0 || p.distinct {
		if (part.Static != nil || p.distinct) && noClusteringRestriction && in < r.perPartition && already == 0 {
			if _, err := emit(outRow{key: key, token: part.Token, static: static}); err != nil {
				return rows, nil, err
			}
			if len(rows) >= want {
				return rows, &pagingState{partitionKey: part.Key, inPartition: in}, nil
			}
		}
		return rows, nil, nil
	}
	// Room for the partition's rows (up to those still wanted, those the
	// per-partition limit leaves, and 1024: a filter may keep few of
	// them), doubling at least.
	if n := min(len(part.Rows), want-len(rows), int(r.perPartition-in), 1024); n > cap(rows)-len(rows) {
		rows = slices.Grow(rows, max(n, len(rows)))
	}
	for i := range part.Rows {
		if in >= r.perPartition {
			break
		}
		row := &part.Rows[i]
		ok, err := emit(outRow{key: key, token: part.Token, clustering: row.Clustering, cells: row.Cells, static: static})
		if err != nil {
			return rows, nil, err
		}
		if ok && len(rows) >= want {
			next := &pagingState{partitionKey: part.Key, clustering: row.Clustering, inPartition: in}
			if len(t.Clustering) == 0 {
				next.clustering = nil // the partition's only row: it is finished
			}
			return rows, next, nil
		}
	}
	return rows, nil, nil
}

// partitionLimit is the per-partition limit a read command may leave to
// the storage engine, already rows of the partition being counted: none
// when filters drop some rows of a partition after the read, as PER
// PARTITION LIMIT counts the rows that pass them (collect stops at the
// limit). Filters on the partition key or static columns keep or drop a
// partition's rows together.
func (r *reader) partitionLimit(already int32) int {
	if r.perPartition == math.MaxInt32 || r.p.rowFiltered {
		return 0
	}
	return int(r.perPartition - already)
}

func (r *reader) readPartitions(ps *pagingState, want int) ([]outRow, *pagingState, error) {
	t := r.p.table
	keys, err := r.p.partitionKeys(r.vals)
	if err != nil || r.selectsNoRow() {
		// The keys are checked (null, unset, too long) first, as
		// Cassandra's getSliceCommands does.
		return nil, nil, err
	}
	start := 0
	if ps != nil {
		start = -1
		for i, k := range keys {
			if bytes.Equal(k, ps.partitionKey) {
				start = i
				break
			}
		}
		if start < 0 {
			return nil, nil, cqlerr.Protocolf("Invalid value for the paging state")
		}
	}
	var rows []outRow
	for i := start; i < len(keys); i++ {
		slices := r.slices
		already := int32(0)
		if ps != nil && i == start {
			if ps.clustering == nil {
				continue // that partition was finished
			}
			if slices == nil {
				slices = []mutation.Slice{mutation.FullSlice}
			}
			slices = slicesAfter(t, slices, ps.clustering, r.p.reversed)
			if len(slices) == 0 {
				continue
			}
			already = ps.inPartition
		}
		cmd := &mutation.ReadCommand{Key: keys[i], Token: r.e.tokenOf(t, keys[i]), Slices: slices}
		if len(r.p.filters) == 0 && want != math.MaxInt32 {
			cmd.RowLimit = want - len(rows)
		}
		cmd.PerPartitionLimit = r.partitionLimit(already)
		parts, err := r.fetch(cmd)
		if err != nil {
			return nil, nil, err
		}
		for j := range parts {
			var next *pagingState
			rows, next, err = r.collect(rows, &parts[j], already, want)
			if err != nil {
				return nil, nil, err
			}
			if next != nil {
				if next.clustering == nil && i == len(keys)-1 {
					return rows, nil, nil
				}
				return rows, next, nil
			}
		}
	}
	return rows, nil, nil
}

func (r *reader) readRange(ps *pagingState, want int) ([]outRow, *pagingState, error) {
	p := r.p
	t := p.table
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	if p.tokenLower != nil {
		v, err := evalTokenBound(p.tokenLower, r.vals)
		if err != nil {
			return nil, nil, err
		}
		lo = v
		if p.tokenLowerIncl && lo > math.MinInt64 {
			lo-- // ranges are (start, end]
		}
	}
	if p.tokenUpper != nil {
		v, err := evalTokenBound(p.tokenUpper, r.vals)
		if err != nil {
			return nil, nil, err
		}
		hi = v
		if !p.tokUpIncl {
			if hi == math.MinInt64 {
				return nil, nil, nil
			}
			hi--
		}
	}
	if hi <= lo {
		// Cassandra answers an empty result rather than wrapping around.
		return nil, nil, nil
	}
	var rows []outRow
	var startKey []byte
	startTok := lo
	if ps != nil {
		tok := r.e.tokenOf(t, ps.partitionKey)
		if ps.clustering != nil {
			slices := r.slices
			if slices == nil {
				slices = []mutation.Slice{mutation.FullSlice}
			}
			slices = slicesAfter(t, slices, ps.clustering, p.reversed)
			if len(slices) > 0 {
				cmd := &mutation.ReadCommand{Key: ps.partitionKey, Token: tok, Slices: slices}
				cmd.PerPartitionLimit = r.partitionLimit(ps.inPartition)
				parts, err := r.fetch(cmd)
				if err != nil {
					return nil, nil, err
				}
				for j := range parts {
					var next *pagingState
					rows, next, err = r.collect(rows, &parts[j], ps.inPartition, want)
					if err != nil {
						return nil, nil, err
					}
					if next != nil {
						return rows, next, nil
					}
				}
			}
		}
		// The engine resumes after StartKey; StartToken is its token.
		startKey = ps.partitionKey
		startTok = tok
	}
	for {
		cmd := &mutation.ReadCommand{StartToken: startTok, EndToken: hi, StartKey: startKey, Slices: r.slices}
		cmd.PerPartitionLimit = r.partitionLimit(0)
		// The engine counts a partition returned with only its static row
		// as a row, which yields no row here when clustering columns are
		// restricted: such reads go by partition batches instead.
		rowLimited := len(p.filters) == 0 && !p.distinct && want != math.MaxInt32 && r.slices == nil
		if rowLimited {
			cmd.RowLimit = want - len(rows)
		} else {
			cmd.PartitionLimit = rangeBatch
		}
		parts, err := r.fetch(cmd)
		if err != nil {
			return nil, nil, err
		}
		for j := range parts {
			var next *pagingState
			rows, next, err = r.collect(rows, &parts[j], 0, want)
			if err != nil {
				return nil, nil, err
			}
			if next != nil {
				return rows, next, nil
			}
		}
		if rowLimited || len(parts) < rangeBatch {
			return rows, nil, nil
		}
		last := parts[len(parts)-1]
		startKey = last.Key
		startTok = last.Token
	}
}
