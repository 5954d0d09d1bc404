package shell

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/cqld/cqld/internal/types"
)

// doUse sends USE to the server (for its error) and reconnects with the
// new keyspace (the driver keeps one keyspace per session).
func (s *Shell) doUse(stmt, args string) {
	ks := strings.TrimSpace(args)
	if ks == "" {
		s.printerr("Improper use command.")
		return
	}
	// A leading space keeps the driver from refusing USE statements.
	ctx, cancel := s.ctx()
	defer cancel()
	if err := s.sess.Query(" " + stmt).WithContext(ctx).Exec(); err != nil {
		s.printerr(errorText(s.wrapTimeout(err)))
		return
	}
	old := s.sess
	if err := s.connect(ks); err != nil {
		s.printerr(err.Error())
		return
	}
	old.Close()
	s.keyspace = unquoteName(ks)
}

// describeRow is one row of a server-side DESCRIBE result by column name.
type describeRow map[string][]byte

func (s *Shell) doDescribe(stmt, args string) {
	what := strings.ToLower(firstWord(args))
	var rows []describeRow
	var colTypes map[string]*types.Type
	warnings, err := s.run(stmt, gocql.LocalOne, s.effectivePageSize(), nil, func(r *result, first, last bool) bool {
		if colTypes == nil {
			colTypes = map[string]*types.Type{}
			for i, c := range r.cols {
				colTypes[c.Name] = r.types[i]
			}
		}
		for _, row := range r.rows {
			m := describeRow{}
			for i, c := range r.cols {
				m[c.Name] = row[i]
			}
			rows = append(rows, m)
		}
		return true
	})
	if err != nil {
		// cqlsh prints only the server's message here.
		text := errorText(err)
		if _, after, ok := strings.Cut(text, "message="); ok {
			text = strings.Trim(after, `"`)
		} else {
			text = ""
		}
		s.printerr(text)
	} else {
		switch what {
		case "columnfamilies", "tables", "types", "functions", "aggregates":
			s.describeList(rows)
		case "keyspaces":
			var names []string
			for _, r := range rows {
				names = append(names, string(r["name"]))
			}
			s.println()
			columnize(s.opts.Stdout, names, 80)
			s.println()
		case "cluster":
			s.describeCluster(rows, colTypes)
		default:
			for _, r := range rows {
				s.println()
				fmt.Fprint(s.out, string(r["create_statement"]))
				s.println()
			}
		}
	}
	s.printWarnings(warnings)
}

func (s *Shell) describeList(rows []describeRow) {
	keyspace := ""
	started := false
	var names []string
	flush := func() {
		s.println()
		if s.keyspace == "" {
			s.println("Keyspace " + keyspace)
			s.println("---------" + strings.Repeat("-", len(keyspace)))
		}
		columnize(s.opts.Stdout, names, 80)
	}
	for _, r := range rows {
		ks := string(r["keyspace_name"])
		if !started || ks != keyspace {
			if started {
				flush()
			}
			keyspace, started, names = ks, true, nil
		}
		names = append(names, string(r["name"]))
	}
	if started {
		flush()
		s.println()
	}
}

func (s *Shell) describeCluster(rows []describeRow, colTypes map[string]*types.Type) {
	for _, r := range rows {
		s.println("\nCluster: " + string(r["cluster"]))
		s.println("Partitioner: " + string(r["partitioner"]))
		s.println("Snitch: " + string(r["snitch"]) + "\n")
		if v, ok := r["range_ownership"]; ok && v != nil {
			s.println("Range ownership:")
			ks, vs, _ := types.DecodeMap(v)
			for i := range ks {
				hosts, _ := types.DecodeCollection(vs[i])
				var hs []string
				for _, h := range hosts {
					hs = append(hs, string(h))
				}
				s.println(fmt.Sprintf(" %39s  [%s]", string(ks[i]), strings.Join(hs, ", ")))
			}
			s.println()
		}
	}
}

