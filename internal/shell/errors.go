package shell

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// serverSummaries are the Python driver's ErrorMessage summaries by code.
var serverSummaries = map[int]string{
	0x0000: "Server error",
	0x000A: "Protocol error",
	0x0100: "Bad credentials",
	0x1000: "Unavailable exception",
	0x1001: "Coordinator node overloaded",
	0x1002: "Coordinator node is bootstrapping",
	0x1003: "Error during truncate",
	0x1100: "Coordinator node timed out waiting for replica nodes' responses",
	0x1200: "Coordinator node timed out waiting for replica nodes' responses",
	0x1300: "Replica(s) failed to execute read",
	0x1400: "User Defined Function failure",
	0x1500: "Replica(s) failed to execute write",
	0x1600: "Failed to execute write due to CDC space exhaustion.",
	0x2000: "Syntax error in CQL query",
	0x2100: "Unauthorized",
	0x2200: "Invalid query",
	0x2300: "Query invalid because of configuration issue",
	0x2400: "Item already exists",
	0x2500: "Matching prepared statement not found on this node",
}

// serverClasses are the class names cqlsh prints (the exception the Python
// driver raises for each error code).
var serverClasses = map[int]string{
	0x0000: "ServerError",
	0x000A: "ProtocolException",
	0x0100: "BadCredentials",
	0x1000: "Unavailable",
	0x1001: "OverloadedErrorMessage",
	0x1002: "IsBootstrappingErrorMessage",
	0x1003: "TruncateError",
	0x1100: "WriteTimeout",
	0x1200: "ReadTimeout",
	0x1300: "ReadFailure",
	0x1400: "FunctionFailure",
	0x1500: "WriteFailure",
	0x1600: "CDCWriteException",
	0x2000: "SyntaxException",
	0x2100: "Unauthorized",
	0x2200: "InvalidRequest",
	0x2300: "ConfigurationException",
	0x2400: "AlreadyExists",
	0x2500: "PreparedQueryNotFound",
}

// FormatServerError renders a server error as cqlsh prints it: the Python
// driver's exception class, then either its "Error from server: code=...
// [summary] message=..." text (for the errors the driver converts to
// exceptions, with their info dict) or the server's bare message.
func FormatServerError(code int, message string, info string) string {
	class, ok := serverClasses[code]
	if !ok {
		class = "ErrorMessage"
	}
	summary := serverSummaries[code]
	if summary == "" {
		summary = "Unknown"
	}
	full := fmt.Sprintf(`Error from server: code=%04x [%s] message="%s"`, code, summary, message)
	switch code {
	case 0x2200, 0x2100, 0x1400:
		return class + ": " + full
	case 0x1000, 0x1100, 0x1200, 0x1300, 0x1500:
		return class + ": " + full + " info=" + info
	}
	return class + ": " + message
}

// errorText renders any error of a statement as cqlsh does.
func errorText(err error) string {
	if err == nil {
		return ""
	}
	var (
		unavail *gocql.RequestErrUnavailable
		wt      *gocql.RequestErrWriteTimeout
		rt      *gocql.RequestErrReadTimeout
		rf      *gocql.RequestErrReadFailure
		wf      *gocql.RequestErrWriteFailure
		exists  *gocql.RequestErrAlreadyExists
		re      gocql.RequestError
	)
	switch {
	case errors.As(err, &unavail):
		return FormatServerError(unavail.Code(), unavail.Message(), pyDict(
			"consistency", pyStr(unavail.Consistency.String()),
			"required_replicas", fmt.Sprint(unavail.Required),
			"alive_replicas", fmt.Sprint(unavail.Alive)))
	case errors.As(err, &wt):
		return FormatServerError(wt.Code(), wt.Message(), pyDict(
			"consistency", pyStr(wt.Consistency.String()),
			"required_responses", fmt.Sprint(wt.BlockFor),
			"received_responses", fmt.Sprint(wt.Received),
			"write_type", pyStr(wt.WriteType)))
	case errors.As(err, &rt):
		return FormatServerError(rt.Code(), rt.Message(), pyDict(
			"consistency", pyStr(rt.Consistency.String()),
			"required_responses", fmt.Sprint(rt.BlockFor),
			"received_responses", fmt.Sprint(rt.Received)))
	case errors.As(err, &rf):
		return FormatServerError(rf.Code(), rf.Message(), failureInfo(rf.Consistency, rf.BlockFor, rf.Received, rf.NumFailures, rf.ErrorMap))
	case errors.As(err, &wf):
		return FormatServerError(wf.Code(), wf.Message(), failureInfo(wf.Consistency, wf.BlockFor, wf.Received, wf.NumFailures, wf.ErrorMap))
	case errors.As(err, &exists):
		if exists.Table != "" {
			return fmt.Sprintf("AlreadyExists: Table '%s.%s' already exists", exists.Keyspace, exists.Table)
		}
		return fmt.Sprintf("AlreadyExists: Keyspace '%s' already exists", exists.Keyspace)
	case errors.As(err, &re):
		return FormatServerError(re.Code(), re.Message(), "")
	}
	return err.Error()
}

func failureInfo(c gocql.Consistency, required, received, failures int, m gocql.ErrorMap) string {
	kv := []string{
		"consistency", pyStr(c.String()),
		"required_responses", fmt.Sprint(required),
		"received_responses", fmt.Sprint(received),
		"failures", fmt.Sprint(failures),
	}
	if m != nil {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var inner []string
		for _, k := range keys {
			inner = append(inner, pyStr(k)+": "+pyStr(fmt.Sprintf("0x%04x", m[k])))
		}
		kv = append(kv, "error_code_map", "{"+strings.Join(inner, ", ")+"}")
	}
	return pyDict(kv...)
}

// pyDict renders key/value pairs as Python's repr of a dict.
func pyDict(kv ...string) string {
	var parts []string
	for i := 0; i+1 < len(kv); i += 2 {
		parts = append(parts, pyStr(kv[i])+": "+kv[i+1])
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// pyStr is Python's repr of a str.
func pyStr(s string) string {
	if strings.Contains(s, "'") && !strings.Contains(s, `"`) {
		return `"` + s + `"`
	}
	return "'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", `\'`) + "'"
}
