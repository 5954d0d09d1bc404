package storage

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"strconv"
	"testing"

	"github.com/cqld/cqld/internal/mutation"
	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/types"
	"github.com/google/uuid"
)

// TestDifferential applies random histories to the Pebble engine and the
// in-memory reference engine and checks that random reads agree exactly.
// Every history is reproducible from its seed (printed on failure). CI runs
// 20 seeds per table; run more by hand with CQLD_DIFF_SEEDS, e.g.
//
//	CQLD_DIFF_SEEDS=2000 go test ./internal/storage -run TestDifferential -timeout 1h
func TestDifferential(t *testing.T) {
	seeds := 20
	if testing.Short() {
		seeds = 5
	}
	if v := os.Getenv("CQLD_DIFF_SEEDS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			t.Fatalf("CQLD_DIFF_SEEDS: %v", err)
		}
		seeds = n
	}
	for seed := 0; seed < seeds; seed++ {
		runDifferential(t, testTable(), uint64(seed), 300, 200)
	}
	// Decimal clustering values and set elements that compare equal but
	// are written differently are one row or element, read back as
	// written.
	for seed := 0; seed < seeds; seed++ {
		runDifferential(t, decimalTable(), uint64(seed), 300, 200)
	}
}

// decimalTable is testTable with ck1 decimal and st set<decimal>.
func decimalTable() *schema.Table {
	t := testTable()
	cols := make([]*schema.Column, 0, len(t.Columns))
	for _, c := range t.Columns {
		c := *c
		switch c.Name {
		case "ck1":
			c.Type = types.DecimalType
		case "st":
			c.Type = types.SetOf(types.DecimalType, false)
		}
		cols = append(cols, &c)
	}
	return schema.NewTable("ks", "d", uuid.MustParse("7f1c7a2e-3b4d-4e5f-8a9b-0c1d2e3f4a5b"), cols, t.Params)
}

// decimalValues are serialized decimals (scale, unscaled): 1.5, 1.50,
// 1.500, 2, 2.0, 2 with a non-minimal unscaled value, 0, 0.00, -1.5,
// -1.50, 1E+2 and 100.
var decimalValues = [][]byte{
	{0, 0, 0, 1, 0x0f}, {0, 0, 0, 2, 0, 0x96}, {0, 0, 0, 3, 0x05, 0xdc},
	{0, 0, 0, 0, 2}, {0, 0, 0, 1, 0x14}, {0, 0, 0, 0, 0, 2},
	{0, 0, 0, 0, 0}, {0, 0, 0, 2, 0}, {0, 0, 0, 1, 0xf1},
	{0, 0, 0, 2, 0xff, 0x6a}, {0xff, 0xff, 0xff, 0xff, 0x0a}, {0, 0, 0, 0, 0x64},
}

// diffCacheSizes are the partition cache sizes the differential test
// cycles through by seed: none, the default, and one so small that
// partitions are evicted and the larger ones are never kept.
var diffCacheSizes = []int64{-1, 0, 64 << 10}

func runDifferential(t *testing.T, tbl *schema.Table, seed uint64, nUpdates, nReads int) {
	tbl.Params.GCGraceSeconds = 3
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	dir := t.TempDir()
	opts := Options{PartitionCacheSize: diffCacheSizes[seed%uint64(len(diffCacheSizes))]}
	p, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { p.Close() }()
	m := NewMemory()
	ctx := context.Background()
	g := &gen{rng: rng, t: tbl}
	// Reads between the updates (their own random source: the histories
	// stay those of the seed) fill the partition cache, which the updates
	// after them must then keep right.
	gr := &gen{rng: rand.New(rand.NewPCG(seed, 0xcace)), t: tbl}
	check := func(i int, cmd *mutation.ReadCommand) {
		t.Helper()
		want, err := m.Read(ctx, tbl, cmd)
		if err != nil {
			t.Fatal(err)
		}
		got, err := p.Read(ctx, tbl, cmd)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("seed %d (cache %d) read %d %+v:\npebble:\n%s\nmemory:\n%s", seed, opts.PartitionCacheSize, i, *cmd,
				fmtPartitions(tbl, got), fmtPartitions(tbl, want))
		}
	}
	for i := 0; i < nUpdates; i++ {
		if gr.rng.IntN(3) == 0 {
			check(-1-i, gr.read())
		}
		us := []*mutation.PartitionUpdate{g.update()}
		if rng.IntN(4) == 0 {
			us = append(us, g.update())
		}
		if err := p.Apply(ctx, tbl, us...); err != nil {
			t.Fatal(err)
		}
		if err := m.Apply(ctx, tbl, us...); err != nil {
			t.Fatal(err)
		}
		switch rng.IntN(60) {
		case 0:
			if err := p.Flush(); err != nil {
				t.Fatal(err)
			}
		case 1:
			if err := p.Compact(ctx); err != nil {
				t.Fatal(err)
			}
		case 2, 3, 4:
			// Purge at a random time: later writes with old timestamps
			// then show whether both engines purged the same deletions.
			now := int64(90 + rng.IntN(20))
			if _, err := p.Purge(ctx, tbl, now); err != nil {
				t.Fatal(err)
			}
			if _, err := m.Purge(ctx, tbl, now); err != nil {
				t.Fatal(err)
			}
		case 5:
			if err := p.Close(); err != nil {
				t.Fatal(err)
			}
			if p, err = Open(dir, opts); err != nil {
				t.Fatal(err)
			}
		}
	}
	for i := 0; i < nReads; i++ {
		check(i, g.read())
	}
}

