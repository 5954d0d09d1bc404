package storage

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cqld/cqld/internal/mutation"
	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/tracing"
	"github.com/cqld/cqld/internal/types"
)

// Read implements Engine.
func (p *Pebble) Read(ctx context.Context, t *schema.Table, cmd *mutation.ReadCommand) ([]mutation.Partition, error) {
	ps, _, err := p.ReadWithInfo(ctx, t, cmd)
	return ps, err
}

// ReadInfo describes what a read scanned (for tombstone_warn_threshold and
// tombstone_failure_threshold).
type ReadInfo struct {
	// TombstonesScanned counts the deletions, cell tombstones and expired
	// cells the read went through, less those a partition, range or row
	// deletion already hides (pebbleReader.finishRow says how a row counts).
	TombstonesScanned int64
	// CellsScanned counts every stored entry the read went through.
	CellsScanned int64
	// LiveRows counts the rows returned (a partition returned with only its
	// static row counts as one).
	LiveRows int64
}

// ReadWithInfo is Read, also returning what the read scanned.
func (p *Pebble) ReadWithInfo(ctx context.Context, t *schema.Table, cmd *mutation.ReadCommand) ([]mutation.Partition, ReadInfo, error) {
	var info ReadInfo
	ts := p.stats.get(cmd.TableID)
	if cmd.Unmetered {
		ts = &p.unmetered
	}
	lat := &ts.point
	if cmd.Key == nil {
		lat = &ts.scan
	}
	start := lat.StartSampled()
	ps, err := p.read(ctx, t, cmd, &info, ts)
	lat.StopSampled(start)
	info.LiveRows = mutation.LiveRows(ps)
	ts.rowsRead.add(info.LiveRows)
	ts.tombstonesRead.add(info.TombstonesScanned)
	err = p.guard(ctx, t, cmd, &info, err)
	if err == nil {
		tracing.ReadDone(ctx, info.LiveRows, info.TombstonesScanned, p.overTombstoneWarn(&info))
	}
	return ps, info, err
}

func (p *Pebble) read(ctx context.Context, t *schema.Table, cmd *mutation.ReadCommand, info *ReadInfo, ts *tableStats) ([]mutation.Partition, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if cmd.TableID != [16]byte(t.ID) {
		return nil, fmt.Errorf("storage: read of table %x against table %s", cmd.TableID, t.ID)
	}
	r := readerPool.Get().(*pebbleReader)
	defer r.release()
	ranges, err := r.normalize(t, cmd.Slices)
	if err != nil {
		return nil, err
	}
	r.t, r.cmd, r.ranges, r.lim, r.stats = t, cmd, ranges, newLimits(cmd), ts
	// The reader counts into its own ReadInfo (info stays on the caller's
	// stack).
	r.info = &r.infoBuf
	defer func() { *info = r.infoBuf }()
	r.failAt = p.failAt()
	r.large = p.large
	r.whole = len(ranges) == 1 && len(ranges[0].lo) == 0 && ranges[0].hiInf && !cmd.StaticOnly
	if cmd.Key != nil {
		// What a single-partition read returns comes from one allocation
		// as long as it fits (pointAlloc).
		pa := new(pointAlloc)
		r.out, r.rowBuf, r.clusBuf, r.cellBuf, r.arena = pa.part[:0], pa.row[:0], pa.clus[:0], pa.cells[:0], pa.arena[:0]
		// The bounds live in the reader's buffers until after it.Close.
		pp := appendPartitionPrefix(r.ppBuf[:0], cmd.TableID, cmd.Token, cmd.Key)
		r.ppBuf = pp
		upper, ok := prefixEndInPlace(append(r.upBuf[:0], pp...))
		r.upBuf = upper
		if !ok {
			upper = nil
		}
		r.iterOpts = pebble.IterOptions{LowerBound: pp, UpperBound: upper}
		if p.pc != nil {
			handled, err := p.readCached(ctx, r, cmd, pp)
			if handled {
				if err != nil || len(r.out) == 0 {
					return nil, err
				}
				return r.out, nil
			}
		}
		tracing.ReadPartition(ctx, t.Name)
		// A partition known to have no header and no static row
		// (hdrcache.go) is positioned once, at its rows; with one slice
		// the iterator is bounded to its rows (the step past the last row
		// ends at the bound), from the start when the cache already
		// knows the partition before the iterator exists.
		useHdr := !cmd.StaticOnly && len(ranges) > 0 && len(ranges[0].lo) > 0
		var e0 uint64
		narrowed := false
		if useHdr {
			e0 = p.hdr.epoch(cmd.Token)
			if len(ranges) == 1 && p.hdr.known(pp, e0) {
				r.iterOpts.LowerBound, r.iterOpts.UpperBound = r.rowBounds(pp, ranges[0])
				narrowed = true
			}
		}
		it, err := p.db.NewIter(&r.iterOpts)
		if err != nil {
			return nil, err
		}
		defer it.Close()
		if useHdr {
			// Trusted only with the epoch read after the iterator exists.
			if p.hdr.known(pp, p.hdr.epoch(cmd.Token)) {
				r.skipHeader = true
				if len(ranges) == 1 && !narrowed {
					it.SetBounds(r.rowBounds(pp, ranges[0]))
				}
			} else {
				if narrowed {
					it.SetBounds(pp, upper) // the partition again
				}
				r.recordHdr, r.hdrEpoch = p.hdr, e0
			}
		}
		// SeekPrefixGE consults the bloom filters (the comparer's Split is
		// the partition prefix): an absent partition costs no data block.
		if !r.skipHeader && !it.SeekPrefixGE(pp) {
			return nil, it.Error()
		}
		if err := r.readPartition(it, pp, r.copyBytes(cmd.Key), cmd.Token); err != nil {
			return nil, err
		}
		if len(r.out) == 0 {
			return nil, it.Error()
		}
		return r.out, it.Error()
	}

	tracing.ReadRange(ctx, cmd.StartToken, cmd.EndToken)
	tp := appendTablePrefix(nil, cmd.TableID)
	it, err := p.db.NewIter(&pebble.IterOptions{LowerBound: tp, UpperBound: prefixEnd(tp)})
	if err != nil {
		return nil, err
	}
	defer it.Close()
	for _, seg := range tokenSegments(tp, cmd) {
		pos := seg.lower
		for !r.lim.done() {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if !it.SeekGE(pos) {
				break
			}
			k := it.Key()
			if seg.upper != nil && bytes.Compare(k, seg.upper) >= 0 {
				break
			}
			n := partitionPrefixLen(k)
			if n == len(k) {
				return nil, fmt.Errorf("%w: %x", errCorrupt, k)
			}
			pp := bytes.Clone(k[:n])
			key := appendUnescaped([]byte{}, pp[pkOffset:])
			if err := r.readPartition(it, pp, key, decodeToken(pp[tokenOffset:])); err != nil {
				return nil, err
			}
			pos = prefixEnd(pp)
		}
	}
	return r.out, it.Error()
}

