package storage

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/cqld/cqld/internal/mutation"
	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/types"
)

// TestHistory runs the storage-history files in testdata/history against
// the Pebble and the in-memory engine (both must give the expected output).
// Regenerate with -rewrite. The language, on the table of helpers_test.go
// (clustering (ck1 int, ck2 text DESC), static s int, v int,
// m map<int,int>, st set<text>), or for files named decimal_* on
// decimalTable (ck1 decimal, st set<decimal>, values written as CQL
// numbers, 1.50):
//
//	apply pk=N          one partition update, one entry per input line:
//	  row (1,a) marker@TS[/ttlT:EXP] v=1@TS[/ttlT:EXP] v=tomb@TS:LDT
//	      m[k]=v@TS m[k]=tomb@TS:LDT m=tomb@TS:LDT st[x]@TS st[x]=tomb@TS:LDT
//	  rowdel (1,a) @TS:LDT
//	  static s=1@TS ...
//	  rangedel START END @TS:LDT   START: [1,a | (1 | *   END: 1,a] | 2) | *
//	  partdel @TS:LDT
//	read pk=N now=T [reversed] [limit=N] [slice=START..END]
//	purge now=T grace=G
//	flush | compact | restart
func TestHistory(t *testing.T) {
	datadriven.Walk(t, "testdata/history", func(t *testing.T, path string) {
		tbl := testTable()
		if strings.HasPrefix(filepath.Base(path), "decimal_") {
			tbl = decimalTable()
		}
		dir := t.TempDir()
		p, err := Open(filepath.Join(dir, "db"), Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer func() { p.Close() }()
		m := NewMemory()
		ctx := context.Background()
		datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
			switch td.Cmd {
			case "apply":
				var pk int
				td.ScanArgs(t, "pk", &pk)
				u, err := parseHistoryUpdate(tbl, int32(pk), td.Input)
				if err != nil {
					return "error: " + err.Error()
				}
				mustApply(t, p, tbl, u)
				mustApply(t, m, tbl, u)
				return ""
			case "read":
				var pk, now int
				td.ScanArgs(t, "pk", &pk)
				td.ScanArgs(t, "now", &now)
				cmd := pointRead(tbl, int32(pk))
				cmd.NowSec = int64(now)
				cmd.Reversed = td.HasArg("reversed")
				if td.HasArg("limit") {
					td.ScanArgs(t, "limit", &cmd.RowLimit)
				}
				if td.HasArg("slice") {
					var s string
					td.ScanArgs(t, "slice", &s)
					start, end, ok := strings.Cut(s, "..")
					if !ok {
						t.Fatalf("slice %q", s)
					}
					sl, err := parseHistorySlice(tbl, start, end)
					if err != nil {
						t.Fatal(err)
					}
					cmd.Slices = []mutation.Slice{sl}
				}
				got := fmtPartitions(tbl, mustRead(t, p, tbl, cmd))
				if want := fmtPartitions(tbl, mustRead(t, m, tbl, cmd)); got != want {
					return fmt.Sprintf("ENGINES DISAGREE\npebble:\n%smemory:\n%s", got, want)
				}
				if got == "" {
					return "(empty)"
				}
				return got
			case "purge":
				var now, grace int
				td.ScanArgs(t, "now", &now)
				td.ScanArgs(t, "grace", &grace)
				tbl.Params.GCGraceSeconds = int32(grace)
				ps, err := p.Purge(ctx, tbl, int64(now))
				if err != nil {
					t.Fatal(err)
				}
				if _, err := m.Purge(ctx, tbl, int64(now)); err != nil {
					t.Fatal(err)
				}
				data, _ := rawKeys(t, p, tbl)
				return fmt.Sprintf("purged %d tombstones, %d shadowed; %d keys left", ps.Tombstones, ps.Shadowed, data)
			case "flush":
				if err := p.Flush(); err != nil {
					t.Fatal(err)
				}
				return ""
			case "compact":
				mustCompact(t, p)
				return ""
			case "restart":
				if err := p.Close(); err != nil {
					t.Fatal(err)
				}
				if p, err = Open(filepath.Join(dir, "db"), Options{}); err != nil {
					t.Fatal(err)
				}
				return ""
			}
			t.Fatalf("unknown command %s", td.Cmd)
			return ""
		})
	})
}

func parseHistoryUpdate(tbl *schema.Table, pk int32, input string) (*mutation.PartitionUpdate, error) {
	u := update(tbl, pk)
	for _, line := range strings.Split(strings.TrimSpace(input), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "partdel":
			d, err := parseDeletion(f[1])
			if err != nil {
				return nil, err
			}
			u.Deletion = d
		case "rangedel":
			if len(f) != 4 {
				return nil, fmt.Errorf("rangedel START END @TS:LDT")
			}
			s, err := parseHistorySlice(tbl, f[1], f[2])
			if err != nil {
				return nil, err
			}
			d, err := parseDeletion(f[3])
			if err != nil {
				return nil, err
			}
			u.RangeTombstones = append(u.RangeTombstones, mutation.RangeTombstone{Slice: s, Deletion: d})
		case "rowdel":
			c, err := parseClustering(tbl, f[1])
			if err != nil {
				return nil, err
			}
			d, err := parseDeletion(f[2])
			if err != nil {
				return nil, err
			}
			u.Rows = append(u.Rows, mutation.Row{Clustering: c, Marker: mutation.NoLiveness, Deletion: d})
		case "static":
			r := mutation.Row{Marker: mutation.NoLiveness, Deletion: mutation.Live}
			if err := parseEntries(tbl, &r, f[1:]); err != nil {
				return nil, err
			}
			u.Static = &r
		case "row":
			c, err := parseClustering(tbl, f[1])
			if err != nil {
				return nil, err
			}
			r := mutation.Row{Clustering: c, Marker: mutation.NoLiveness, Deletion: mutation.Live}
			if err := parseEntries(tbl, &r, f[2:]); err != nil {
				return nil, err
			}
			u.Rows = append(u.Rows, r)
		default:
			return nil, fmt.Errorf("unknown entry %q", f[0])
		}
	}
	return u, nil
}

