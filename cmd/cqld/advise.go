package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cqld/cqld/internal/advisor"
	"github.com/spf13/cobra"
)

// adviseFlags is the flag table of `cqld advise`.
var adviseFlags = struct {
	format   string
	workload string
	failOn   string
	host     string
	port     int
}{}

// errFindings makes the command exit non-zero without printing a usage.
type errFindings struct{ severity string }

func (e errFindings) Error() string { return "findings at or above " + e.severity }

func newAdviseCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "advise [--format text|json] [--workload FILE.yaml] [--fail-on warning|error] (SCHEMA.cql... | --host H [--port P])",
		Short: "Check a data model against the seeds' modeling rules",
		Long: `advise lints CQL schema files and the queries of a workload against the
data-modeling method of the seed documents: every query answered by its table's
primary key, partition keys that spread data and bound growth, partitions sized
with the seed formula (Nv × (Ck + Cs + column sizes) + statics, Cs = 23 bytes),
and the seeds' anti-patterns (queues, deletes, indexes, views, batches, ...).
Each finding has a stable rule id, a severity, the fix, and the seed document
the rule comes from.

With --host, the schema comes from the server's system_schema and partition
sizes are the ones it measured (system.size_estimates and, on cqld,
system_views.cqld_table_histograms) instead of the formula's estimates.

Workload YAML (every key optional):
  tables:
    ks.table: {rows_per_partition: N, rows_per_second_per_partition: R,
               distinct_partition_keys: N, avg_value_bytes: {column: N},
               collection_elements: {column: N}, distinct_values: {column: N}}
  queries:
    - SELECT ... WHERE pk = ? ...
    - BEGIN BATCH INSERT ...; INSERT ...; APPLY BATCH

Exit status: 0, or 1 when --fail-on is given and a finding is at least that
severe (or on any other error).

Rules: ` + strings.Join(advisor.RuleIDs(), ", ") + `.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if adviseFlags.host == "" && len(args) == 0 {
				return fmt.Errorf("give schema files, or --host to read the schema of a running server")
			}
			return nil
		},
		RunE: runAdvise,
	}
	f := cmd.Flags()
	f.StringVar(&adviseFlags.format, "format", "text", "output format: text or json")
	f.StringVar(&adviseFlags.workload, "workload", "", "workload YAML file (tables and queries)")
	f.StringVar(&adviseFlags.failOn, "fail-on", "", "exit with status 1 when a finding is at least this severe: warning or error")
	f.StringVar(&adviseFlags.host, "host", "", "read the schema of the server at this address instead of files")
	f.IntVar(&adviseFlags.port, "port", 9042, "CQL port of --host")
	cmd.AddCommand(newDesignCommand())
	return cmd
}

// designFlags is the flag table of `cqld advise design`.
var designFlags = struct {
	keyspace string
	diagram  string
}{}

func newDesignCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "design [--keyspace KS] [--diagram FILE.svg] MODEL.yaml",
		Short: "Generate query-first tables from a conceptual model and its access patterns",
		Long: `design applies the seeds' method: one table per query, named
<entities>_by_<given attributes>, partition key from the equality attributes,
clustering columns from the range and order attributes (with their direction)
then the entity key for uniqueness, static columns for attributes fixed per
partition, and a day bucket when a time range would make partitions unbounded.
It prints CQL DDL; --diagram writes a Chebotko logical diagram as SVG and, next
to it, the same diagram as Mermaid text (FILE.mmd).

Model YAML:
  entities: {name: {key: [attr...], attributes: {attr: cql_type}}}
  relationships: [{name, from, to, cardinality: one-to-one|one-to-many|many-to-many}]
  queries: [{name, description, entity, given: [entity.attr...], range: [entity.attr...],
             order: [{attribute, direction: asc|desc}], returns: [entity.attr...]}]`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := advisor.LoadModel(args[0])
			if err != nil {
				return err
			}
			tables := advisor.Design(m)
			fmt.Fprint(cmd.OutOrStdout(), advisor.DDL(designFlags.keyspace, tables))
			if designFlags.diagram != "" {
				if err := os.WriteFile(designFlags.diagram, []byte(advisor.SVG(tables)), 0o644); err != nil {
					return err
				}
				mmd := strings.TrimSuffix(designFlags.diagram, filepath.Ext(designFlags.diagram)) + ".mmd"
				if err := os.WriteFile(mmd, []byte(advisor.Mermaid(tables)), 0o644); err != nil {
					return err
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&designFlags.keyspace, "keyspace", "", "keyspace for the generated tables (also creates it)")
	cmd.Flags().StringVar(&designFlags.diagram, "diagram", "", "write a Chebotko diagram as SVG to this file (and Mermaid next to it)")
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
	var opts advisor.Options
	if adviseFlags.host != "" {
		live, err := advisor.Live(ctx(cmd), adviseFlags.host, adviseFlags.port)
		if err != nil {
			return err
		}
		scripts = append(scripts, live.DDL)
		opts.Measured = live.Measured
	}
	for _, path := range args {
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		scripts = append(scripts, string(b))
	}
	rep, err := advisor.AnalyzeWithOptions(ctx(cmd), scripts, wl, opts)
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

func ctx(cmd *cobra.Command) context.Context {
	if c := cmd.Context(); c != nil {
		return c
	}
	return context.Background()
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