// readCached answers a single-partition read of partition pp from the
// partition cache (pcache.go), filling it on a miss; handled is false when
// the partition is too large to cache or being filled by another read (the
// caller reads Pebble).
func (p *Pebble) readCached(ctx context.Context, r *pebbleReader, cmd *mutation.ReadCommand, pp []byte) (handled bool, err error) {
	e, ok, ph := p.pc.lookup(pp)
	switch {
	case ok && !e.big:
		p.pc.hits.Add(1)
		tracing.Trace(ctx, tracing.ReadThread, "Row cache hit")
	case ph != nil:
		p.pc.misses.Add(1)
		tracing.Trace(ctx, tracing.ReadThread, "Row cache miss")
		if e, err = p.fillCached(r, pp, ph); err != nil {
			return true, err
		}
		if e.big {
			return false, nil // read from Pebble, which traces it
		}
		tracing.ReadPartition(ctx, r.t.Name)
	case !ok:
		// Another read is filling the partition.
		p.pc.misses.Add(1)
		tracing.Trace(ctx, tracing.ReadThread, "Row cache miss (race)")
		return false, nil
	default: // known to be too large to cache
		p.pc.misses.Add(1)
		return false, nil
	}
	// The part's bytes never change: a cached part's are in a chunk
	// (pcache.go), and a fill that was not published returns a copy of its
	// own (complete). Its values are returned as they are, not copied.
	r.stable = true
	// The iterator lives in the reader (no allocation for the interface).
	ei := &r.ei
	*ei = entryIter{e: e, kb: r.ckBuf[:0]}
	defer func() { r.ckBuf, ei.e = ei.kb, pcPart{} }()
	if !ei.SeekPrefixGE(pp) {
		return true, nil
	}
	return true, r.readPartition(ei, pp, r.copyBytes(cmd.Key), cmd.Token)
}

// fillCached reads partition pp for placeholder ph and publishes it.
func (p *Pebble) fillCached(r *pebbleReader, pp []byte, ph *pcFill) (pcPart, error) {
	it, err := p.db.NewIter(&r.iterOpts)
	if err != nil {
		p.pc.abandon(ph)
		return pcPart{}, err
	}
	err = p.pc.fill(it, pp, &r.fillBuf)
	if cerr := it.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		p.pc.abandon(ph)
		return pcPart{}, err
	}
	if p.pc.afterFill != nil {
		p.pc.afterFill()
	}
	return p.pc.complete(ph, pp, &r.fillBuf), nil
}