// columnize is Python's cmd.Cmd.columnize.
func columnize(w interface{ Write([]byte) (int, error) }, list []string, displayWidth int) {
	if len(list) == 0 {
		fmt.Fprint(w, "<empty>\n")
		return
	}
	size := len(list)
	if size == 1 {
		fmt.Fprintf(w, "%s\n", list[0])
		return
	}
	nrows, ncols := 0, 0
	var colwidths []int
	found := false
	for nrows = 1; nrows < size; nrows++ {
		ncols = (size + nrows - 1) / nrows
		colwidths = colwidths[:0]
		totwidth := -2
		for col := 0; col < ncols; col++ {
			colwidth := 0
			for row := 0; row < nrows; row++ {
				i := row + nrows*col
				if i >= size {
					break
				}
				colwidth = max(colwidth, len(list[i]))
			}
			colwidths = append(colwidths, colwidth)
			totwidth += colwidth + 2
			if totwidth > displayWidth {
				break
			}
		}
		if totwidth <= displayWidth {
			found = true
			break
		}
	}
	if !found {
		nrows, ncols, colwidths = size, 1, []int{0}
	}
	for row := 0; row < nrows; row++ {
		var texts []string
		for col := 0; col < ncols; col++ {
			i := row + nrows*col
			x := ""
			if i < size {
				x = list[i]
			}
			texts = append(texts, x)
		}
		for len(texts) > 0 && texts[len(texts)-1] == "" {
			texts = texts[:len(texts)-1]
		}
		for c := range texts {
			texts[c] += strings.Repeat(" ", max(0, colwidths[c]-len(texts[c])))
		}
		fmt.Fprintf(w, "%s\n", strings.Join(texts, "  "))
	}
}

var consistencyLevels = map[string]gocql.Consistency{
	"ANY": gocql.Any, "ONE": gocql.One, "TWO": gocql.Two, "THREE": gocql.Three,
	"QUORUM": gocql.Quorum, "ALL": gocql.All, "LOCAL_QUORUM": gocql.LocalQuorum,
	"EACH_QUORUM": gocql.EachQuorum, "SERIAL": gocql.Serial, "LOCAL_SERIAL": gocql.LocalSerial,
	"LOCAL_ONE": gocql.LocalOne,
}

func (s *Shell) doConsistency(word, args string) {
	if args == "" {
		s.println("Current consistency level is " + s.consistency.String() + ".")
		return
	}
	level := strings.ToUpper(args)
	cl, ok := consistencyLevels[level]
	if !ok {
		s.printerr("Improper CONSISTENCY command.")
		return
	}
	s.consistency = cl
	s.println("Consistency level set to " + level + ".")
}

func (s *Shell) doSerial(args string) {
	rest := strings.TrimSpace(args)
	if strings.ToLower(firstWord(rest)) != "consistency" {
		s.printerr("Improper SERIAL command.")
		return
	}
	level := strings.ToUpper(strings.TrimSpace(rest[len("consistency"):]))
	if level == "" {
		s.println("Current serial consistency level is " + s.serial.String() + ".")
		return
	}
	if level != "SERIAL" && level != "LOCAL_SERIAL" {
		s.printerr("Improper SERIAL command.")
		return
	}
	s.serial = consistencyLevels[level]
	s.println("Serial consistency level set to " + level + ".")
}

// onOff is cqlsh's SwitchCommand.
func (s *Shell) onOff(command, description string, state bool, arg string) bool {
	switch strings.ToUpper(arg) {
	case "":
		if state {
			s.println(fmt.Sprintf("%s is currently enabled. Use %s OFF to disable", description, command))
		} else {
			s.println(fmt.Sprintf("%s is currently disabled. Use %s ON to enable.", description, command))
		}
		return state
	case "ON":
		if state {
			s.printerr(fmt.Sprintf("%s is already enabled. Use %s OFF to disable.", description, command))
			return state
		}
		s.println(fmt.Sprintf("Now %s is enabled", description))
		return true
	case "OFF":
		if !state {
			s.printerr(fmt.Sprintf("%s is not enabled.", description))
			return state
		}
		s.println(fmt.Sprintf("Disabled %s.", description))
		return false
	}
	s.printerr(fmt.Sprintf("Improper %s command.", command))
	return state
}

