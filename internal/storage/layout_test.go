package storage

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cqld/cqld/internal/mutation"
)

// goldenUpdate is the example of layout.md, "Worked example".
func goldenUpdate() *mutation.PartitionUpdate {
	tbl := testTable()
	u := &mutation.PartitionUpdate{TableID: tbl.ID, Key: i32(1), Token: -4069959284402364209, Deletion: del(5)}
	u.RangeTombstones = []mutation.RangeTombstone{{
		Slice:    mutation.Slice{Start: mutation.Bound{Values: [][]byte{i32(2)}, Inclusive: true}, End: mutation.Bound{Values: [][]byte{i32(2)}, Inclusive: true}},
		Deletion: del(6),
	}}
	s := row(nil, mutation.NoLiveness, live(colS, 7, 9))
	u.Static = &s
	entry := live(colM, 8, 3)
	entry.Path = i32(-1)
	u.Rows = []mutation.Row{{
		Clustering: ck(1, "a"), Marker: marker(8), Deletion: del(4),
		Cells: []mutation.Cell{expiring(colV, 8, 2, 60, 1000), entry},
	}}
	return u
}

// dumpKeys renders every key and value of the engine, one per line.
func dumpKeys(t *testing.T, p *Pebble) string {
	it, err := p.db.NewIter(&pebble.IterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	var b strings.Builder
	for valid := it.First(); valid; valid = it.Next() {
		fmt.Fprintf(&b, "%s -> %s\n", hex.EncodeToString(it.Key()), hex.EncodeToString(it.Value()))
	}
	return b.String()
}

// TestLayoutGolden checks that the worked example of layout.md is what the
// engine writes.
func TestLayoutGolden(t *testing.T) {
	doc, err := os.ReadFile("layout.md")
	if err != nil {
		t.Fatal(err)
	}
	const begin, end = "<!-- golden:begin -->\n```\n", "```\n<!-- golden:end -->"
	i, j := bytes.Index(doc, []byte(begin)), bytes.Index(doc, []byte(end))
	if i < 0 || j < i {
		t.Fatal("layout.md has no golden block")
	}
	want := string(doc[i+len(begin) : j])

	p, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	tbl := testTable()
	mustApply(t, p, tbl, goldenUpdate())
	if err := p.PutMeta("host_id", []byte("h")); err != nil {
		t.Fatal(err)
	}
	if got := dumpKeys(t, p); got != want {
		t.Errorf("layout.md golden block is stale; the engine writes:\n%s", got)
	}
}

func TestPartitionPrefixSplit(t *testing.T) {
	for _, key := range [][]byte{{}, {0}, {1, 0, 0}, []byte("abc\x00"), bytes.Repeat([]byte{0}, 5)} {
		pp := appendPartitionPrefix(nil, testTable().ID, math.MinInt64, key)
		full := append(append(bytes.Clone(pp), kindRow), 1, 2, 0, 1, 0)
		if n := partitionPrefixLen(full); n != len(pp) {
			t.Errorf("Split(%x) = %d, want %d", full, n, len(pp))
		}
		if got := appendUnescaped(nil, pp[pkOffset:]); !bytes.Equal(got, key) {
			t.Errorf("unescape(%x) = %x", key, got)
		}
	}
	if n := partitionPrefixLen(metaKey("x")); n != 3 {
		t.Errorf("Split(meta) = %d", n)
	}
}

func FuzzEscape(f *testing.F) {
	f.Add([]byte("a"), []byte("a\x00"))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		ea, eb := appendEscaped(nil, a), appendEscaped(nil, b)
		if got, want := bytes.Compare(ea, eb), bytes.Compare(a, b); got != want {
			t.Fatalf("order: compare(esc(%x), esc(%x)) = %d, want %d", a, b, got, want)
		}
		if !bytes.Equal(a, b) && (bytes.HasPrefix(ea, eb) || bytes.HasPrefix(eb, ea)) {
			t.Fatalf("not prefix-free: %x %x", ea, eb)
		}
		if escapedLen(ea) != len(ea) || !bytes.Equal(appendUnescaped(nil, ea), a) {
			t.Fatalf("round trip of %x", a)
		}
		_ = escapedLen(a) // arbitrary input never panics
		if _, err := decodeRangeTombstoneKey(a); err == nil {
			_ = err
		}
	})
}