type keySegment struct{ lower, upper []byte } // upper nil: end of table

// tokenSegments translates the (StartToken, EndToken] range of a range read,
// with its StartKey resume point, into at most two key ranges in ring order.
// EndToken == math.MinInt64 means "to the end of the ring"; a start at or
// after the end wraps around (with StartKey set, only a start strictly after
// the end wraps, so that paging can resume inside a range ending at the
// token of the last partition returned).
func tokenSegments(tp []byte, cmd *mutation.ReadCommand) []keySegment {
	after := func(tok int64) []byte { // first key with a token > tok
		if tok == math.MaxInt64 {
			return nil
		}
		return appendToken(bytes.Clone(tp), tok+1)
	}
	var lower []byte
	if cmd.StartKey != nil {
		lower = appendPartitionPrefix(nil, cmd.TableID, cmd.StartToken, cmd.StartKey)
		if !cmd.StartInclusive {
			lower = prefixEnd(lower)
		}
	} else if cmd.StartToken == math.MinInt64 {
		// The start of the ring, where the empty partition key lives
		// (its token is the minimum, which no other key has).
		lower = tp
	} else if lower = after(cmd.StartToken); lower == nil {
		lower = prefixEnd(tp) // nothing after MaxToken: empty first segment
	}
	wraps := cmd.EndToken != math.MinInt64 &&
		(cmd.StartToken > cmd.EndToken || (cmd.StartKey == nil && cmd.StartToken == cmd.EndToken))
	if cmd.EndToken == math.MinInt64 || wraps {
		segs := []keySegment{{lower: lower}}
		if wraps {
			segs = append(segs, keySegment{lower: tp, upper: after(cmd.EndToken)})
		}
		return segs
	}
	return []keySegment{{lower: lower, upper: after(cmd.EndToken)}}
}

// limits tracks the DataLimits of a read. A partition returned with only
// its static row counts as one row (Cassandra's CQL counter does the same
// for SELECT *); with StaticOnly every partition counts as one row.
type limits struct {
	rowsLeft, partsLeft, perPartition int
}

func newLimits(cmd *mutation.ReadCommand) limits {
	l := limits{rowsLeft: math.MaxInt, partsLeft: math.MaxInt, perPartition: math.MaxInt}
	if cmd.RowLimit > 0 {
		l.rowsLeft = cmd.RowLimit
	}
	if cmd.PartitionLimit > 0 {
		l.partsLeft = cmd.PartitionLimit
	}
	if cmd.PerPartitionLimit > 0 {
		l.perPartition = cmd.PerPartitionLimit
	}
	return l
}

func (l *limits) done() bool { return l.rowsLeft <= 0 || l.partsLeft <= 0 }

// rowBudget is how many rows the next partition may return.
func (l *limits) rowBudget(staticOnly bool) int {
	if staticOnly {
		return 1
	}
	return min(l.rowsLeft, l.perPartition)
}

// add accounts for a partition and reports whether it is returned.
func (l *limits) add(p *mutation.Partition, hasLiveRow, staticOnly bool) bool {
	if p.Static == nil && !hasLiveRow {
		return false
	}
	l.partsLeft--
	switch {
	case staticOnly || len(p.Rows) == 0:
		l.rowsLeft--
	default:
		l.rowsLeft -= len(p.Rows)
	}
	return true
}

type rangeTombstone struct {
	r   byteRange
	del mutation.Deletion
}

type pebbleReader struct {
	t      *schema.Table
	cmd    *mutation.ReadCommand
	ranges []byteRange
	lim    limits
	out    []mutation.Partition

	// Per-partition state, reused.
	pd  mutation.Deletion
	rts []rangeTombstone
	acc rowAcc
	// budget is the number of rows the current partition may still return;
	// rows collects them.
	budget int
	rows   []mutation.Row
	live   bool // a live row was seen (StaticOnly)

	arena []byte
	// stable is set when the iterator's values outlive the read (a cached
	// partition's): keep returns them without copying.
	stable bool
	// rowBuf, clusBuf and cellBuf, when not nil, are the room of a
	// pointAlloc for the rows, clustering values and cells returned.
	rowBuf  []mutation.Row
	clusBuf [][]byte
	cellBuf []mutation.Cell
	kbuf    []byte
	pbuf    []byte
	rbuf    []byte // readRows' key bounds

	// Statistics (stats.go): whole is set when the read selects every row.
	stats *tableStats
	info  *ReadInfo
	whole bool
	scan  partitionScan
	// failAt is the tombstone failure threshold (guardrail.go).
	failAt int64
	// large checks the partition guardrails (nil: none set).
	large   *partitionGuard
	infoBuf ReadInfo

	// Header cache (hdrcache.go): skipHeader when the partition is known
	// to have no header (the iterator starts unpositioned); otherwise
	// recordHdr, when set, records its absence at hdrEpoch.
	skipHeader bool
	recordHdr  *hdrCache
	hdrEpoch   uint64

	// Scratch of a single-partition read: the iterator's bounds and
	// options, the slices' encoded bounds.
	ppBuf, upBuf []byte
	ckBuf        []byte    // the cached partition iterator's keys
	ei           entryIter // the cached partition iterator (pcache.go)
	fillBuf      pcBuilder // room for building a cache entry (partitionCache.fill)
	bndBuf       []byte
	iterOpts     pebble.IterOptions
	sbuf         []byte
	rangeBuf     []byteRange
}