func (s *Shell) doPaging(args string) {
	if n, err := strconv.Atoi(args); err == nil && n > 0 {
		s.paging = true
		s.pageSize = n
	} else {
		s.paging = s.onOff("PAGING", "Query paging", s.paging, args)
	}
	if s.paging {
		s.println(fmt.Sprintf("Page size: %d", s.pageSize))
	} else {
		s.pageSize = DefaultPageSize
	}
}

func (s *Shell) doExpand(args string) {
	s.expand = s.onOff("EXPAND", "Expanded output", s.expand, args)
}

func (s *Shell) doTracing(args string) {
	s.tracing = s.onOff("TRACING", "Tracing", s.tracing, args)
}

func (s *Shell) doSource(args string) {
	if !strings.HasPrefix(args, "'") {
		s.printerr("Improper SOURCE command.")
		return
	}
	fname := expandUser(unquoteValue(args))
	f, err := os.Open(fname)
	if err != nil {
		s.printerr(fmt.Sprintf("Could not open %s: %s", pyStr(fname), osErr(err, fname)))
		return
	}
	defer f.Close()
	in, name, lineno, tty, nums := s.in, s.inName, s.lineno, s.tty, s.showLineNums
	s.in, s.inName, s.lineno, s.tty, s.showLineNums = bufio.NewReader(f), fname, 1, false, true
	s.loop()
	s.stop = false
	s.in, s.inName, s.lineno, s.tty, s.showLineNums = in, name, lineno, tty, nums
}

func (s *Shell) doCapture(args string) {
	if args == "" {
		if s.captureFile != nil {
			s.println(fmt.Sprintf("Currently capturing query output to %s.", pyStr(s.captureName)))
		} else {
			s.println("Currently not capturing query output.")
		}
		return
	}
	if strings.EqualFold(args, "OFF") {
		if s.captureFile == nil {
			s.printerr("Not currently capturing output.")
			return
		}
		s.captureFile.Close()
		s.captureFile = nil
		s.out = s.opts.Stdout
		s.color = s.opts.Color
		return
	}
	if s.captureFile != nil {
		s.printerr(fmt.Sprintf("Already capturing output to %s. Use CAPTURE OFF to disable.", s.captureName))
		return
	}
	fname := expandUser(unquoteValue(args))
	f, err := os.OpenFile(fname, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		s.printerr(fmt.Sprintf("Could not open %s for append: %s", pyStr(fname), osErr(err, fname)))
		return
	}
	s.captureFile, s.captureName, s.out = f, fname, f
	s.color = false
	s.println(fmt.Sprintf("Now capturing query output to %s.", pyStr(fname)))
}

func (s *Shell) doShow(args string) {
	switch w := strings.ToLower(firstWord(args)); w {
	case "version":
		s.showVersion()
	case "host":
		s.showHost()
	case "session":
		id, err := gocql.ParseUUID(strings.TrimSpace(args[len("session"):]))
		if err != nil {
			s.printerr("Improper SHOW command.")
			return
		}
		s.showSession(id, false)
	case "replicas":
		s.println("['" + s.opts.Host + "']")
	default:
		s.printerr("Improper SHOW command.")
	}
}

