package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
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

// WriteTable prints one row per result: closed-loop runs first (in workload
// order, ceiling then the others, with the ratio to the ceiling), then
// open-loop runs, then load phases. Markdown table syntax, so the output can
// be pasted into docs/benchmarks.md as is.
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
	slices.SortStableFunc(rs, func(a, b *Result) int {
		if g := group(a) - group(b); g != 0 {
			return g
		}
		if o := order(a) - order(b); o != 0 {
			return o
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
	fmt.Fprintln(tw, "workload\tserver\tmode\tops/s\tratio\tp50 ms\tp99 ms\tp99.9 ms\tmax ms\terrors\tsrv CPU\tsrv RSS MB\tcli CPU\t")
	fmt.Fprintln(tw, "---\t---\t---\t---\t---\t---\t---\t---\t---\t---\t---\t---\t---\t")
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
			if c := PeakRate(rs, CeilingLabel, r.Workload); c > 0 {
				ratio = fmt.Sprintf("%.2f", r.OpsPerSec/c)
			}
		}
		cpu, rss, cli := "-", "-", "-"
		if r.Server != nil {
			cpu = fmt.Sprintf("%.2f", r.Server.CPUCores)
			rss = fmt.Sprintf("%.0f", float64(r.Server.PeakRSSBytes)/(1<<20))
		}
		if r.Client != nil {
			cli = fmt.Sprintf("%.2f", r.Client.CPUCores)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.0f\t%s\t%.2f\t%.2f\t%.2f\t%.1f\t%d\t%s\t%s\t%s\t\n",
			r.Workload, r.Label, mode, r.OpsPerSec, ratio, ms(r.Latency.P50), ms(r.Latency.P99),
			ms(r.Latency.P999), ms(r.Latency.Max), r.Errors, cpu, rss, cli)
	}
	tw.Flush()
}

func ms(us int64) float64 { return float64(us) / 1000 }
