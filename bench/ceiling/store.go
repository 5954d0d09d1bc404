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
	rows []*row // sorted by ck
}

type row struct {
	ck   []byte
	vals [][]byte // by column index; nil is null
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

// upsert writes the given columns of one row (vals[i] for cols[i]).
func (t *table) upsert(pk string, ck []byte, cols []int, vals [][]byte) {
	// Copy the values into one owned buffer, outside the lock: request
	// values alias the frame they came in, and keeping them would pin whole
	// read buffers (hundreds of MB for 100k records).
	n := 0
	for _, v := range vals {
		n += len(v)
	}
	buf := make([]byte, 0, n)
	owned := make([][]byte, len(vals))
	for j, v := range vals {
		if v != nil {
			buf = append(buf, v...)
			owned[j] = buf[len(buf)-len(v) : len(buf) : len(buf)]
		}
	}
	s := t.shard(pk)
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.parts[pk]
	if p == nil {
		p = &partition{}
		s.parts[pk] = p
	}
	i := sort.Search(len(p.rows), func(i int) bool { return bytes.Compare(p.rows[i].ck, ck) >= 0 })
	var r *row
	if i < len(p.rows) && bytes.Equal(p.rows[i].ck, ck) {
		r = p.rows[i]
	} else {
		r = &row{ck: ck, vals: make([][]byte, len(t.cols))}
		p.rows = append(p.rows, nil)
		copy(p.rows[i+1:], p.rows[i:])
		p.rows[i] = r
	}
	for j, c := range cols {
		r.vals[c] = owned[j]
	}
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
			c := bytes.Compare(p.rows[i].ck, lo)
			return c > 0 || (c == 0 && loIncl)
		})
	}
	var out [][][]byte
	for ; i < len(p.rows); i++ {
		r := p.rows[i]
		if hi != nil {
			c := bytes.Compare(r.ck, hi)
			if c > 0 || (c == 0 && !hiIncl) {
				break
			}
		}
		vals := make([][]byte, len(proj))
		for j, c := range proj {
			vals[j] = r.vals[c]
		}
		out = append(out, vals)
		if limit > 0 && len(out) == limit {
			break
		}
	}
	return out
}
