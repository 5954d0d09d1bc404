package query

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"sort"

	"github.com/cqld/cqld/internal/cql"
	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/mutation"
	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/types"
)

// Vector search: SELECT ... [WHERE ...] ORDER BY v ANN OF [..] LIMIT n on a
// vector<float, n> column with a storage-attached index.
//
// Cassandra 5.0 answers it from an approximate nearest-neighbour graph
// (jvector). cqld scores by brute force instead: it reads every row the
// query's other restrictions select (a partition, an index lookup, a
// filtered scan), scores each row that has a vector with the index's
// similarity function, and returns the LIMIT best, best first. That is the
// exact top-k, which an approximate index only tends to; equal scores keep
// the rows' read order (token, partition key, clustering), so results are
// deterministic. The cost is a read of every candidate row, which is fine
// for the data of a single node and a LIMIT of at most 1000.
//
// As in Cassandra, an ANN query is never paged (the whole LIMIT is one
// page), runs at ONE or LOCAL_ONE (higher levels are downgraded with a
// warning; serial levels are refused) and takes neither aggregates, GROUP
// BY nor PER PARTITION LIMIT.

// Cassandra's messages (StatementRestrictions, SelectStatement,
// StorageAttachedIndex).
const (
	annRequiresIndexMessage            = "ANN ordering by vector requires the column to be indexed"
	vectorIndexesAnnOnlyMessage        = "Vector indexes only support ANN queries"
	annOnlySupportedOnVectorMessage    = "ANN ordering is only supported on float vector indexes"
	annRequiresIndexedFilteringMessage = "ANN ordering by vector requires all restricted column(s) to be indexed"
	topKConsistencyLevelError          = "Top-K queries can only be run with consistency level ONE/LOCAL_ONE. Consistency level %s was used."
	topKLimitError                     = "Top-K queries must have a limit specified and the limit must be less than the query page size"
	topKPartitionLimitError            = "Top-K queries do not support per-partition limits"
	topKAggregationError               = "Top-K queries can not be run with aggregation"
	topKConsistencyLevelWarning        = "Top-K queries can only be run with consistency level ONE / LOCAL_ONE / NODE_LOCAL. Consistency level %s was requested. Downgrading the consistency level to %s."
	topKPageSizeWarning                = "Top-K queries do not support paging and the page size is set to %d, which is less than LIMIT %d. The page size has been set to %d to match the LIMIT."
	annLimitError                      = "Use of ANN OF in an ORDER BY clause requires a LIMIT that is not greater than %d. LIMIT was %d"
	zeroVectorCosineError              = "Zero vectors cannot be indexed or queried with cosine similarity"
	// maxTopK is SAI_VECTOR_SEARCH_MAX_TOP_K's default.
	maxTopK = 1000
)

// annPlan is the ANN ordering of a SELECT.
type annPlan struct {
	col *schema.Column
	// ix is the vector index of col (set by checkAnnRestrictions).
	ix *schema.Index
	// value evaluates the query vector.
	value termFn
}

// bindAnnOrdering binds the orderings of a SELECT that has an ANN
// ordering, as Cassandra does before it looks at the WHERE clause: every
// ordered column must exist and the ANN OF term must be a value of the
// column's type. It sets p.ann to the first ANN ordering.
func (c *compiled) bindAnnOrdering(p *selectPlan, st *cql.Select, now nowFunc) error {
	hasAnn := false
	for _, o := range st.OrderBy {
		if o.Ann != nil {
			hasAnn = true
		}
	}
	if !hasAnn {
		return nil
	}
	t := p.table
	for _, o := range st.OrderBy {
		col := t.Column(o.Column)
		if col == nil {
			return cqlerr.Invalidf("Undefined column name %s in table %s.%s", o.Column, t.Keyspace, t.Name)
		}
		if o.Ann == nil || p.ann != nil {
			continue
		}
		f, err := c.compileTerm(o.Ann, spec(t, col.Name, col.Type), now)
		if err != nil {
			return err
		}
		p.ann = &annPlan{col: col, value: f}
	}
	return nil
}