var helpTopics = map[string]string{
	"CAPTURE":     "CAPTURE '<file>'; CAPTURE OFF; CAPTURE;\n\n  Begins capturing query output and appending it to a file; OFF stops.",
	"CLEAR":       "CLEAR/CLS\n\n  Clears the console.",
	"CLS":         "CLEAR/CLS\n\n  Clears the console.",
	"CONSISTENCY": "CONSISTENCY [<level>]\n\n  Shows or sets the consistency level (default ONE): ANY, ONE, TWO, THREE,\n  QUORUM, ALL, LOCAL_ONE, LOCAL_QUORUM, EACH_QUORUM, SERIAL, LOCAL_SERIAL.",
	"COPY":        "COPY <table> [(<column>, ...)] TO ('<file>' | STDOUT) [WITH <option>='value' [AND ...]];\nCOPY <table> [(<column>, ...)] FROM ('<file>' | STDIN) [WITH <option>='value' [AND ...]];\n\n  Options: DELIMITER, QUOTE, ESCAPE, HEADER, NULL, BOOLSTYLE, PAGESIZE,\n  MAXROWS, SKIPROWS, FLOATPRECISION, DOUBLEPRECISION.",
	"DESC":        "DESCRIBE (KEYSPACES | KEYSPACE [<ks>] | TABLES | TABLE <t> | TYPES | TYPE <t> | CLUSTER | [FULL] SCHEMA | <name>)\n\n  Outputs the schema as CQL (answered by the server).",
	"DESCRIBE":    "DESCRIBE (KEYSPACES | KEYSPACE [<ks>] | TABLES | TABLE <t> | TYPES | TYPE <t> | CLUSTER | [FULL] SCHEMA | <name>)\n\n  Outputs the schema as CQL (answered by the server).",
	"EXIT":        "EXIT/QUIT\n\n  Exits cqlsh.",
	"EXPAND":      "EXPAND [ON | OFF]\n\n  Enables or disables expanded (vertical) output.",
	"HELP":        "HELP [<topic>]\n\n  Gives information about cqlsh commands.",
	"LOGIN":       "LOGIN <username> ['<password>']\n\n  Changes login information without restarting.",
	"PAGING":      "PAGING [ON | OFF | <page size>]\n\n  Enables or disables query paging, or sets the page size (default 100).",
	"SERIAL":      "SERIAL CONSISTENCY [SERIAL | LOCAL_SERIAL]\n\n  Shows or sets the serial consistency level of conditional updates.",
	"SHOW":        "SHOW VERSION | SHOW HOST | SHOW SESSION <session id>\n\n  Shows the versions in use, where cqlsh is connected, or a tracing session.",
	"SOURCE":      "SOURCE '<file>'\n\n  Executes the CQL statements of a file.",
	"TRACING":     "TRACING [ON | OFF]\n\n  Enables or disables request tracing: each statement's trace is printed after its result.",
}

func (s *Shell) doHelp(args string) {
	if args == "" {
		topics := make([]string, 0, len(helpTopics))
		for t := range helpTopics {
			topics = append(topics, t)
		}
		sortStrings(topics)
		header := "\nDocumented shell commands:"
		s.println(header)
		s.println(strings.Repeat("=", len(header)))
		columnize(s.opts.Stdout, topics, 79)
		s.println()
		return
	}
	for _, t := range strings.Fields(args) {
		if h, ok := helpTopics[strings.ToUpper(t)]; ok {
			s.println("\n        " + strings.ReplaceAll(h, "\n", "\n        ") + "\n")
		} else {
			s.printerr("*** No help on " + t)
		}
	}
}

func (s *Shell) doLogin(args string) {
	fields := strings.Fields(args)
	if len(fields) < 1 || len(fields) > 2 {
		s.printerr("Improper LOGIN command.")
		return
	}
	user, pass := fields[0], ""
	if len(fields) == 2 {
		pass = unquoteValue(fields[1])
	} else {
		fmt.Fprint(s.opts.Stdout, "Password: ")
		line, _ := s.in.ReadString('\n')
		pass = strings.TrimRight(line, "\r\n")
	}
	oldUser, oldPass, old := s.opts.Username, s.opts.Password, s.sess
	s.opts.Username, s.opts.Password = user, pass
	ks := s.keyspace
	if ks != "" {
		ks = `"` + strings.ReplaceAll(ks, `"`, `""`) + `"`
	}
	if err := s.connect(ks); err != nil {
		s.opts.Username, s.opts.Password = oldUser, oldPass
		s.printerr(err.Error())
		return
	}
	old.Close()
}

func sortStrings(a []string) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}
