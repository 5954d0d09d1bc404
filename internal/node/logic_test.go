package node

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/query"
	"github.com/cqld/cqld/internal/types"
)

// TestLogic runs the CQL logic tests in testdata/logic: each file is a
// sequence of statements with their expected results, executed against a
// fresh in-process node.
//
//	exec                 run one or more statements (one per line, or
//	<statements>         separated by ';'), print "ok" (then any client
//	----                 warnings as "warning: <text>") or the error
//	ok
//
//	query [page=N]       run a SELECT and print a header and one line per
//	<select>             row (cqlsh formatting), or the error as
//	----                 "error <Code>: <message>"
//	...
//
// Both run at consistency ONE unless given cl=LEVEL (and serial=LEVEL for
// the serial consistency), e.g. "exec cl=QUORUM serial=LOCAL_SERIAL".
//
// Lines "#config key: value" anywhere in a file are cassandra.yaml settings
// for its node (e.g. "#config materialized_views_enabled: true").
//
// Regenerate with: go test ./internal/node -run TestLogic -rewrite
func TestLogic(t *testing.T) {
	datadriven.Walk(t, "testdata/logic", func(t *testing.T, path string) {
		cfg := DefaultConfig()
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var yml strings.Builder
		for _, line := range strings.Split(string(src), "\n") {
			if rest, ok := strings.CutPrefix(line, "#config "); ok {
				yml.WriteString(rest + "\n")
			}
		}
		if err := LoadYAML(&cfg, []byte(yml.String()), slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
			t.Fatal(err)
		}
		cfg.DataDir = filepath.Join(t.TempDir(), "data")
		n := startTestNodeConfig(t, cfg)
		defer stopTestNode(t, n)
		sess := &query.Session{}
		ex := n.Executor()
		ctx := context.Background()
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			cl, serial := levelArg(t, d, "cl", query.One), levelArg(t, d, "serial", 0)
			switch d.Cmd {
			case "exec":
				var out []string
				for _, stmt := range splitStatements(d.Input) {
					res, err := ex.Query(ctx, sess, stmt, &query.Options{Consistency: uint16(cl), SerialConsistency: uint16(serial)})
					if err != nil {
						out = append(out, formatErr(err))
						continue
					}
					if res.Kind == query.SetKeyspaceResult {
						sess.Keyspace = res.Keyspace
					}
					out = append(out, "ok")
					for _, w := range res.Warnings {
						out = append(out, "warning: "+w)
					}
				}
				return strings.Join(out, "\n") + "\n"
			case "query":
				page := int32(0)
				if d.HasArg("page") {
					var p int
					d.ScanArgs(t, "page", &p)
					page = int32(p)
				}
				var b strings.Builder
				opts := &query.Options{Consistency: uint16(cl), SerialConsistency: uint16(serial), PageSize: page}
				first := true
				for {
					res, err := ex.Query(ctx, sess, strings.TrimSpace(d.Input), opts)
					if err != nil {
						return formatErr(err) + "\n"
					}
					if first {
						names := make([]string, len(res.Columns))
						for i, c := range res.Columns {
							names[i] = c.Name
						}
						b.WriteString(strings.Join(names, " | ") + "\n")
						first = false
					} else {
						b.WriteString("-- page\n")
					}
					for _, row := range res.Rows {
						vals := make([]string, len(row))
						for i, v := range row {
							if v == nil {
								vals[i] = "null"
							} else {
								vals[i] = types.Format(res.Columns[i].Type, v)
							}
						}
						b.WriteString(strings.Join(vals, " | ") + "\n")
					}
					if res.PagingState == nil {
						break
					}
					opts = &query.Options{Consistency: uint16(cl), SerialConsistency: uint16(serial), PageSize: page, PagingState: res.PagingState}
				}
				return b.String()
			default:
				t.Fatalf("unknown command %q", d.Cmd)
				return ""
			}
		})
	})
}

// levelArg returns the consistency level named by argument key, or def.
func levelArg(t *testing.T, d *datadriven.TestData, key string, def query.Consistency) query.Consistency {
	if !d.HasArg(key) {
		return def
	}
	var name string
	d.ScanArgs(t, key, &name)
	cl, ok := query.ConsistencyByName(name)
	if !ok {
		t.Fatalf("%s: unknown consistency level %q", d.Pos, name)
	}
	return cl
}

func formatErr(err error) string {
	e := cqlerr.As(err)
	if e.Code == cqlerr.Unavailable {
		return fmt.Sprintf("error %s: %s (consistency %s, required %d, alive %d)", e.Code, e.Message,
			query.ConsistencyName(query.Consistency(e.Consistency)), e.Required, e.Alive)
	}
	return fmt.Sprintf("error %s: %s", e.Code, e.Message)
}

// splitStatements splits on lines ending with ';' (statements may span
// lines); a BEGIN ... APPLY BATCH block is one statement.
func splitStatements(in string) []string {
	var out []string
	var cur strings.Builder
	for _, line := range strings.Split(in, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		cur.WriteString(line)
		cur.WriteByte('\n')
		text := strings.ToUpper(cur.String())
		inBatch := strings.HasPrefix(strings.TrimSpace(text), "BEGIN") && !strings.Contains(text, "APPLY BATCH")
		if strings.HasSuffix(strings.TrimSpace(line), ";") && !inBatch {
			out = append(out, strings.TrimSpace(cur.String()))
			cur.Reset()
		}
	}
	if s := strings.TrimSpace(cur.String()); s != "" {
		out = append(out, s)
	}
	return out
}
