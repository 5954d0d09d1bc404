package advisor

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/types"
	"github.com/google/uuid"
	"gopkg.in/yaml.v3"
)

// TestAdvisor runs the golden files in testdata: each is a set of models
// from the seeds with the findings the seeds themselves state.
//
//	schema           the CQL DDL of the model (replaces the previous one)
//	workload         the workload YAML (replaces the previous one)
//	advise           prints findings (rule severity table: message) and sizes
//
// Regenerate with: go test ./internal/advisor -rewrite
func TestAdvisor(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		var schemaSrc, workloadSrc, modelSrc string
		var measured map[string]Measured
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "schema":
				schemaSrc = d.Input
				return ""
			case "workload":
				workloadSrc = d.Input
				return ""
			case "measured":
				// Statistics a live server would report, by ks.table.
				measured = nil
				if err := yaml.Unmarshal([]byte(d.Input), &measured); err != nil {
					return "error: " + err.Error() + "\n"
				}
				return ""
			case "model":
				modelSrc = d.Input
				return ""
			case "design":
				// The generated DDL, then the advisor's verdict on it with
				// each table's own query: a generated design must be clean.
				m, err := ParseModel([]byte(modelSrc))
				if err != nil {
					return "error: " + err.Error() + "\n"
				}
				ks := "ks"
				if d.HasArg("keyspace") {
					d.ScanArgs(t, "keyspace", &ks)
				}
				tables := Design(m)
				ddl := DDL(ks, tables)
				wl := &Workload{}
				for _, dt := range tables {
					wl.Queries = append(wl.Queries, strings.Replace(dt.Statement, "FROM ", "FROM "+ks+".", 1))
				}
				rep, err := Analyze(context.Background(), []string{ddl}, wl)
				if err != nil {
					return ddl + "error: " + err.Error() + "\n"
				}
				var b strings.Builder
				b.WriteString(ddl)
				for _, f := range rep.Findings {
					if f.Severity != Info {
						fmt.Fprintf(&b, "%s %s %s: %s\n", f.Severity, f.Rule, f.Table, f.Message)
					}
				}
				if !rep.AtLeast(Warning) {
					b.WriteString("advise: no warnings\n")
				}
				return b.String()
			case "advise":
				wl, err := ParseWorkload([]byte(workloadSrc))
				if err != nil {
					return "error: " + err.Error() + "\n"
				}
				rep, err := AnalyzeWithOptions(context.Background(), []string{schemaSrc}, wl, Options{Measured: measured})
				if err != nil {
					return "error: " + err.Error() + "\n"
				}
				var b strings.Builder
				for _, f := range rep.Findings {
					fmt.Fprintf(&b, "%s %s %s: %s\n  fix: %s\n", f.Severity, f.Rule, f.Table, f.Message, f.Fix)
				}
				if len(rep.Findings) == 0 {
					b.WriteString("no findings\n")
				}
				for _, e := range rep.Tables {
					fmt.Fprintf(&b, "size %s: %.0f rows x %d B = %.2f MB bounded=%v", e.Table, e.RowsPerPartition, e.RowBytes, e.PartitionSizeBytes/1e6, e.Bounded)
					if e.Measured {
						fmt.Fprintf(&b, " measured (formula %.2f MB, %d partitions, max %.2f MB)", e.EstimatedPartitionSizeBytes/1e6, e.PartitionsCount, e.MaxPartitionSizeBytes/1e6)
					}
					b.WriteString("\n")
				}
				return b.String()
			}
			t.Fatalf("unknown command %s", d.Cmd)
			return ""
		})
	})
}

// TestSeedSizingTable reproduces seed 000's own partition size table.
func TestSeedSizingTable(t *testing.T) {
	tbl := schema.NewTable("ks", "sensor_readings", uuid.New(), []*schema.Column{
		{Name: "sensor_id", Type: types.TextType, Kind: schema.PartitionKey, Position: 0},
		{Name: "day", Type: types.DateType, Kind: schema.PartitionKey, Position: 1},
		{Name: "reading_time", Type: types.TimestampType, Kind: schema.Clustering, Position: 0},
		{Name: "temperature", Type: types.DoubleType, Kind: schema.Regular, Position: -1},
		{Name: "humidity", Type: types.DoubleType, Kind: schema.Regular, Position: -1},
		{Name: "pressure", Type: types.DoubleType, Kind: schema.Regular, Position: -1},
	}, schema.DefaultTableParams())
	if got := RowBytes(tbl, TableWorkload{}); got != 124 {
		t.Fatalf("row size %d B, seed says ~124 B", got)
	}
	for _, tc := range []struct {
		rate   float64
		wantMB float64
	}{{1, 10.7}, {10, 107}} {
		e := Estimate(tbl, TableWorkload{RowsPerSecondPerPartition: tc.rate})
		if mb := e.PartitionSizeBytes / 1e6; math.Abs(mb-tc.wantMB) > 0.05*tc.wantMB {
			t.Errorf("%.0f/s: %.1f MB, seed says %.1f MB", tc.rate, mb, tc.wantMB)
		}
	}
	// Hourly buckets at 10/s: 36,000 × 124 = 4.5 MB.
	e := Estimate(tbl, TableWorkload{RowsPerPartition: 36000})
	if mb := e.PartitionSizeBytes / 1e6; math.Abs(mb-4.5) > 0.1 {
		t.Errorf("hourly: %.2f MB, seed says 4.5 MB", mb)
	}
}

// TestRules checks the rule table: the rule ids exist, every rule
// cites one of the seed documents, and every rule fires in some golden file.
func TestRules(t *testing.T) {
	seeds := map[string]bool{seedConcepts: true, seedLayout: true, seedLogical: true, seedPractices: true, seedMethod: true}
	for _, id := range []string{"partition-key-missing", "clustering-skipped", "range-not-last", "allow-filtering",
		"low-cardinality-partition-key", "unbounded-partition", "partition-too-large", "too-many-rows", "hot-partition",
		"secondary-index-high-cardinality", "secondary-index-primary-access", "queue-pattern", "deletes-without-ttl",
		"large-collection", "timestamp-clustering-collision", "sort-order-mismatch", "missing-column",
		"materialized-view-reliance", "multi-table-write-without-batch", "counter-mixed"} {
		if _, ok := Rules[id]; !ok {
			t.Errorf("rule %s is missing", id)
		}
	}
	var goldens strings.Builder
	files, _ := filepath.Glob("testdata/*")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		goldens.Write(b)
	}
	for _, id := range RuleIDs() {
		r := Rules[id]
		if !seeds[r.Seed] || r.Practice == "" || r.ID != id {
			t.Errorf("rule %s: seed %q practice %q", id, r.Seed, r.Practice)
		}
		if !strings.Contains(goldens.String(), " "+id+" ") {
			t.Errorf("rule %s fires in no golden file", id)
		}
	}
}
