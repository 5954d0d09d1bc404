package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// CeilingLabel is the label of the ceiling server's results: ratios are
// computed against it.
const CeilingLabel = "ceiling"

// ReadResults reads the JSON result files written by `cqld-bench run`.
func ReadResults(paths ...string) ([]*Result, error) {
	var all []*Result
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		var rs []*Result
		if err := json.Unmarshal(b, &rs); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		all = append(all, rs...)
	}
	return all, nil
}

// PeakRate returns the closed-loop run throughput of workload for label.
func PeakRate(rs []*Result, label, workload string) float64 {
	for _, r := range rs {
		if r.Label == label && r.Workload == workload && r.Phase == "run" && r.TargetRate == 0 {
			return r.OpsPerSec
		}
	}
	return 0
}

// ceilingFor returns the closed-loop ceiling run of r's workload closest in
// time to r (with several rounds, each server's run is compared with the
// ceiling run of its own round), or nil.
func ceilingFor(rs []*Result, r *Result) *Result {
	var best *Result
	var bestGap time.Duration
	for _, c := range rs {
		if c.Label != CeilingLabel || c.Workload != r.Workload || c.Phase != "run" || c.TargetRate != 0 {
			continue
		}
		gap := r.Start.Sub(c.Start)
		if gap < 0 {
			gap = -gap
		}
		if best == nil || gap < bestGap {
			best, bestGap = c, gap
		}
	}
	return best
}

// Ratio returns r's throughput divided by that of the ceiling's run of the
// same workload closest in time (0 when there is none).
func Ratio(rs []*Result, r *Result) float64 {
	if c := ceilingFor(rs, r); c != nil && c.OpsPerSec > 0 {
		return r.OpsPerSec / c.OpsPerSec
	}
	return 0
}

// WriteTable prints one row per result: closed-loop runs first (in workload
// order, then by time, ceiling before the others, with the ratio to the
// ceiling's run closest in time), then open-loop runs, then load phases.
// When a workload ran in several rounds, a summary of the ratios per
// workload and server follows. Markdown table syntax, so the output can be
// pasted into docs/benchmarks.md as is.
func WriteTable(w io.Writer, rs []*Result) {
	order := func(r *Result) int {
		i := slices.Index(Workloads, r.Workload)
		if i < 0 {
			i = len(Workloads)
		}
		return i
	}
	group := func(r *Result) int {
		switch {
		case r.Phase == "load":
			return 2
		case r.TargetRate > 0:
			return 1
		}
		return 0
	}
	rs = slices.Clone(rs)
	// Sort by time first so that rounds keep their order below.
	slices.SortStableFunc(rs, func(a, b *Result) int { return a.Start.Compare(b.Start) })
	slices.SortStableFunc(rs, func(a, b *Result) int {
		if g := group(a) - group(b); g != 0 {
			return g
		}
		if o := order(a) - order(b); o != 0 {
			return o
		}
		if g := group(a); g == 0 {
			return 0 // by time: the rounds, each ceiling then the others
		}
		if (a.Label == CeilingLabel) != (b.Label == CeilingLabel) {
			if a.Label == CeilingLabel {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Label, b.Label)
	})
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', tabwriter.AlignRight|tabwriter.Debug)
	fmt.Fprintln(tw, "workload\tserver\tmode\tops/s\tratio\tp50 ms\tp99 ms\tp99.9 ms\tmax ms\terrors\tsrv CPU\tsrv µs/op\tsrv RSS MB\tcli CPU\t")
	fmt.Fprintln(tw, "---\t---\t---\t---\t---\t---\t---\t---\t---\t---\t---\t---\t---\t---\t")
	for _, r := range rs {
		mode := "closed"
		switch {
		case r.Phase == "load":
			mode = "load"
		case r.TargetRate > 0:
			mode = fmt.Sprintf("open %.0f/s", r.TargetRate)
		}
		ratio := "-"
		if r.Phase == "run" && r.TargetRate == 0 {
			if q := Ratio(rs, r); q > 0 {
				ratio = fmt.Sprintf("%.2f", q)
			}
		}
		cpu, perOp, rss, cli := "-", "-", "-", "-"
		if r.Server != nil {
			cpu = fmt.Sprintf("%.2f", r.Server.CPUCores)
			rss = fmt.Sprintf("%.0f", float64(r.Server.PeakRSSBytes)/(1<<20))
			if r.Ops > 0 {
				perOp = fmt.Sprintf("%.0f", r.Server.CPUSeconds*1e6/float64(r.Ops))
			}
		}
		if r.Client != nil {
			cli = fmt.Sprintf("%.2f", r.Client.CPUCores)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.0f\t%s\t%.2f\t%.2f\t%.2f\t%.1f\t%d\t%s\t%s\t%s\t%s\t\n",
			r.Workload, r.Label, mode, r.OpsPerSec, ratio, ms(r.Latency.P50), ms(r.Latency.P99),
			ms(r.Latency.P999), ms(r.Latency.Max), r.Errors, cpu, perOp, rss, cli)
	}
	tw.Flush()
	writeRoundSummary(w, rs)
}

// writeRoundSummary prints, for workloads run in more than one round, the
// median, lowest and highest ratio per server.
func writeRoundSummary(w io.Writer, rs []*Result) {
	type key struct{ workload, label string }
	ratios := map[key][]float64{}
	var keys []key
	multi := false
	for _, r := range rs {
		if r.Phase != "run" || r.TargetRate != 0 || r.Label == CeilingLabel {
			continue
		}
		q := Ratio(rs, r)
		if q == 0 {
			continue
		}
		k := key{r.Workload, r.Label}
		if _, ok := ratios[k]; !ok {
			keys = append(keys, k)
		}
		ratios[k] = append(ratios[k], q)
		multi = multi || len(ratios[k]) > 1
	}
	if !multi {
		return
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', tabwriter.AlignRight|tabwriter.Debug)
	fmt.Fprintln(tw, "workload\tserver\trounds\tratio median\tlowest\thighest\t")
	fmt.Fprintln(tw, "---\t---\t---\t---\t---\t---\t")
	for _, k := range keys {
		q := slices.Clone(ratios[k])
		slices.Sort(q)
		med := q[len(q)/2]
		if len(q)%2 == 0 {
			med = (q[len(q)/2-1] + q[len(q)/2]) / 2
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%.2f\t%.2f\t%.2f\t\n", k.workload, k.label, len(q), med, q[0], q[len(q)-1])
	}
	tw.Flush()
}

func ms(us int64) float64 { return float64(us) / 1000 }