// rowBounds returns iterator bounds over the rows of partition pp in the
// range rg (in the reader's bound buffer, which must live until the
// iterator is closed).
func (r *pebbleReader) rowBounds(pp []byte, rg byteRange) (lo, hi []byte) {
	b := append(append(append(r.bndBuf[:0], pp...), kindRow), rg.lo...)
	n := len(b)
	if rg.hiInf {
		b = append(append(b, pp...), kindRow+1)
	} else {
		b = append(append(append(b, pp...), kindRow), rg.hi...)
	}
	r.bndBuf = b
	return b[:n:n], b[n:]
}

// normalize is normalizeSlices without allocating for no slice or one slice
// (the bounds go to the reader's scratch buffers).
func (r *pebbleReader) normalize(t *schema.Table, slices []mutation.Slice) ([]byteRange, error) {
	switch {
	case slices == nil:
		r.rangeBuf = append(r.rangeBuf[:0], byteRange{lo: []byte{}, hiInf: true})
		return r.rangeBuf, nil
	case len(slices) == 1:
		rg, buf, err := sliceRangeInto(r.sbuf[:0], t, slices[0])
		r.sbuf = buf
		if err != nil {
			return nil, err
		}
		r.rangeBuf = r.rangeBuf[:0]
		if !rg.empty() {
			r.rangeBuf = append(r.rangeBuf, rg)
		}
		return r.rangeBuf, nil
	}
	return normalizeSlices(t, slices)
}

// tombstone counts a scanned tombstone and stops the read past the
// failure threshold.
func (r *pebbleReader) tombstone() error {
	r.scan.tombstones++
	if r.info.TombstonesScanned+r.scan.tombstones > r.failAt {
		r.info.TombstonesScanned += r.scan.tombstones
		r.scan.tombstones = 0
		return errTombstoneOverwhelming
	}
	return nil
}

// pointAlloc holds, in one allocation, what a single-partition read
// returns when it is one row with up to pointClustering clustering values,
// pointCells cells and a few bytes of keys and values (anything more is
// allocated apart): five allocations fewer for the common point read.
type pointAlloc struct {
	part  [1]mutation.Partition
	row   [1]mutation.Row
	clus  [pointClustering][]byte
	cells [pointCells]mutation.Cell
	arena [128]byte
}

// carve returns n zero elements from the spare capacity of *buf (capped,
// so that appends to them never overwrite what follows). When they do not
// fit, *buf becomes a new chunk with room for them and for more rows of the
// same read, twice the previous one up to carveMax elements: one
// allocation per row for its clustering and one for its cells made 50-row
// slices allocate 100 times (BenchmarkSliceRead).
func carve[T any](buf *[]T, n int) []T {
	b := *buf
	if l := len(b); n <= cap(b)-l {
		*buf = b[:l+n]
		return b[l : l+n : l+n]
	}
	b = make([]T, n, max(n, min(2*cap(b), carveMax)))
	*buf = b
	return b[:n:n]
}

// carveMax bounds the chunks of carve (elements).
const carveMax = 256

// smallLimit is the largest row budget a single-partition read sizes its
// rows for at once (emitRow).
const smallLimit = 64

// pointCells is how many cells of a point read's row pointAlloc holds.
const pointCells = 2

const pointClustering = 3

// readerPool recycles the scratch buffers of readers (never what a read
// returns: out, rows and arena are handed to the caller).
var readerPool = sync.Pool{New: func() any { return new(pebbleReader) }}

