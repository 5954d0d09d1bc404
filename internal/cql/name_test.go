package cql

import "testing"

func TestStatementName(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"SELECT * FROM t", "SELECT"},
		{"INSERT INTO t (k) VALUES (1)", "INSERT"},
		{"UPDATE t SET v = 1 WHERE k = 0", "UPDATE"},
		{"DELETE FROM t WHERE k = 0", "DELETE"},
		{"BEGIN BATCH APPLY BATCH", "BATCH"},
		{"USE ks", "USE"},
		{"TRUNCATE t", "TRUNCATE"},
		{"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}", "CREATE KEYSPACE"},
		{"ALTER KEYSPACE ks WITH durable_writes = false", "ALTER KEYSPACE"},
		{"DROP KEYSPACE ks", "DROP KEYSPACE"},
		{"CREATE TABLE t (k int PRIMARY KEY)", "CREATE TABLE"},
		{"ALTER TABLE t ADD v int", "ALTER TABLE"},
		{"DROP TABLE t", "DROP TABLE"},
		{"CREATE INDEX ON t (v)", "CREATE INDEX"},
		{"CREATE CUSTOM INDEX ON t (v) USING 'sai'", "CREATE CUSTOM INDEX"},
		{"DROP INDEX i", "DROP INDEX"},
		{"CREATE TYPE u (a int)", "CREATE TYPE"},
		{"ALTER TYPE u ADD b int", "ALTER TYPE"},
		{"DROP TYPE u", "DROP TYPE"},
		{"CREATE MATERIALIZED VIEW v AS SELECT * FROM t PRIMARY KEY (k)", "CREATE MATERIALIZED VIEW"},
		{"ALTER MATERIALIZED VIEW v WITH comment = ''", "ALTER MATERIALIZED VIEW"},
		{"DROP MATERIALIZED VIEW v", "DROP MATERIALIZED VIEW"},
		{"CREATE FUNCTION f () CALLED ON NULL INPUT RETURNS int LANGUAGE java AS '1'", "CREATE FUNCTION"},
		{"DROP FUNCTION f", "DROP FUNCTION"},
		{"CREATE AGGREGATE a (int) SFUNC f STYPE int", "CREATE AGGREGATE"},
		{"DROP AGGREGATE a", "DROP AGGREGATE"},
		{"CREATE TRIGGER tr ON t USING 'c'", "CREATE TRIGGER"},
		{"DROP TRIGGER tr ON t", "DROP TRIGGER"},
		{"CREATE ROLE r", "CREATE ROLE"},
		{"ALTER ROLE r WITH LOGIN = true", "ALTER ROLE"},
		{"DROP ROLE r", "DROP ROLE"},
		{"CREATE USER u", "CREATE USER"},
		{"ALTER USER u SUPERUSER", "ALTER USER"},
		{"DROP USER u", "DROP USER"},
		{"GRANT SELECT ON t TO r", "GRANT"},
		{"GRANT r TO s", "GRANT"},
		{"REVOKE SELECT ON t FROM r", "REVOKE"},
		{"REVOKE r FROM s", "REVOKE"},
		{"LIST ALL", "LIST PERMISSIONS"},
		{"LIST ROLES", "LIST ROLES"},
		{"LIST USERS", "LIST USERS"},
		{"ADD IDENTITY 'i' TO ROLE 'r'", "ADD IDENTITY"},
		{"DROP IDENTITY 'i'", "DROP IDENTITY"},
		{"DESC ks.t", "DESCRIBE"},
		{"SELECT * FROM t WHERE expr(idx, 'q')", "SELECT"},
	} {
		st, err := Parse(tc.in)
		if err != nil {
			t.Errorf("%s: %v", tc.in, err)
			continue
		}
		if got := StatementName(st); got != tc.want {
			t.Errorf("StatementName(%s) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestParseConcurrent parses the golden corpus from several goroutines at
// once: parsers are pooled, and a parse must never see another's tokens.
func TestParseConcurrent(t *testing.T) {
	corpus := corpusFromTestdata(t)
	want := make([]string, len(corpus))
	for i, in := range corpus {
		if st, err := Parse(in); err == nil {
			want[i] = Format(st)
		} else {
			want[i] = err.Error()
		}
	}
	done := make(chan struct{})
	for g := 0; g < 4; g++ {
		go func() {
			defer func() { done <- struct{}{} }()
			for i, in := range corpus {
				got := ""
				if st, err := Parse(in); err == nil {
					got = Format(st)
				} else {
					got = err.Error()
				}
				if got != want[i] {
					t.Errorf("%q: concurrent parse gave %q, want %q", in, got, want[i])
					return
				}
			}
		}()
	}
	for g := 0; g < 4; g++ {
		<-done
	}
}
