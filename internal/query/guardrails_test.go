package query

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestGuardCartesianSaturates: in_select_cartesian_product counts a
// product that passes int64 as the largest int64, not as the wrapped
// (negative) number that passed the fail threshold.
func TestGuardCartesianSaturates(t *testing.T) {
	cfg := Config{Security: ordinaryUsers{}}
	cfg.Guardrails.InSelectCartesianProductFail = 9_000_000_000_000_000_000
	e, sess, _ := countingExecutor(t, cfg,
		"CREATE TABLE ks.t (k int, c1 int, c2 int, c3 int, c4 int, c5 int, PRIMARY KEY (k, c1, c2, c3, c4, c5))",
	)
	// 8,000^5 = 3.3e19 combinations; wrapped to int64, -4.1e18.
	vals := make([]string, 8000)
	for i := range vals {
		vals[i] = fmt.Sprint(i)
	}
	in := "IN (" + strings.Join(vals, ", ") + ")"
	q := fmt.Sprintf("SELECT * FROM ks.t WHERE k = 0 AND c1 %[1]s AND c2 %[1]s AND c3 %[1]s AND c4 %[1]s AND c5 %[1]s", in)
	_, err := e.Query(context.Background(), sess, q, &Options{Consistency: uint16(One)})
	want := "produces 9223372036854775807 values, this exceeds fail threshold of 9000000000000000000"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want the guardrail's %q", err, want)
	}
}
