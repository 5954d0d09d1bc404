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
// Statements with an AST: SELECT, INSERT, UPDATE, DELETE, BATCH, USE,
// TRUNCATE, CREATE/ALTER/DROP KEYSPACE, CREATE TABLE and DROP TABLE. Every
// other statement of the grammar (indexes, views, types, functions,
// aggregates, triggers, roles, users, permissions, identities, DESCRIBE,
// ALTER TABLE/TYPE/VIEW) is recognised by its leading keywords, the rest of
// it is skipped, and it is returned as *Unsupported naming it ("CREATE
// INDEX"), for the executor to answer "X is not supported by cqld yet". A
// supported statement that uses a construct with no AST yet (dynamic data
// masking, custom index expressions, selectors that build collections or
// tuples out of columns) is returned as *Unsupported too.
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
// from parser actions ("Multiple definition for property x", "Only
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
//   - NOT IN, NOT CONTAINS and NOT CONTAINS KEY are accepted, as the AST
//     has them; BETWEEN (Cassandra 5.1) is not.
package cql