type gen struct {
	rng *rand.Rand
	t   *schema.Table
}

func (g *gen) ts() int64 { return int64(g.rng.IntN(30)) }

func (g *gen) pk() int32 { return int32(g.rng.IntN(8)) }

var ck2Values = []string{"", "a", "b", "c\x00", "c"}

func (g *gen) clustering(n int) [][]byte {
	ck1 := i32(int32(g.rng.IntN(5)) - 1)
	if g.t.Clustering[0].Type.Kind == types.Decimal {
		ck1 = decimalValues[g.rng.IntN(len(decimalValues))]
	}
	c := [][]byte{ck1, []byte(ck2Values[g.rng.IntN(len(ck2Values))])}
	return c[:n]
}

func (g *gen) deletion() mutation.Deletion {
	return mutation.Deletion{MarkedForDeleteAt: g.ts(), LocalDeletionTime: int64(90 + g.rng.IntN(15))}
}

func (g *gen) slice() mutation.Slice {
	b := func() mutation.Bound {
		return mutation.Bound{Values: g.clustering(g.rng.IntN(3)), Inclusive: g.rng.IntN(2) == 0}
	}
	return mutation.Slice{Start: b(), End: b()}
}

func (g *gen) cell(col uint32) mutation.Cell {
	ts := g.ts()
	var c mutation.Cell
	switch g.rng.IntN(6) {
	case 0:
		c = tomb(col, ts, int64(90+g.rng.IntN(15)))
	case 1:
		c = expiring(col, ts, int32(g.rng.IntN(3)), 10, int64(95+g.rng.IntN(10)))
	default:
		c = live(col, ts, int32(g.rng.IntN(3)))
	}
	switch col {
	case colM:
		if g.rng.IntN(5) > 0 {
			c.Path = i32(int32(g.rng.IntN(4)) - 2)
		} else if !c.Tombstone {
			c = tomb(col, ts, 1) // collection deletion
		}
	case colST:
		if g.rng.IntN(5) > 0 {
			c.Path = []byte(ck2Values[g.rng.IntN(len(ck2Values))])
			if g.t.ColumnByID(colST).Type.Params[0].Kind == types.Decimal {
				c.Path = decimalValues[g.rng.IntN(len(decimalValues))]
			}
			if !c.Tombstone {
				c.Value = []byte{}
			}
		} else if !c.Tombstone {
			c = tomb(col, ts, 1)
		}
	}
	return c
}

func (g *gen) row(c [][]byte, static bool) mutation.Row {
	r := mutation.Row{Clustering: c, Marker: mutation.NoLiveness, Deletion: mutation.Live}
	if !static {
		switch g.rng.IntN(4) {
		case 0:
			r.Marker = marker(g.ts())
		case 1:
			r.Marker = mutation.Liveness{Timestamp: g.ts(), TTL: 10, LocalDeletionTime: int64(95 + g.rng.IntN(10))}
		}
		if g.rng.IntN(8) == 0 {
			r.Deletion = g.deletion()
		}
	}
	cols := []uint32{colV, colM, colST}
	if static {
		cols = []uint32{colS}
	}
	for n := g.rng.IntN(4); n > 0; n-- {
		r.Cells = append(r.Cells, g.cell(cols[g.rng.IntN(len(cols))]))
	}
	return r
}

func (g *gen) update() *mutation.PartitionUpdate {
	u := update(g.t, g.pk())
	if g.rng.IntN(25) == 0 {
		u.Deletion = g.deletion()
	}
	if g.rng.IntN(8) == 0 {
		u.RangeTombstones = append(u.RangeTombstones, mutation.RangeTombstone{Slice: g.slice(), Deletion: g.deletion()})
	}
	if g.rng.IntN(4) == 0 {
		s := g.row(nil, true)
		u.Static = &s
	}
	for n := g.rng.IntN(4); n > 0; n-- {
		u.Rows = append(u.Rows, g.row(g.clustering(2), false))
	}
	return u
}

func (g *gen) read() *mutation.ReadCommand {
	cmd := &mutation.ReadCommand{TableID: g.t.ID, NowSec: int64(95 + g.rng.IntN(12))}
	if g.rng.IntN(3) > 0 {
		pk := g.pk()
		cmd.Key, cmd.Token = i32(pk), pkToken(pk)
	} else {
		toks := []int64{math.MinInt64, -4000, -3000, -2000, 0, 1000, 3000, math.MaxInt64}
		cmd.StartToken = toks[g.rng.IntN(len(toks))]
		cmd.EndToken = toks[g.rng.IntN(len(toks))]
		if g.rng.IntN(3) == 0 {
			pk := g.pk()
			cmd.StartKey, cmd.StartToken, cmd.StartInclusive = i32(pk), pkToken(pk), g.rng.IntN(2) == 0
		}
	}
	if g.rng.IntN(2) == 0 {
		cmd.Slices = []mutation.Slice{}
		for n := 1 + g.rng.IntN(3); n > 0; n-- {
			cmd.Slices = append(cmd.Slices, g.slice())
		}
	}
	cmd.Reversed = g.rng.IntN(3) == 0
	if g.rng.IntN(3) == 0 {
		cmd.RowLimit = 1 + g.rng.IntN(6)
	}
	if g.rng.IntN(4) == 0 {
		cmd.PerPartitionLimit = 1 + g.rng.IntN(3)
	}
	if g.rng.IntN(4) == 0 {
		cmd.PartitionLimit = 1 + g.rng.IntN(3)
	}
	cmd.StaticOnly = g.rng.IntN(8) == 0
	return cmd
}
