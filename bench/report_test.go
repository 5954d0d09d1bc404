package bench

import (
	"strings"
	"testing"
	"time"
)

// TestTableRounds checks that each run is compared with the ceiling's run
// of its own round and that rounds are summarized.
func TestTableRounds(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)
	run := func(label string, sec int, ops float64) *Result {
		return &Result{Label: label, Workload: "c", Phase: "run", Start: t0.Add(time.Duration(sec) * time.Second),
			OpsPerSec: ops, Ops: int64(ops * 10), Server: &ProcStats{CPUSeconds: 1, CPUCores: 0.1}}
	}
	rs := []*Result{
		run(CeilingLabel, 0, 1000), run("cqld", 10, 500),
		run(CeilingLabel, 20, 2000), run("cqld", 30, 1600),
		run(CeilingLabel, 40, 1000), run("cqld", 50, 700),
	}
	if q := Ratio(rs, rs[3]); q != 0.8 {
		t.Errorf("round 2 ratio = %v, want 0.8", q)
	}
	var b strings.Builder
	WriteTable(&b, rs)
	out := b.String()
	for _, want := range []string{"0.50|", "0.80|", "0.70|", "rounds", "0.70|   0.50|    0.80|", "100|"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}