func (r *pebbleReader) release() {
	if cap(r.kbuf)+cap(r.pbuf)+cap(r.rbuf)+cap(r.acc.enc)+cap(r.ppBuf)+cap(r.upBuf)+cap(r.sbuf)+cap(r.bndBuf)+cap(r.ckBuf)+cap(r.fillBuf.data)+4*cap(r.fillBuf.ends) > 64<<10 ||
		cap(r.acc.cells) > 1024 || cap(r.acc.dead) > 1024 || cap(r.rts) > 1024 || cap(r.rangeBuf) > 64 {
		return
	}
	// The cells' values may point into the partition cache's chunks: a
	// pooled reader must not keep chunks that were compacted or evicted
	// (reset clears each row's cells before the next; these are the last
	// row's).
	clear(r.acc.cells)
	*r = pebbleReader{
		rts:  r.rts[:0],
		kbuf: r.kbuf[:0], pbuf: r.pbuf[:0], rbuf: r.rbuf[:0],
		acc:   rowAcc{enc: r.acc.enc[:0], cells: r.acc.cells[:0], dead: r.acc.dead[:0]},
		ppBuf: r.ppBuf[:0], upBuf: r.upBuf[:0], ckBuf: r.ckBuf[:0], sbuf: r.sbuf[:0], rangeBuf: r.rangeBuf[:0], bndBuf: r.bndBuf[:0],
		fillBuf: pcBuilder{data: r.fillBuf.data[:0], ends: r.fillBuf.ends[:0]},
	}
	readerPool.Put(r)
}

// rowAcc accumulates the stored entries of one row.
type rowAcc struct {
	active     bool
	enc        []byte // encoded clustering (owned)
	clustering [][]byte
	marker     mutation.Liveness
	del        mutation.Deletion
	cells      []mutation.Cell
	// dead holds the timestamps of the row's cells that are not live
	// (tombstones and expired cells, collection deletions aside): they are
	// counted as tombstones once the row's deletions are known.
	dead []int64
	// written is the clustering as written (slotWritten), when stored.
	written    mutation.Cell
	hasWritten bool
}

func (a *rowAcc) reset() {
	a.active = false
	a.enc = a.enc[:0]
	a.clustering = nil
	a.marker = mutation.NoLiveness
	a.del = mutation.Live
	clear(a.cells) // no pointers left past len (release)
	a.cells = a.cells[:0]
	a.dead = a.dead[:0]
	a.hasWritten = false
}

// copyBytes copies b into the read's arena: one allocation per 256 B-64 KiB of
// returned values instead of one per cell.
func (r *pebbleReader) copyBytes(b []byte) []byte {
	if len(b) == 0 {
		return []byte{}
	}
	r.reserve(len(b))
	start := len(r.arena)
	r.arena = append(r.arena, b...)
	return r.arena[start:len(r.arena):len(r.arena)]
}

// keep returns value b of the iterator for the read's result: b itself
// when the iterator's values outlive the read (capped, so that an append
// to it cannot write past it), else a copy in the arena.
func (r *pebbleReader) keep(b []byte) []byte {
	if r.stable && len(b) > 0 {
		return slices.Clip(b)
	}
	return r.copyBytes(b)
}

// reserve makes room for n more bytes in the arena (a new chunk when they
// do not fit: what was handed out stays where it is).
func (r *pebbleReader) reserve(n int) {
	if cap(r.arena)-len(r.arena) < n {
		size := min(max(2*cap(r.arena), 256), 64<<10)
		r.arena = make([]byte, 0, max(size, n))
	}
}

// readPartition reads one partition whose keys start with pp and appends it
// to r.out when it has live data. The iterator must be positioned at the
// partition's first key.
func (r *pebbleReader) readPartition(it kvIter, pp, key []byte, tok int64) error {
	r.scan = partitionScan{}
	if r.skipHeader {
		// Known to have no header; the iterator is not positioned yet
		// (readRows seeks).
		r.pd = mutation.Live
		r.rts = r.rts[:0]
	} else {
		if err := r.readHeader(it, pp); err != nil {
			return err
		}
	}
	noHeader := r.pd.IsLive() && len(r.rts) == 0
	part := mutation.Partition{Key: key, Token: tok}
	if r.t.HasStatics() && !r.skipHeader {
		n := r.scan.cells
		row, err := r.readStatic(it, pp)
		if err != nil {
			return err
		}
		part.Static = row
		noHeader = noHeader && r.scan.cells == n // no static entry either
	}
	if r.recordHdr != nil && noHeader {
		r.recordHdr.record(pp, r.hdrEpoch)
	}
	r.budget = r.lim.rowBudget(r.cmd.StaticOnly)
	r.rows = r.rowBuf[:0:cap(r.rowBuf)]
	r.rowBuf = nil // one partition only
	r.live = false
	if r.budget > 0 {
		if err := r.readRows(it, pp); err != nil {
			return err
		}
	}
	if !r.cmd.StaticOnly && len(r.rows) > 0 {
		part.Rows = r.rows
	}
	r.stats.record(&r.scan, r.whole && r.budget > 0)
	if r.large != nil {
		r.large.check(r.t, key, &r.scan)
	}
	r.info.TombstonesScanned += r.scan.tombstones
	r.info.CellsScanned += r.scan.cells
	if r.lim.add(&part, r.live, r.cmd.StaticOnly) {
		r.out = append(r.out, part)
	}
	return nil
}

