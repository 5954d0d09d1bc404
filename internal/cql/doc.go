// Package cql turns CQL text into a sealed AST and back.
//
// It owns the lexer (lexer.go, keywords.go), the hand-written
// recursive-descent parser (parser.go and parse_*.go), the AST (ast.go), the
// canonical printer (format.go) and BindMarkerCount (walk.go). It knows
// nothing about schemas: "is this column a map", "does this table exist" and
// every other semantic check belong to the query layer.
//
// # Grammar
//
// The reference is Apache Cassandra 5.0's src/antlr/Lexer.g and Parser.g.
// Rule names from Parser.g are used in comments so that the two can be read
// side by side. The lexer follows Lexer.g's longest-match rule, with ties
// going to the rule listed first (so "P1D" is a duration, "p1d" an
// identifier), and like Lexer.g it reads "-1" as one INTEGER token.
//
// Every statement of Parser.g's cqlStatement has an AST: DML (SELECT,
// INSERT, UPDATE, DELETE, BATCH, USE, TRUNCATE; ast.go), schema statements
// (keyspaces, tables incl. ALTER TABLE and column masks, indexes incl.
// CUSTOM/SAI, user types, materialized views, functions, aggregates,
// triggers), security statements (roles, users, GRANT/REVOKE of permissions
// and roles, LIST ROLES/USERS/SUPERUSERS/permissions, identities) and
// DESCRIBE in all its forms (ast_schema.go). StatementName names a
// statement as users say it ("CREATE INDEX"), for the executor to answer
// "X is not supported by cqld yet" for features not built yet. A custom
// index expression in a WHERE clause (expr(index, 'query')) is a Relation
// with Index set and no column.
//
// Files: parse_select.go, parse_where.go, parse_dml.go (DML), parse_ddl.go
// (USE, TRUNCATE, CREATE TABLE, properties), parse_schema.go (CREATE/ALTER/
// DROP dispatch and the other schema statements), parse_auth.go (security
// statements and DESCRIBE), format.go and format_schema.go (printing).
//
// # Invariants
//
//   - Unquoted identifiers and keywords are case-insensitive; unquoted names
//     are lower-cased, quoted names keep their case with "" un-doubled.
//     Unreserved keywords (key, type, ttl, count, json, values, options, ...)
//     are accepted wherever Parser.g accepts them as names.
//   - Bind markers are numbered 0, 1, ... per statement in order of
//     appearance, including those in USING, LIMIT, IN and IF clauses and in
//     the statements of a batch; BindMarkerCount(s) is the number of values
//     to bind. Named markers (:name) are numbered like positional ones.
//   - String literals hold their unescaped value; every other literal keeps
//     its text as written, except booleans (lower-cased) and NaN/Infinity
//     (spelled "NaN", "Infinity", "-Infinity"). The negation of a number or
//     duration literal is folded into the literal ("- 5" is Literal "-5").
//   - A single parenthesised term is that term; '{}' is an empty map
//     literal; a tuple is only built for two or more elements, except where
//     the grammar requires a tuple (the right-hand side of multi-column
//     relations), where (x) is a one-element TupleLiteral.
//   - Parse never panics and never recurses without bound: nesting deeper
//     than maxDepth is a syntax error.
//   - Format(s) prints canonical CQL that parses back to s (up to the
//     numbering of markers, as USING is printed TTL first).
//
// # Errors
//
// Errors are *cqlerr.Error. Syntax errors have code SyntaxError and
// Cassandra's shape: "line L:C <message> (<context with [offending]
// token>)", where the message is "no viable alternative at input 'X'",
// "mismatched input 'X' expecting Y", a lexer message for an unterminated
// string or an unknown character, or one of the messages Cassandra raises
// from parser actions ("Multiple definition for property 'x'", "Only
// expressions of the form X = <value> + X are supported.", ...). The few
// checks Cassandra makes while building a statement during parsing
// (duplicate column definitions, several PRIMARY KEY clauses, duplicate
// CLUSTERING ORDER columns) are Invalid errors with Cassandra's text.
//
// # Deliberate differences from Cassandra's parser
//
//   - "a-1" and "a -1" are accepted as subtraction (Cassandra's lexer makes
//     "-1" a number and rejects them), except in "SET c = c -1", which is
//     Cassandra's addition of -1.
//   - JSON and DISTINCT after SELECT are taken as keywords only when the
//     rest of the select clause parses up to FROM; otherwise they are column
//     names, so "SELECT json AS j FROM t" works.
//   - A type hint in a select clause must apply to a term: "(b) AS x" is
//     the column b with an alias.
//   - None of the post-5.0 forms of trunk's Parser.g is accepted: NOT IN,
//     NOT CONTAINS [KEY], BETWEEN, LIST SUPERUSERS, GENERATED PASSWORD,
//     CREATE TABLE ... LIKE, CHECK constraints are syntax errors, and
//     SUPERUSERS, GENERATED, BETWEEN are plain identifiers, as in 5.0.
//   - Errors that Cassandra raises by throwing a SyntaxException from a
//     parser action ("Options 'password' and 'hashed password' are mutually
//     exclusive", "COMPACT STORAGE tables are not allowed starting with
//     version 4.0") carry a "line L:C" position like the others.
//   - GRANT/REVOKE/LIST decide between a permission list and a role name by
//     one token of lookahead: ALL, UNMASK and SELECT_MASKED followed by TO
//     (GRANT) or FROM (REVOKE) are role names.
package cql
