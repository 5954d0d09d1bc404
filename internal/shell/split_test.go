package shell

import (
	"reflect"
	"testing"
)

func TestSplitStatements(t *testing.T) {
	for _, c := range []struct {
		in         string
		want       []string
		incomplete bool
	}{
		{"SELECT 1;", []string{"SELECT 1"}, false},
		{"select a\nfrom t\nwhere k = 1;\n", []string{"select a\nfrom t\nwhere k = 1"}, false},
		{"INSERT INTO t (k, v) VALUES (1, 'a;b');", []string{"INSERT INTO t (k, v) VALUES (1, 'a;b')"}, false},
		{"INSERT INTO t (k, v) VALUES (1, 'it''s;');", []string{"INSERT INTO t (k, v) VALUES (1, 'it''s;')"}, false},
		{`SELECT "we;ird" FROM t;`, []string{`SELECT "we;ird" FROM t`}, false},
		{"CREATE FUNCTION f() RETURNS NULL ON NULL INPUT RETURNS int LANGUAGE java AS $$ return 1; $$;", []string{"CREATE FUNCTION f() RETURNS NULL ON NULL INPUT RETURNS int LANGUAGE java AS $$ return 1; $$"}, false},
		{"-- a comment; with semicolon\nSELECT 1; // another;\n/* block;\n;*/ SELECT 2;", []string{"SELECT 1", "SELECT 2"}, false},
		{"SELECT 1; SELECT 2;;", []string{"SELECT 1", "SELECT 2"}, false},
		{"DESCRIBE KEYSPACES\nSELECT 1;", []string{"DESCRIBE KEYSPACES", "SELECT 1"}, false},
		{"desc table t\n", []string{"desc table t"}, false},
		{"PAGING OFF\nEXPAND ON;\n", []string{"PAGING OFF", "EXPAND ON"}, false},
		{"SELECT 1", nil, true},
		{"SELECT 'unterminated;\n", nil, true},
		{"-- only a comment\n", nil, false},
		{"exit", []string{"exit"}, false},
		{"BEGIN BATCH\n INSERT INTO t (k) VALUES (1);\n INSERT INTO t (k) VALUES (';');\nAPPLY BATCH;\nSELECT 1;",
			[]string{"BEGIN BATCH\n INSERT INTO t (k) VALUES (1);\n INSERT INTO t (k) VALUES (';');\nAPPLY BATCH", "SELECT 1"}, false},
		{"begin unlogged batch insert into t (k) values (1); apply batch;", []string{"begin unlogged batch insert into t (k) values (1); apply batch"}, false},
		{"BEGIN BATCH INSERT INTO t (k) VALUES (1);", nil, true},
	} {
		got, inc := SplitStatements(c.in)
		if !reflect.DeepEqual(got, c.want) || inc != c.incomplete {
			t.Errorf("%q: got %q (incomplete %v), want %q (incomplete %v)", c.in, got, inc, c.want, c.incomplete)
		}
	}
}

func TestSplitterIncremental(t *testing.T) {
	var s Splitter
	if got := s.Feed("SELECT *\n"); len(got) != 0 || !s.Pending() {
		t.Fatalf("first line: %q pending=%v", got, s.Pending())
	}
	if got := s.Feed("FROM t WHERE v = 'a\n"); len(got) != 0 {
		t.Fatalf("second line: %q", got)
	}
	got := s.Feed("b;' ; SELECT 2;\n")
	want := []string{"SELECT *\nFROM t WHERE v = 'a\nb;'", "SELECT 2"}
	if !reflect.DeepEqual(got, want) || s.Pending() {
		t.Fatalf("got %q pending=%v", got, s.Pending())
	}
}

func TestParseCopy(t *testing.T) {
	c, err := parseCopy(`ks.t (a, "B") TO '/tmp/x.csv' WITH HEADER = true AND DELIMITER = '|'`, "")
	if err != nil {
		t.Fatal(err)
	}
	if c.ks != "ks" || c.table != "t" || !reflect.DeepEqual(c.columns, []string{"a", "B"}) || c.from ||
		c.file != "/tmp/x.csv" || c.opts["header"] != "true" || c.opts["delimiter"] != "|" {
		t.Fatalf("%+v", c)
	}
	if _, err := parseCopy(`t FROM 'x.csv'`, ""); err == nil || err.Error() != "Not in any keyspace." {
		t.Fatalf("no keyspace: %v", err)
	}
	c, err = parseCopy(`t FROM STDIN`, "ks")
	if err != nil || !c.from || c.file != "" {
		t.Fatalf("%+v %v", c, err)
	}
}
