package cql

import "strings"

// cassandraReserved are Cassandra 5.0's reserved keywords
// (reserved_keywords.txt): identifiers spelled like them must be quoted.
var cassandraReserved = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`add allow alter and apply asc authorize batch begin by columnfamily create
		delete desc describe drop entries execute from full grant if in index infinity insert into is keyspace
		limit materialized modify nan norecursive not null of on or order primary rename revoke schema select
		set table to token truncate unlogged update use using view where with`) {
		m[w] = true
	}
	return m
}()

// MaybeQuote is Cassandra's ColumnIdentifier.maybeQuote: an identifier is
// printed as is when it is lower case, starts with a letter and is not a
// reserved keyword, and double-quoted (with "" escapes) otherwise. Messages,
// type strings, schema tables and DESCRIBE all print names this way.
func MaybeQuote(s string) string {
	ok := s != "" && s[0] >= 'a' && s[0] <= 'z'
	for i := 1; i < len(s) && ok; i++ {
		c := s[i]
		ok = c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_'
	}
	if ok && !cassandraReserved[s] {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}