// parseClustering parses "(1,a)", "(1)" or "(1,)" (empty text).
func parseClustering(tbl *schema.Table, s string) ([][]byte, error) {
	if !strings.HasPrefix(s, "(") || !strings.HasSuffix(s, ")") {
		return nil, fmt.Errorf("clustering %q", s)
	}
	return parseClusteringValues(tbl, s[1:len(s)-1])
}

func parseClusteringValues(tbl *schema.Table, s string) ([][]byte, error) {
	if s == "" {
		return nil, nil
	}
	parts := strings.Split(s, ",")
	ck1, err := parseTypedValue(tbl.Clustering[0].Type, parts[0])
	if err != nil {
		return nil, err
	}
	out := [][]byte{ck1}
	if len(parts) > 1 {
		out = append(out, []byte(parts[1]))
	}
	return out, nil
}

func parseHistorySlice(tbl *schema.Table, start, end string) (mutation.Slice, error) {
	var s mutation.Slice
	if start != "*" {
		if start == "" || (start[0] != '[' && start[0] != '(') {
			return s, fmt.Errorf("slice start %q", start)
		}
		v, err := parseClusteringValues(tbl, start[1:])
		if err != nil {
			return s, err
		}
		s.Start = mutation.Bound{Values: v, Inclusive: start[0] == '['}
	}
	if end != "*" {
		last := end[len(end)-1]
		if last != ']' && last != ')' {
			return s, fmt.Errorf("slice end %q", end)
		}
		v, err := parseClusteringValues(tbl, end[:len(end)-1])
		if err != nil {
			return s, err
		}
		s.End = mutation.Bound{Values: v, Inclusive: last == ']'}
	}
	return s, nil
}

// parseDeletion parses "@TS:LDT".
func parseDeletion(s string) (mutation.Deletion, error) {
	ts, ldt, err := parseTimes(strings.TrimPrefix(s, "@"))
	return mutation.Deletion{MarkedForDeleteAt: ts, LocalDeletionTime: ldt}, err
}

// parseTimes parses "TS:N" into TS and N.
func parseTimes(s string) (int64, int64, error) {
	a, b, ok := strings.Cut(s, ":")
	if !ok {
		return 0, 0, fmt.Errorf("%q: want TS:N", s)
	}
	x, err := strconv.ParseInt(a, 10, 64)
	if err != nil {
		return 0, 0, err
	}
	y, err := strconv.ParseInt(b, 10, 64)
	return x, y, err
}

// parseLiveness parses "TS" or "TS/ttlT:EXP" into timestamp, TTL, expiry.
func parseLiveness(s string) (ts int64, ttl int32, exp int64, err error) {
	tsPart, ttlPart, expiring := strings.Cut(s, "/ttl")
	if ts, err = strconv.ParseInt(tsPart, 10, 64); err != nil {
		return
	}
	exp = mutation.NoDeletion
	if expiring {
		var t int64
		if t, exp, err = parseTimes(ttlPart); err != nil {
			return
		}
		ttl = int32(t)
	}
	return
}

func parseTypedValue(t *types.Type, s string) ([]byte, error) {
	switch t.Kind {
	case types.Text:
		return []byte(s), nil
	case types.Decimal:
		return types.FromNumber(t, s)
	}
	n, err := strconv.Atoi(s)
	return i32(int32(n)), err
}

func parseEntries(tbl *schema.Table, r *mutation.Row, entries []string) error {
	for _, e := range entries {
		if rest, ok := strings.CutPrefix(e, "marker@"); ok {
			ts, ttl, exp, err := parseLiveness(rest)
			if err != nil {
				return err
			}
			r.Marker = mutation.Liveness{Timestamp: ts, TTL: ttl, LocalDeletionTime: exp}
			continue
		}
		lhs, rhs, ok := strings.Cut(e, "@")
		if !ok {
			return fmt.Errorf("entry %q", e)
		}
		name, val, hasVal := strings.Cut(lhs, "=")
		var path string
		hasPath := false
		if i := strings.IndexByte(name, '['); i >= 0 && strings.HasSuffix(name, "]") {
			name, path, hasPath = name[:i], name[i+1:len(name)-1], true
		}
		col := tbl.Column(name)
		if col == nil {
			return fmt.Errorf("unknown column %q", name)
		}
		c := mutation.Cell{Column: col.ID, LocalDeletionTime: mutation.NoDeletion}
		if hasPath {
			p, err := parseTypedValue(pathType(col), path)
			if err != nil {
				return err
			}
			c.Path = p
		}
		if val == "tomb" {
			ts, ldt, err := parseTimes(rhs)
			if err != nil {
				return err
			}
			c.Tombstone, c.Timestamp, c.LocalDeletionTime = true, ts, ldt
		} else {
			ts, ttl, exp, err := parseLiveness(rhs)
			if err != nil {
				return err
			}
			c.Timestamp, c.TTL, c.LocalDeletionTime = ts, ttl, exp
			vt := col.Type
			if col.Type.Kind == types.Map {
				vt = col.Type.Params[1]
			}
			c.Value = []byte{}
			if hasVal {
				v, err := parseTypedValue(vt, val)
				if err != nil {
					return err
				}
				c.Value = v
			}
		}
		r.Cells = append(r.Cells, c)
	}
	return nil
}