func (r *pebbleReader) readHeader(it kvIter, pp []byte) error {
	r.pd = mutation.Live
	r.rts = r.rts[:0]
	lower := append(append(r.kbuf[:0], pp...), kindHeader)
	r.kbuf = lower
	// The iterator is at the partition's first key: no seek.
	for valid := it.Valid(); valid; valid = it.Next() {
		k := it.Key()
		if !bytes.HasPrefix(k, lower) {
			break
		}
		v, err := it.ValueAndErr()
		if err != nil {
			return err
		}
		d, ok := decodeDeletionValue(v)
		if !ok || len(k) <= len(lower) {
			return fmt.Errorf("%w: header entry %x", errCorrupt, k)
		}
		r.scan.bytes += int64(len(k) + len(v))
		r.scan.cells++
		if err := r.tombstone(); err != nil {
			return err
		}
		switch k[len(lower)] {
		case headerPartitionDeletion:
			r.pd = mutation.MaxDeletion(r.pd, d)
		case headerRangeTombstone:
			rg, err := decodeRangeTombstoneKey(k[len(lower)+1:])
			if err != nil {
				return err
			}
			r.rts = append(r.rts, rangeTombstone{r: rg, del: d})
		default:
			return fmt.Errorf("%w: header entry %x", errCorrupt, k)
		}
	}
	return nil
}

func (r *pebbleReader) readStatic(it kvIter, pp []byte) (*mutation.Row, error) {
	lower := append(append(r.kbuf[:0], pp...), kindStatic)
	r.kbuf = lower
	r.acc.reset()
	r.acc.active = true
	// The iterator is at the first key after the header: no seek.
	for valid := it.Valid(); valid; valid = it.Next() {
		k := it.Key()
		if !bytes.HasPrefix(k, lower) {
			break
		}
		if err := r.addEntry(it, k[len(lower):]); err != nil {
			return nil, err
		}
	}
	if err := it.Error(); err != nil {
		return nil, err
	}
	row, ok, err := r.finishRow(false /* clustered */)
	if !ok || err != nil {
		return nil, err
	}
	rp := new(mutation.Row)
	*rp = row
	return rp, nil
}

// readRows reads the selected rows, slice by slice, until the budget is
// spent.
func (r *pebbleReader) readRows(it kvIter, pp []byte) error {
	// One buffer holds rowPrefix, rowEnd, lower and upper.
	buf := r.rbuf[:0]
	buf = append(append(buf, pp...), kindRow)
	rowPrefix := buf[:len(buf):len(buf)]
	buf = append(append(buf, pp...), kindRow+1) // kindRow < 0xFF
	rowEnd := buf[len(rowPrefix):len(buf):len(buf)]
	base := len(buf)
	n := len(r.ranges)
	for i := 0; i < n && r.budget > 0; i++ {
		rg := r.ranges[i]
		if r.cmd.Reversed {
			rg = r.ranges[n-1-i]
		}
		buf = append(append(buf[:base], rowPrefix...), rg.lo...)
		lower := buf[base:len(buf):len(buf)]
		upper := rowEnd
		if !rg.hiInf {
			n := len(buf)
			buf = append(append(buf, rowPrefix...), rg.hi...)
			upper = buf[n:len(buf):len(buf)]
		}
		r.rbuf = buf
		r.acc.reset()
		var valid bool
		switch {
		case r.cmd.Reversed:
			valid = it.SeekLT(upper)
		case r.skipHeader && i == 0:
			valid = it.SeekPrefixGE(lower)
		case it.Valid() && bytes.Compare(it.Key(), lower) >= 0:
			// Already there (the first slice starts at the first row, or
			// the previous slice ended past this one's start).
			valid = true
		default:
			valid = seekForward(it, lower)
		}
		for ; valid && r.budget > 0; valid = r.step(it) {
			k := it.Key()
			if r.cmd.Reversed {
				if bytes.Compare(k, lower) < 0 {
					break
				}
			} else if bytes.Compare(k, upper) >= 0 {
				break
			}
			rest := k[len(rowPrefix):]
			if !r.acc.active || !bytes.HasPrefix(rest, r.acc.enc) {
				if err := r.emitRow(); err != nil {
					return err
				}
				if r.budget <= 0 {
					break
				}
				var err error
				if rest, err = r.startRow(rest); err != nil {
					return err
				}
			} else {
				rest = rest[len(r.acc.enc):]
			}
			if err := r.addEntry(it, rest); err != nil {
				return err
			}
		}
		if err := it.Error(); err != nil {
			return err
		}
		if r.budget > 0 {
			if err := r.emitRow(); err != nil {
				return err
			}
		}
	}
	return nil
}