// checkAnnRestrictions applies Cassandra's rules to a SELECT with an ANN
// ordering (StatementRestrictions.addOrderingRestrictions and the ANN
// checks of its constructor): one ANN ordering and no other, ascending; a
// float vector column with an index, not otherwise restricted; a partition
// key restricted fully or not at all; and every other restricted column
// indexed, except clustering columns that select a slice of fully
// restricted partitions.
func (p *selectPlan) checkAnnRestrictions(st *cql.Select, pk, ck []*keyVals, ckSlices []*sliceTerms, pkSlice bool) error {
	t := p.table
	n := 0
	for _, o := range st.OrderBy {
		if o.Ann != nil {
			n++
		}
	}
	if n > 1 {
		return cqlerr.Invalidf("Cannot specify more than one ANN ordering")
	}
	if len(st.OrderBy) > 1 {
		return cqlerr.Invalidf("ANN ordering does not support any other ordering")
	}
	if st.OrderBy[0].Desc {
		return cqlerr.Invalidf("Descending ANN ordering is not supported")
	}
	col := p.ann.col
	for _, f := range p.filters {
		if f.col == col {
			return cqlerr.Invalidf("%s cannot be restricted by more than one relation in an ANN ordering", col.Name)
		}
	}
	if col.Type.Kind != types.Vector || col.Type.Params[0].Kind != types.Float {
		return cqlerr.Invalidf(annOnlySupportedOnVectorMessage)
	}
	ixs := t.IndexesOn(col.Name)
	if len(ixs) == 0 {
		return cqlerr.Invalidf(annRequiresIndexMessage)
	}
	p.ann.ix = ixs[0]
	for _, ix := range ixs {
		if ix.SAI() {
			p.ann.ix = ix
			break
		}
	}
	pkAny, pkFull := false, !pkSlice
	for _, kv := range pk {
		if kv != nil {
			pkAny = true
		} else {
			pkFull = false
		}
	}
	if pkSlice || pkAny && !pkFull {
		return cqlerr.Invalidf(annRequiresIndexedFilteringMessage)
	}
	indexed := func(c *schema.Column) bool { return len(t.IndexesOn(c.Name)) > 0 }
	nonIndexed, nonClustering := false, false
	ckFiltering := clusteringNeedsFiltering(ck, ckSlices, p.ckTuple)
	for _, f := range p.filters {
		if f.col == nil {
			continue
		}
		switch f.col.Kind {
		case schema.Regular, schema.Static:
			if !indexed(f.col) {
				nonIndexed, nonClustering = true, true
			}
		case schema.Clustering:
			if f.op == cql.OpContains || f.op == cql.OpContainsKey || f.mapKey != nil {
				ckFiltering = true
			}
			if !indexed(f.col) {
				nonIndexed = true
			}
		}
	}
	var tuples []*tupleRestriction
	for _, kv := range ck {
		if kv != nil && kv.tuple != nil {
			tuples = append(tuples, kv.tuple)
		}
	}
	if p.ckTuple != nil {
		tuples = append(tuples, p.ckTuple)
	}
	for _, tr := range tuples {
		for _, c := range tr.cols {
			if !indexed(c) {
				nonIndexed = true
			}
		}
	}
	if nonIndexed && (nonClustering || !pkFull || ckFiltering) {
		return cqlerr.Invalidf(annRequiresIndexedFilteringMessage)
	}
	return nil
}

// clusteringNeedsFiltering reports whether clustering restrictions do not
// select slices of a partition: they are not equalities (or IN) on a
// prefix of the clustering columns followed by at most one slice.
func clusteringNeedsFiltering(ck []*keyVals, ckSlices []*sliceTerms, tuple *tupleRestriction) bool {
	n := 0
	for n < len(ck) && ck[n] != nil {
		n++
	}
	for i := n; i < len(ck); i++ {
		if ck[i] != nil {
			return true
		}
	}
	for _, s := range ckSlices {
		if s.col.Position != n || tuple != nil {
			return true
		}
	}
	return tuple != nil && tuple.start != n
}

