package node

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/query"
)

// TestGuardrailsUsers checks who guardrails apply to (Cassandra's
// Guardrail.enabled: ordinary users only): not superusers, not internal
// queries; and the checks the logic tests cannot express (page size
// warnings, read consistency levels other than ONE, BATCH requests).
func TestGuardrailsUsers(t *testing.T) {
	cfg := DefaultConfig()
	cfg.DataDir = filepath.Join(t.TempDir(), "data")
	cfg.Authenticator = "PasswordAuthenticator"
	cfg.Guardrails.AllowFilteringDisabled = true
	cfg.Guardrails.PageSizeWarn = 10
	cfg.Guardrails.ReadConsistencyLevelsDisallowed = []string{"ALL"}
	cfg.Guardrails.UserTimestampsDisabled = true
	n := startTestNodeConfig(t, cfg)
	defer stopTestNode(t, n)
	ctx := context.Background()
	ex := n.Executor()
	admin := &query.Session{User: "cassandra"}
	internal := &query.Session{Internal: true}
	alice := &query.Session{User: "alice"}
	run := func(sess *query.Session, q string, opts *query.Options) (*query.Result, error) {
		if opts == nil {
			opts = &query.Options{Consistency: 1}
		}
		return ex.Query(ctx, sess, q, opts)
	}
	for _, q := range []string{
		"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.t (k int, c int, PRIMARY KEY (k, c))",
		"CREATE ROLE alice WITH LOGIN = true AND PASSWORD = 'pw'",
	} {
		if _, err := run(admin, q, nil); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	const filtering = "SELECT * FROM ks.t WHERE c = 1 ALLOW FILTERING"
	for _, sess := range []*query.Session{admin, internal} {
		if _, err := run(sess, filtering, nil); err != nil {
			t.Fatalf("exempt user %+v: %v", sess, err)
		}
	}
	_, err := run(alice, filtering, nil)
	if !cqlerr.Is(err, cqlerr.Invalid) || !strings.Contains(err.Error(), "Guardrail allow_filtering violated: Querying with ALLOW FILTERING is not allowed. ALLOW FILTERING can potentially") {
		t.Fatalf("ordinary user: %v", err)
	}

	res, err := run(alice, "SELECT * FROM ks.t", &query.Options{Consistency: 1, PageSize: 100})
	if err != nil {
		t.Fatal(err)
	}
	if want := "Guardrail page_size violated: Query for table t with page size 100 exceeds warning threshold of 10."; len(res.Warnings) != 1 || res.Warnings[0] != want {
		t.Fatalf("page size warnings %q, want %q", res.Warnings, want)
	}
	res, err = run(alice, "SELECT * FROM ks.t LIMIT 5", &query.Options{Consistency: 1, PageSize: 100})
	if err != nil || len(res.Warnings) != 0 {
		t.Fatalf("unpaged query: %v %q", err, res.Warnings)
	}

	_, err = run(alice, "SELECT * FROM ks.t", &query.Options{Consistency: uint16(query.All)})
	if want := "Guardrail read_consistency_levels violated: Provided values [ALL] are not allowed for read consistency levels (disallowed values are: [ALL])"; err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("read at ALL: %v", err)
	}

	batch := &query.BatchRequest{Statements: []query.BatchStatement{
		{Query: "INSERT INTO ks.t (k, c) VALUES (1, 1)"},
		{Query: "INSERT INTO ks.t (k, c) VALUES (1, 2) USING TIMESTAMP 5"},
	}, Options: query.Options{Consistency: 1}}
	if _, err := ex.Batch(ctx, alice, batch); err == nil || !strings.Contains(err.Error(), "Guardrail user_timestamps violated") {
		t.Fatalf("batch with a user timestamp: %v", err)
	}
	if _, err := ex.Batch(ctx, admin, batch); err != nil {
		t.Fatalf("superuser batch: %v", err)
	}
}