// seekForward moves the iterator, positioned in the partition before lower
// or exhausted, to the first key >= lower; false when there is none.
// (Stepping with Next a few keys before seeking was measured: no better,
// each key visited runs Pebble's merge path.)
func seekForward(it kvIter, lower []byte) bool {
	if !it.Valid() {
		// Exhausted: the bounds are the partition's, nothing follows. (An
		// error is reported by the caller's it.Error.)
		return false
	}
	// A prefix seek keeps using the bloom filters and stays in the
	// partition (the comparer's Split is the partition).
	return it.SeekPrefixGE(lower)
}

func (r *pebbleReader) step(it kvIter) bool {
	if r.cmd.Reversed {
		return it.Prev()
	}
	return it.Next()
}

// startRow decodes the clustering at the start of rest into a new row and
// returns the slot bytes that follow it.
func (r *pebbleReader) startRow(rest []byte) ([]byte, error) {
	r.acc.reset()
	r.acc.active = true
	r.acc.clustering = carve(&r.clusBuf, len(r.t.Clustering))
	src := rest
	// The values are decoded into the arena (at most len(rest) bytes).
	r.reserve(len(rest))
	for i, c := range r.t.Clustering {
		v, tail, arena, err := types.DecodeKeyInto(r.arena, c.Type, src, c.Desc)
		if err != nil {
			return nil, fmt.Errorf("storage: decoding clustering %s: %w", c.Name, err)
		}
		r.arena = arena
		r.acc.clustering[i] = v
		src = tail
	}
	r.acc.enc = append(r.acc.enc[:0], rest[:len(rest)-len(src)]...)
	return src, nil
}

// addEntry adds the entry at the iterator (slot bytes given) to the row.
func (r *pebbleReader) addEntry(it kvIter, slot []byte) error {
	if len(slot) == 0 {
		return fmt.Errorf("%w: missing slot", errCorrupt)
	}
	v, err := it.ValueAndErr()
	if err != nil {
		return err
	}
	r.scan.bytes += int64(len(it.Key()) + len(v))
	if slot[0] == slotWritten {
		// Not a cell of the row: it only says how its clustering was
		// written.
		var c mutation.Cell
		if !decodeCellValue(v, &c) || c.Tombstone {
			return fmt.Errorf("%w: clustering as written", errCorrupt)
		}
		if !c.IsLive(r.cmd.NowSec) {
			return nil // expired with the data written with it
		}
		if !r.acc.hasWritten || mutation.Reconcile(&r.acc.written, &c) == &c {
			c.Value = r.keep(c.Value)
			r.acc.written, r.acc.hasWritten = c, true
		}
		return nil
	}
	r.scan.cells++
	switch slot[0] {
	case slotRowDeletion:
		d, ok := decodeDeletionValue(v)
		if !ok {
			return fmt.Errorf("%w: row deletion", errCorrupt)
		}
		r.acc.del = mutation.MaxDeletion(r.acc.del, d)
	case slotMarker:
		l, ok := decodeMarkerValue(v)
		if !ok {
			return fmt.Errorf("%w: row marker", errCorrupt)
		}
		r.acc.marker = mutation.ReconcileLiveness(r.acc.marker, l)
	case slotCell:
		if len(slot) < 5 {
			return fmt.Errorf("%w: cell slot", errCorrupt)
		}
		id := binary.BigEndian.Uint32(slot[1:])
		col := r.t.ColumnByID(id)
		if col == nil {
			return nil // a dropped column: its data is never read
		}
		var c mutation.Cell
		written, ok := decodeCellValuePath(v, &c)
		if !ok {
			return fmt.Errorf("%w: cell value", errCorrupt)
		}
		if !c.IsLive(r.cmd.NowSec) {
			// A collection's deletion (a tombstone without a path on a
			// multi-cell column) is not a cell: it never counts.
			if !c.Tombstone || len(slot) > 5 || !col.Type.IsMultiCell() {
				r.acc.dead = append(r.acc.dead, c.Timestamp)
			}
			// Skip cells that cannot be live before copying anything.
			if !c.Tombstone {
				return nil
			}
		}
		c.Column = id
		if !c.Tombstone {
			c.Value = r.keep(c.Value)
		}
		if len(slot) > 5 {
			if slot[5] != pathTag {
				return fmt.Errorf("%w: cell path", errCorrupt)
			}
			if written != nil {
				// The element as written (valFlagPath).
				c.Path = r.keep(written)
			} else {
				p, err := appendDecodedPath(r.pbuf[:0], col, slot[6:])
				if err != nil {
					return err
				}
				r.pbuf = p
				c.Path = r.copyBytes(p)
			}
		}
		r.acc.cells = append(r.acc.cells, c)
	default:
		return fmt.Errorf("%w: slot %x", errCorrupt, slot[0])
	}
	return nil
}