// checkVectorIndexRestrictions rejects restrictions other than ANN
// ordering on indexed vector columns.
func checkVectorIndexRestrictions(t *schema.Table, filters []rowFilter) error {
	for _, f := range filters {
		if f.col != nil && !f.col.IsPrimaryKey() && f.col.Type.Kind == types.Vector && len(t.IndexesOn(f.col.Name)) > 0 {
			return cqlerr.Invalidf(vectorIndexesAnnOnlyMessage)
		}
	}
	return nil
}

// executeAnn runs a SELECT with an ANN ordering (see the comment at the
// top of this file).
func (e *Executor) executeAnn(ctx context.Context, c *compiled, opts *Options) (*Result, error) {
	p := c.sel
	t := p.table
	vals := opts.Values
	limit := int32(-1)
	if p.limit != nil {
		l, unset, err := evalInt32(p.limit, vals)
		if err != nil {
			return nil, err
		}
		if !unset {
			if l <= 0 {
				return nil, cqlerr.Invalidf("LIMIT must be strictly positive")
			}
			limit = l
		}
	}
	perPartitionLimit := false
	if p.perPartitionLimit != nil {
		l, unset, err := evalInt32(p.perPartitionLimit, vals)
		if err != nil {
			return nil, err
		}
		if !unset {
			if l <= 0 {
				return nil, cqlerr.Invalidf("PER PARTITION LIMIT must be strictly positive")
			}
			perPartitionLimit = true
		}
	}
	// SelectStatement.execute's checks of top-k queries, in its order.
	if p.aggregate || len(p.groupBy) > 0 {
		return nil, cqlerr.Invalidf(topKAggregationError)
	}
	cl := Consistency(opts.Consistency)
	switch cl {
	case Serial, LocalSerial:
		return nil, cqlerr.Invalidf(topKConsistencyLevelError, ConsistencyName(cl))
	case One, LocalOne, NodeLocal, Any:
		// Any: no level given (internal calls).
	default:
		downgrade := One
		if cl == LocalQuorum {
			downgrade = LocalOne
		}
		cqlerr.Warn(ctx, fmt.Sprintf(topKConsistencyLevelWarning, ConsistencyName(cl), ConsistencyName(downgrade)))
		cl = downgrade
	}
	if limit < 0 {
		return nil, cqlerr.Invalidf(topKLimitError)
	}
	if perPartitionLimit {
		return nil, cqlerr.Invalidf(topKPartitionLimitError)
	}
	if opts.PageSize > 0 && opts.PageSize < limit {
		cqlerr.Warn(ctx, fmt.Sprintf(topKPageSizeWarning, opts.PageSize, limit, limit))
	}
	if limit > maxTopK {
		return nil, cqlerr.Invalidf(annLimitError, maxTopK, limit)
	}
	ann := p.ann
	fn := ann.ix.SimilarityFunction()
	qv, unset, err := ann.value(vals)
	if err != nil {
		return nil, err
	}
	if unset {
		return nil, cqlerr.Invalidf("Invalid unset value for column %s", ann.col.Name)
	}
	if qv == nil {
		return nil, cqlerr.Invalidf("Invalid null value for column %s", ann.col.Name)
	}
	q, ok := decodeAnnVector(ann.col.Type, qv)
	if !ok {
		return nil, cqlerr.Invalidf("Invalid vector value for column %s", ann.col.Name)
	}
	if err := validateIndexable(qv, fn); err != nil {
		return nil, err
	}

	slices, err := p.slices(vals)
	if err != nil {
		return nil, err
	}
	if err := p.checkFilterValues(vals); err != nil {
		return nil, err
	}
	r := &reader{e: e, ctx: ctx, p: p, cl: cl, slices: slices, vals: vals,
		nowSec: e.now().Unix(), perPartition: math.MaxInt32}
	if opts.NowInSeconds > 0 {
		r.nowSec = int64(opts.NowInSeconds)
	}
	rows, _, err := r.read(nil, math.MaxInt32)
	if err != nil {
		return nil, err
	}
	type scored struct {
		row   int
		score float32
	}
	var best []scored
	for i := range rows {
		v, ok := decodeAnnVector(ann.col.Type, rows[i].value(t, ann.col))
		if !ok {
			continue // no vector: not in the index
		}
		s := annScore(fn, q, v)
		if math.IsNaN(float64(s)) {
			continue
		}
		best = append(best, scored{row: i, score: s})
	}
	sort.SliceStable(best, func(i, j int) bool { return best[i].score > best[j].score })
	if len(best) > int(limit) {
		best = best[:limit]
	}
	res := &Result{Kind: RowsResult, Columns: p.resultColumns}
	ctx0 := &evalCtx{t: t, nowSec: r.nowSec, vals: vals, now: e.now}
	if res.Rows, err = p.project(ctx0, len(best), func(i int) *outRow { return &rows[best[i].row] }); err != nil {
		return nil, err
	}
	return p.finish(res), nil
}

