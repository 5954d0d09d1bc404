// Package shell is `cqld shell`, a cqlsh-compatible interactive CQL shell
// (Cassandra 5.0's cqlsh 6.2.0 is the specification: bin/cqlsh.py,
// pylib/cqlshlib/cqlshmain.py, formatting.py, displaying.py, copyutil.py).
//
// It connects with the gocql v2 driver and reproduces what cqlsh prints:
//
//	shell.go     Options, Run (exit codes 0/1/2), the input loop, statement
//	             execution with manual paging ("---MORE---"), result tables
//	commands.go  USE, DESCRIBE (server-side; cqlsh's listing layout and
//	             Python's cmd.columnize), CONSISTENCY, SERIAL CONSISTENCY,
//	             PAGING, EXPAND, TRACING, SOURCE, CAPTURE, SHOW, HELP, LOGIN
//	copy.go      COPY TO/FROM with cqlsh's CSV dialect and summary lines
//	split.go     statement splitting (';' outside literals and comments;
//	             shell commands end at the line end)
//	format.go    value formatting per CQL type (formatting.py's rules)
//	table.go     table layout (headers left-, values right-justified) and
//	             EXPAND ON's vertical "@ Row N" blocks
//	errors.go    server errors rendered as the Python driver's exceptions
//	trace.go     TRACING ON's and SHOW SESSION's trace tables
//
// Values are read raw from the driver (an Unmarshaler capturing the
// serialized bytes) and formatted from the result metadata's types, so
// every CQL type prints exactly as cqlsh prints it, independent of the
// driver's Go mappings. Known limits: a tuple column whose components are
// all null prints as null (the driver splits tuples before the shell sees
// them); no tab completion or history file.
//
// TRACING ON requests every statement's pages with tracing and prints
// each trace after the result as cqlsh's print_trace does (trace.go),
// reading system_traces at the shell's consistency level (reads of
// system_traces themselves are not traced); SHOW SESSION prints one by
// id, read at ONE. The driver prepares SELECT, INSERT, UPDATE, DELETE
// and BATCH statements where cqlsh sends them as they are, so the first
// run of such a statement shows two traces, its PREPARE ("Preparing CQL3
// query", with "Parsing ...") and its EXECUTE, and a later run of the
// same text (the driver keeps it prepared) shows the EXECUTE only, with
// no "Parsing ..." event.
package shell