// emitRow finishes the accumulated row and keeps it if it is live.
func (r *pebbleReader) emitRow() error {
	if !r.acc.active {
		return nil
	}
	row, ok, err := r.finishRow(true /* clustered */)
	r.acc.active = false
	if !ok || err != nil {
		return err
	}
	r.live = true
	if !r.cmd.StaticOnly {
		if len(r.rows) == cap(r.rows) && r.cmd.Key != nil && r.budget <= smallLimit {
			// Room for every row a small limit still allows: a LIMIT
			// 50 slice grows once. Otherwise append doubles: a driver's
			// page of 5000 rows over a small partition must not cost
			// room for 64 (and a range scan's partitions are often one
			// row each, so it is for single partitions only).
			r.rows = slices.Grow(r.rows, r.budget)
		}
		r.rows = append(r.rows, row)
	}
	r.budget--
	return nil
}

// finishRow applies deletions and expiry to the accumulated row; ok is false
// when nothing of it is live. It counts the row's tombstones as Cassandra's
// read metrics do after merging, whatever the direction of the read: each
// cell that is not live and not shadowed by a deletion, and the row's own
// deletion when it survives the partition's and range deletions, nothing
// of the row is live and no cell counted (ReadCommand's applyToRow; a
// partition deleted over many cell tombstones fails nothing:
// TombstonesTest.testAllShadowedSelect).
func (r *pebbleReader) finishRow(clustered bool) (row mutation.Row, ok bool, err error) {
	a := &r.acc
	outer := r.pd
	if clustered {
		for i := range r.rts {
			if r.rts[i].r.contains(a.enc) {
				outer = mutation.MaxDeletion(outer, r.rts[i].del)
			}
		}
		if r.cmd.Reversed {
			for i, j := 0, len(a.cells)-1; i < j; i, j = i+1, j-1 {
				a.cells[i], a.cells[j] = a.cells[j], a.cells[i]
			}
		}
	}
	eff := mutation.MaxDeletion(outer, a.del)
	counted := false
	for _, ts := range a.dead {
		if !eff.Deletes(ts) {
			if err := r.tombstone(); err != nil {
				return row, false, err
			}
			counted = true
		}
	}
	now := r.cmd.NowSec
	markerLive := a.marker.IsLive(now) && !eff.Deletes(a.marker.Timestamp)
	n := filterCells(a.cells, eff, now)
	if n == 0 && !markerLive {
		if !a.del.IsLive() && !outer.Deletes(a.del.MarkedForDeleteAt) && !counted {
			if err := r.tombstone(); err != nil {
				return row, false, err
			}
		}
		return row, false, nil
	}
	row.Clustering = a.clustering
	if clustered && a.hasWritten && !eff.Deletes(a.written.Timestamp) {
		// The values alias the arena, or on a cache hit the cached part.
		// Undecodable ones (never written so)
		// leave the canonical values.
		if vs, ok := decodeWrittenValues(a.written.Value, len(a.clustering)); ok {
			copy(row.Clustering, vs)
		}
	}
	row.Marker = mutation.NoLiveness
	if markerLive {
		row.Marker = a.marker
	}
	row.Deletion = mutation.Live
	row.Cells = []mutation.Cell{} // not nil, even without cells
	if n > 0 {
		row.Cells = carve(&r.cellBuf, n)[:0]
	}
	for i := range a.cells {
		if a.cells[i].Column != deadColumn {
			row.Cells = append(row.Cells, a.cells[i])
		}
	}
	return row, true, nil
}

// deadColumn marks a filtered-out cell in place (no real column has it:
// schema ids start at 1 and never reach it).
const deadColumn = math.MaxUint32

// filterCells marks every cell of a row (sorted by column and path) that is
// not live as dead and returns how many remain. A cell is live when it is
// neither a tombstone nor expired, is not shadowed by eff, and is not an
// element shadowed by its collection's deletion (a tombstone without Path
// on a multi-cell column, sorted before the elements).
func filterCells(cells []mutation.Cell, eff mutation.Deletion, now int64) int {
	n := 0
	colDel, colDelTS := uint32(deadColumn), int64(mutation.NoTimestamp)
	for i := range cells {
		c := &cells[i]
		if c.Path == nil && c.Tombstone {
			colDel, colDelTS = c.Column, c.Timestamp
		}
		if !c.IsLive(now) || eff.Deletes(c.Timestamp) ||
			(c.Path != nil && c.Column == colDel && c.Timestamp <= colDelTS) {
			c.Column = deadColumn
			continue
		}
		n++
	}
	return n
}