// decodeAnnVector decodes a vector<float, n> value; ok is false for null
// or malformed values.
func decodeAnnVector(t *types.Type, v []byte) ([]float32, bool) {
	if v == nil || len(v) != 4*t.Dimension {
		return nil, false
	}
	out := make([]float32, t.Dimension)
	for i := range out {
		out[i] = math.Float32frombits(binary.BigEndian.Uint32(v[4*i:]))
	}
	return out, true
}

// annScore is the similarity of an index's similarity_function, scaled to
// [0, 1] as jvector's VectorSimilarityFunction.compare does (higher is
// closer): COSINE (1 + cos) / 2, DOT_PRODUCT (1 + x·y) / 2, EUCLIDEAN
// 1 / (1 + |x - y|²). Sums are accumulated in float32 like jvector's.
func annScore(fn string, x, y []float32) float32 {
	switch fn {
	case "EUCLIDEAN":
		return vectorSimilarity("similarity_euclidean", x, y)
	case "DOT_PRODUCT":
		return vectorSimilarity("similarity_dot_product", x, y)
	}
	return vectorSimilarity("similarity_cosine", x, y)
}

// validateIndexable is OnHeapGraph.validateIndexable on an encoded float
// vector: a vector an index stores or is queried with has finite
// components (VectorUtil.checkFinite), and is not zero for cosine
// similarity. It reads the bits, so a write allocates nothing for it.
func validateIndexable(v []byte, similarity string) error {
	zero := true
	for i := 0; i+4 <= len(v); i += 4 {
		bits := binary.BigEndian.Uint32(v[i:])
		if bits&0x7f800000 == 0x7f800000 { // all exponent bits: NaN or infinite
			name, _ := types.NonFinite(float64(math.Float32frombits(bits)))
			return cqlerr.Invalidf("non-finite value at vector[%d]=%s", i/4, name)
		}
		if bits&0x7fffffff != 0 {
			zero = false
		}
	}
	if similarity == "COSINE" && zero {
		return cqlerr.Invalidf(zeroVectorCosineError)
	}
	return nil
}

// validateVectorWrites rejects writes of vectors a storage-attached vector
// index cannot index (validateIndexable): Cassandra validates the rows the
// index will index.
func validateVectorWrites(t *schema.Table, ups []*mutation.PartitionUpdate) error {
	type indexed struct {
		col        *schema.Column
		similarity string
	}
	var cols []indexed
	for _, ix := range t.Indexes {
		col := t.Column(ix.Column)
		if ix.SAI() && col != nil && col.Type.Kind == types.Vector && col.Type.Params[0].Kind == types.Float {
			cols = append(cols, indexed{col, ix.SimilarityFunction()})
		}
	}
	if len(cols) == 0 {
		return nil
	}
	check := func(cells []mutation.Cell) error {
		for ci := range cells {
			c := &cells[ci]
			for _, x := range cols {
				if c.Column != x.col.ID || c.Tombstone {
					continue
				}
				if len(c.Value) == 4*x.col.Type.Dimension {
					if err := validateIndexable(c.Value, x.similarity); err != nil {
						return err
					}
				}
			}
		}
		return nil
	}
	for _, up := range ups {
		if up.Static != nil {
			if err := check(up.Static.Cells); err != nil {
				return err
			}
		}
		for i := range up.Rows {
			if err := check(up.Rows[i].Cells); err != nil {
				return err
			}
		}
	}
	return nil
}
