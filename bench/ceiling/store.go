package ceiling

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"
	"sort"
	"sync"

	"github.com/cqld/cqld/internal/query"
	"github.com/cqld/cqld/internal/types"
)

const numShards = 64

// table is one in-memory table: partitions in sharded maps, rows of a
// partition sorted by an order-preserving encoding of the clustering key.
type table struct {
	ks, name string
	tableDef
	specs  []query.ColumnSpec
	seed   maphash.Seed
	shards [numShards]shard
}

type shard struct {
	mu    sync.RWMutex
	parts map[string]*partition
}

type partition struct {
	rows []row // sorted by ck
}

// row is one row in one allocation without pointers (the garbage collector
// has one object to mark per row, not one per value): n+1 little-endian
// uint32 ends (the clustering key's, then each column's value's, by column
// index; nullBit marks a null), then the clustering key and the values. A
// row never changes: an update stores a new one.
type row struct {
	b []byte
	n int32 // columns
}

const nullBit = 1 << 31

func encodeRow(ck []byte, vals [][]byte) row {
	h := 4 * (len(vals) + 1)
	n := h + len(ck)
	for _, v := range vals {
		n += len(v)
	}
	b := make([]byte, n)
	off := h + copy(b[h:], ck)
	binary.LittleEndian.PutUint32(b, uint32(off))
	for j, v := range vals {
		off += copy(b[off:], v)
		e := uint32(off)
		if v == nil {
			e |= nullBit
		}
		binary.LittleEndian.PutUint32(b[4*(j+1):], e)
	}
	return row{b: b, n: int32(len(vals))}
}

// end returns the end of entry j (0: the clustering key, j+1: column j)
// and whether it is null.
func (r *row) end(j int) (int, bool) {
	w := binary.LittleEndian.Uint32(r.b[4*j:])
	return int(w &^ nullBit), w&nullBit != 0
}

func (r *row) ck() []byte {
	e, _ := r.end(0)
	return r.b[4*(r.n+1) : e : e]
}

// val returns column j's value (nil: null).
func (r *row) val(j int) []byte {
	start, _ := r.end(j)
	e, null := r.end(j + 1)
	if null {
		return nil
	}
	return r.b[start:e:e]
}

func newTable(ks, name string, def *tableDef) *table {
	t := &table{ks: ks, name: name, tableDef: *def, seed: maphash.MakeSeed()}
	for _, c := range def.cols {
		t.specs = append(t.specs, query.ColumnSpec{Keyspace: ks, Table: name, Name: c.name, Type: c.typ})
	}
	for i := range t.shards {
		t.shards[i].parts = make(map[string]*partition)
	}
	return t
}

// partitionKey concatenates the length-prefixed partition key components.
func partitionKey(vals [][]byte) string {
	if len(vals) == 1 {
		return string(vals[0])
	}
	var b []byte
	for _, v := range vals {
		b = binary.BigEndian.AppendUint16(b, uint16(len(v)))
		b = append(b, v...)
	}
	return string(b)
}

// clusteringKey encodes clustering values so that bytes.Compare orders them
// as CQL does for the types the workloads use: signed integers and
// timestamps get their sign bit flipped; text and blobs compare as bytes
// (length-prefixing would break that, so they should come last).
func clusteringKey(typs []*types.Type, vals [][]byte) []byte {
	var b []byte
	for i, v := range vals {
		switch typs[i].Kind {
		case types.Int, types.Bigint, types.Timestamp, types.Smallint, types.Tinyint, types.Counter, types.Time:
			if len(v) > 0 {
				b = append(b, v[0]^0x80)
				b = append(b, v[1:]...)
			}
		default:
			b = append(b, v...)
			if i < len(vals)-1 {
				b = append(b, 0)
			}
		}
	}
	return b
}

func (t *table) shard(pk string) *shard {
	return &t.shards[maphash.String(t.seed, pk)%numShards]
}

// upsert writes the given columns of one row (vals[i] for cols[i]). The
// row is re-encoded with them: request values alias the frame they came
// in, and keeping them would pin whole read buffers.
func (t *table) upsert(pk string, ck []byte, cols []int, vals [][]byte) {
	var room [16][]byte
	merged := room[:0]
	if len(t.cols) > len(room) {
		merged = make([][]byte, 0, len(t.cols))
	}
	merged = merged[:len(t.cols)]
	s := t.shard(pk)
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.parts[pk]
	if p == nil {
		p = &partition{}
		s.parts[pk] = p
	}
	i := sort.Search(len(p.rows), func(i int) bool { return bytes.Compare(p.rows[i].ck(), ck) >= 0 })
	found := i < len(p.rows) && bytes.Equal(p.rows[i].ck(), ck)
	if found {
		for j := range merged {
			merged[j] = p.rows[i].val(j)
		}
	}
	for j, c := range cols {
		merged[c] = vals[j]
	}
	r := encodeRow(ck, merged)
	if found {
		p.rows[i] = r
		return
	}
	p.rows = append(p.rows, row{})
	copy(p.rows[i+1:], p.rows[i:])
	p.rows[i] = r
}

// read returns the projected rows of partition pk whose clustering key lies
// between lo and hi (nil: unbounded; loIncl/hiIncl say whether the bounds
// themselves are in), at most limit of them (0: all), in clustering order.
func (t *table) read(pk string, lo []byte, loIncl bool, hi []byte, hiIncl bool, proj []int, limit int) [][][]byte {
	s := t.shard(pk)
	s.mu.RLock()
	defer s.mu.RUnlock()
	p := s.parts[pk]
	if p == nil {
		return nil
	}
	i := 0
	if lo != nil {
		i = sort.Search(len(p.rows), func(i int) bool {
			c := bytes.Compare(p.rows[i].ck(), lo)
			return c > 0 || (c == 0 && loIncl)
		})
	}
	var out [][][]byte
	for ; i < len(p.rows); i++ {
		r := &p.rows[i]
		if hi != nil {
			c := bytes.Compare(r.ck(), hi)
			if c > 0 || (c == 0 && !hiIncl) {
				break
			}
		}
		vals := make([][]byte, len(proj))
		for j, c := range proj {
			vals[j] = r.val(c)
		}
		out = append(out, vals)
		if limit > 0 && len(out) == limit {
			break
		}
	}
	return out
}