func TestGuardrailsConfig(t *testing.T) {
	cfg := DefaultConfig()
	err := LoadYAML(&cfg, []byte(`
keyspaces_warn_threshold: 5
keyspaces_fail_threshold: -1
collection_size_warn_threshold: 2KiB
collection_size_fail_threshold: 1MiB
allow_filtering_enabled: false
zero_ttl_on_twcs_warned: false
read_consistency_levels_disallowed: [all, local_one]
table_properties_warned: [Comment]
partition_size_warn_threshold: 100MiB
`), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	g := cfg.Guardrails
	if g.KeyspacesWarn != 5 || g.KeyspacesFail != -1 || g.CollectionSizeWarn != 2048 || g.CollectionSizeFail != 1<<20 ||
		!g.AllowFilteringDisabled || g.ZeroTTLOnTWCSWarned || strings.Join(g.ReadConsistencyLevelsDisallowed, ",") != "ALL,LOCAL_ONE" ||
		strings.Join(g.TablePropertiesWarned, ",") != "comment" {
		t.Fatalf("got %+v", g)
	}
	if !DefaultConfig().Guardrails.ZeroTTLOnTWCSWarned {
		t.Fatal("zero_ttl_on_twcs_warned defaults to true in Cassandra 5.0")
	}
	for _, in := range []string{
		"keyspaces_warn_threshold: 0",
		"keyspaces_warn_threshold: 10\nkeyspaces_fail_threshold: 5",
		"minimum_replication_factor_warn_threshold: 1\nminimum_replication_factor_fail_threshold: 2",
		"collection_size_warn_threshold: 10",
		"read_consistency_levels_warned: [SOMETIMES]",
	} {
		cfg := DefaultConfig()
		if err := LoadYAML(&cfg, []byte(in), slog.New(slog.NewTextHandler(io.Discard, nil))); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
}

func TestGuardrailsTimestamps(t *testing.T) {
	cfg := DefaultConfig()
	cfg.DataDir = filepath.Join(t.TempDir(), "data")
	cfg.Authenticator = "PasswordAuthenticator"
	if err := LoadYAML(&cfg, []byte("maximum_timestamp_fail_threshold: 1d\nminimum_timestamp_warn_threshold: 3650d\n"),
		slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
		t.Fatal(err)
	}
	n := startTestNodeConfig(t, cfg)
	defer stopTestNode(t, n)
	ctx := context.Background()
	ex := n.Executor()
	admin, alice := &query.Session{User: "cassandra"}, &query.Session{User: "alice"}
	for _, q := range []string{
		"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.t (k int PRIMARY KEY, v int)",
	} {
		if _, err := ex.Query(ctx, admin, q, &query.Options{Consistency: 1}); err != nil {
			t.Fatal(err)
		}
	}
	future := time.Now().Add(48 * time.Hour).UnixMicro()
	_, err := ex.Query(ctx, alice, fmt.Sprintf("INSERT INTO ks.t (k, v) VALUES (1, 1) USING TIMESTAMP %d", future), &query.Options{Consistency: 1})
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("Guardrail maximum_timestamp violated: The modification to table t has a timestamp %d after the maximum allowable failure threshold ", future)) ||
		!strings.HasSuffix(err.Error(), ". Timestamps too far in the future can lead to data that can't be easily overwritten") {
		t.Fatalf("future timestamp: %v", err)
	}
	res, err := ex.Query(ctx, alice, "INSERT INTO ks.t (k, v) VALUES (1, 1) USING TIMESTAMP 10", &query.Options{Consistency: 1})
	if err != nil || len(res.Warnings) != 1 || !strings.HasPrefix(res.Warnings[0], "Guardrail minimum_timestamp violated: The modification to table t has a timestamp 10 before the minimum allowable warning threshold ") {
		t.Fatalf("old timestamp: %v %q", err, res.Warnings)
	}
	if res, err := ex.Query(ctx, alice, "INSERT INTO ks.t (k, v) VALUES (1, 1)", &query.Options{Consistency: 1}); err != nil || len(res.Warnings) != 0 {
		t.Fatalf("server timestamp: %v %v", err, res)
	}
}
