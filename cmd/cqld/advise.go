package main

import (
	"context"
	"fmt"
	"os"

	"github.com/cqld/cqld/internal/advisor"
	"github.com/spf13/cobra"
)

// adviseFlags is the flag table of `cqld advise`.
var adviseFlags = struct {
	format   string
	workload string
	failOn   string
}{}

// errFindings makes the command exit non-zero without printing a usage.
type errFindings struct{ severity string }

func (e errFindings) Error() string { return "findings at or above " + e.severity }

func newAdviseCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "advise [--format text|json] [--workload FILE.yaml] [--fail-on warning|error] SCHEMA.cql...",
		Short: "Check a data model against the seeds' modeling rules",
		Long: `advise lints CQL schema files and the queries of a workload against the
data-modeling method of the seed documents: every query answered by its table's
primary key, partition keys that spread data and bound growth, partitions sized
with the seed formula (Nv × (Ck + Cs + column sizes) + statics, Cs = 23 bytes).

Workload YAML:
  tables:
    ks.table: {rows_per_partition: N, rows_per_second_per_partition: R,
               distinct_partition_keys: N, avg_value_bytes: {column: N},
               collection_elements: {column: N}}
  queries:
    - SELECT ... WHERE pk = ? ...`,
		Args: cobra.MinimumNArgs(1),
		RunE: runAdvise,
	}
	f := cmd.Flags()
	f.StringVar(&adviseFlags.format, "format", "text", "output format: text or json")
	f.StringVar(&adviseFlags.workload, "workload", "", "workload YAML file (tables and queries)")
	f.StringVar(&adviseFlags.failOn, "fail-on", "", "exit with status 1 when a finding is at least this severe: warning or error")
	return cmd
}

func runAdvise(cmd *cobra.Command, args []string) error {
	var wl *advisor.Workload
	if adviseFlags.workload != "" {
		w, err := advisor.LoadWorkload(adviseFlags.workload)
		if err != nil {
			return err
		}
		wl = w
	}
	var scripts []string
	for _, path := range args {
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		scripts = append(scripts, string(b))
	}
	rep, err := advisor.Analyze(context.Background(), scripts, wl)
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	switch adviseFlags.format {
	case "json":
		err = rep.WriteJSON(out)
	case "text":
		err = rep.WriteText(out, isTerminal(out))
	default:
		return fmt.Errorf("--format must be text or json")
	}
	if err != nil {
		return err
	}
	switch adviseFlags.failOn {
	case "":
	case "warning", "error":
		if rep.AtLeast(advisor.Severity(adviseFlags.failOn)) {
			cmd.SilenceErrors = true
			return errFindings{adviseFlags.failOn}
		}
	default:
		return fmt.Errorf("--fail-on must be warning or error")
	}
	return nil
}

// isTerminal reports whether w is a character device (colour output).
func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
