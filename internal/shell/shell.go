package shell

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/cqld/cqld/internal/types"
)

// Version is the cqlsh version the shell reports (Cassandra 5.0's cqlsh).
const Version = "6.2.0"

// builtAgainst is the Cassandra release this cqlsh "was built against";
// a different server release gets cqlsh's startup warning.
const builtAgainst = "5.0.4"

// DefaultPageSize is cqlsh's default page size.
const DefaultPageSize = 100

// Options configure a shell session (cqlsh's command line).
type Options struct {
	Host            string
	Port            int
	Username        string
	Password        string
	Keyspace        string
	Execute         string // -e: run this and exit
	File            string // -f: run this file and exit
	ProtocolVersion int    // 0: negotiate (v5, falling back to v4 and v3)
	// Color enables cqlsh's ANSI colors (cqlsh: when stdout is a terminal,
	// unless --no-color or -f; -C forces it).
	Color          bool
	ConnectTimeout time.Duration
	RequestTimeout time.Duration
	Debug          bool
	// TTY makes the session interactive: prompts, the connection banner,
	// "---MORE---" pauses between pages. cqlsh decides it from whether
	// stdin is a terminal; -e and -f force it off.
	TTY bool
	// HandleInterrupt makes Ctrl-C cancel the running query or the
	// statement being typed instead of ending the process (interactive
	// sessions on a terminal).
	HandleInterrupt bool
	Stdin           io.Reader
	Stdout          io.Writer
	Stderr          io.Writer
}

// Shell is one cqlsh-compatible session.
type Shell struct {
	opts        Options
	cluster     *gocql.ClusterConfig
	sess        *gocql.Session
	proto       int
	clusterName string

	keyspace    string
	consistency gocql.Consistency
	serial      gocql.Consistency
	paging      bool
	pageSize    int
	expand      bool
	tracing     bool
	format      FormatOptions
	color       bool
	kinds       map[string]map[string]string // ks.table -> column -> kind

	out         io.Writer // query output (CAPTURE redirects it)
	captureFile *os.File
	captureName string

	// current input
	in           *bufio.Reader
	inName       string
	lineno       int
	tty          bool
	showLineNums bool
	stop         bool
	hadError     bool

	// Ctrl-C handling (Options.HandleInterrupt).
	interrupted atomic.Bool
	mu          sync.Mutex
	cancelCur   context.CancelFunc
	canceled    bool
}

// errInterrupted reports a query cancelled by Ctrl-C.
var errInterrupted = errors.New("interrupted")

type nopLogger struct{}

func (nopLogger) Error(string, ...gocql.LogField)   {}
func (nopLogger) Warning(string, ...gocql.LogField) {}
func (nopLogger) Info(string, ...gocql.LogField)    {}
func (nopLogger) Debug(string, ...gocql.LogField)   {}

// Run runs a shell session and returns the process exit status: 0, 1 when
// it cannot connect or open its file, 2 when a statement of a
// non-interactive session (-e, -f, piped stdin) failed (cqlsh's codes).
func Run(opts Options) int {
	if opts.Host == "" {
		opts.Host = "127.0.0.1"
	}
	if opts.Port == 0 {
		opts.Port = 9042
	}
	if opts.ConnectTimeout == 0 {
		opts.ConnectTimeout = 5 * time.Second
	}
	if opts.RequestTimeout == 0 {
		opts.RequestTimeout = 10 * time.Second
	}
	if opts.Stdin == nil {
		opts.Stdin = os.Stdin
	}
	if opts.Stdout == nil {
		opts.Stdout = os.Stdout
	}
	if opts.Stderr == nil {
		opts.Stderr = os.Stderr
	}
	if opts.Execute != "" || opts.File != "" {
		opts.TTY = false
	}
	stdin := bufio.NewReader(opts.Stdin)
	if opts.Password != "" {
		fmt.Fprint(opts.Stderr, "\nWarning: Using a password on the command line interface can be insecure."+
			"\nRecommendation: use the credentials file to securely provide the password.\n\n")
	} else if opts.Username != "" {
		fmt.Fprint(opts.Stdout, "Password: ")
		line, _ := stdin.ReadString('\n')
		opts.Password = strings.TrimRight(line, "\r\n")
	}
	s := &Shell{
		opts:        opts,
		consistency: gocql.One,
		serial:      gocql.Serial,
		paging:      true,
		pageSize:    DefaultPageSize,
		format:      DefaultFormat(),
		color:       opts.Color,
		out:         opts.Stdout,
		in:          stdin,
		inName:      "<stdin>",
		lineno:      1,
		tty:         opts.TTY,
	}
	if tz := os.Getenv("TZ"); tz != "" {
		if loc, err := time.LoadLocation(tz); err == nil {
			s.format.Location = loc
		}
	}
	if opts.File != "" {
		f, err := os.Open(opts.File)
		if err != nil {
			fmt.Fprintf(opts.Stderr, "Can't open %s: %s\n", pyStr(opts.File), osErr(err, opts.File))
			return 1
		}
		defer f.Close()
		s.in = bufio.NewReader(f)
		s.inName = opts.File
	}
	if opts.Debug {
		fmt.Fprintf(opts.Stderr, "Using CQL driver: gocql %s\n", "v2")
		fmt.Fprintf(opts.Stderr, "Using connect timeout: %d seconds\n", int(opts.ConnectTimeout/time.Second))
		fmt.Fprintf(opts.Stderr, "Using 'utf-8' encoding\n")
		fmt.Fprintf(opts.Stderr, "Using ssl: False\n")
	}
	if err := s.connect(opts.Keyspace); err != nil {
		fmt.Fprintf(opts.Stderr, "Connection error: %s\n", err)
		return 1
	}
	defer func() {
		s.sess.Close()
		if s.captureFile != nil {
			s.captureFile.Close()
		}
	}()
	s.keyspace = opts.Keyspace
	if !strings.HasPrefix(opts.Keyspace, `"`) {
		s.keyspace = strings.ToLower(opts.Keyspace)
	} else {
		s.keyspace = unquoteName(opts.Keyspace)
	}
	release, _, _ := s.versions()
	if base, _, _ := strings.Cut(release, "-"); base != builtAgainst {
		fmt.Fprintf(opts.Stdout, "WARNING: cqlsh was built against %s, but this server is %s.  All features may not work!\n", builtAgainst, base)
	}
	if s.tty {
		s.showHost()
		s.showVersion()
		fmt.Fprintln(opts.Stdout, "Use HELP for help.")
	} else {
		s.showLineNums = true
	}
	if opts.HandleInterrupt {
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, os.Interrupt)
		defer signal.Stop(sigs)
		go s.watchInterrupts(sigs)
	}
	if opts.Execute != "" {
		stmt := opts.Execute
		if !strings.HasSuffix(stmt, ";") {
			stmt += ";"
		}
		var sp Splitter
		for _, st := range sp.Feed(stmt) {
			if s.stop {
				break
			}
			s.handle(st)
		}
		if !s.stop {
			stmts, _ := sp.Flush()
			for _, st := range stmts {
				s.handle(st)
			}
		}
	} else {
		s.loop()
	}
	if !s.tty && s.hadError {
		return 2
	}
	return 0
}

// connect opens the session (cqlsh's Cluster(...).connect(keyspace)).
func (s *Shell) connect(keyspace string) error {
	c := gocql.NewCluster(s.opts.Host)
	c.Port = s.opts.Port
	c.ConnectTimeout = s.opts.ConnectTimeout
	c.Timeout = s.opts.RequestTimeout
	c.Consistency = gocql.One
	c.NumConns = 1
	c.DisableInitialHostLookup = true
	if !s.opts.Debug {
		c.Logger = nopLogger{}
	}
	if keyspace != "" {
		c.Keyspace = unquoteName(keyspace)
		if !strings.HasPrefix(keyspace, `"`) {
			c.Keyspace = strings.ToLower(keyspace)
		}
	}
	if s.opts.Username != "" {
		c.Authenticator = gocql.PasswordAuthenticator{Username: s.opts.Username, Password: s.opts.Password}
	}
	addr := net.JoinHostPort(s.opts.Host, strconv.Itoa(s.opts.Port))
	if conn, err := net.DialTimeout("tcp", addr, s.opts.ConnectTimeout); err != nil {
		detail := "OSError(None, " + pyStr(fmt.Sprintf("Tried connecting to [('%s', %d)]. Last error: %v", s.opts.Host, s.opts.Port, err)) + ")"
		switch {
		case errors.Is(err, syscall.ECONNREFUSED):
			detail = fmt.Sprintf("ConnectionRefusedError(111, \"Tried connecting to [('%s', %d)]. Last error: Connection refused\")", s.opts.Host, s.opts.Port)
		case os.IsTimeout(err):
			detail = fmt.Sprintf("OperationTimedOut('errors=Timed out creating connection (%d seconds), last_host=None')", int(s.opts.ConnectTimeout/time.Second))
		}
		return fmt.Errorf("('Unable to connect to any servers', {'%s:%d': %s})", s.opts.Host, s.opts.Port, detail)
	} else {
		conn.Close()
	}
	protos := []int{s.opts.ProtocolVersion}
	switch {
	case s.proto != 0:
		protos = []int{s.proto} // reconnecting (USE, LOGIN)
	case s.opts.ProtocolVersion == 0:
		protos = []int{5, 4, 3}
	}
	var err error
	for _, p := range protos {
		c.ProtoVersion = p
		var sess *gocql.Session
		sess, err = c.CreateSession()
		if err == nil {
			s.cluster, s.sess, s.proto = c, sess, p
			s.clusterName = s.localString("cluster_name")
			return nil
		}
		var re gocql.RequestError
		if errors.As(err, &re) && re.Code() != 0x000A {
			break // a real server error (bad keyspace, credentials): don't retry
		}
	}
	detail := err.Error()
	var re gocql.RequestError
	_, serverMsg, wrapped := strings.Cut(detail, "unable to connect to initial hosts: ")
	switch {
	case errors.As(err, &re):
		detail = pyException(err)
	case wrapped && s.opts.Username != "" && (strings.Contains(serverMsg, "password") || strings.Contains(serverMsg, "credentials")):
		// The driver flattens the server's Bad credentials error.
		detail = "AuthenticationFailed(" + pyStr(fmt.Sprintf(`Failed to authenticate to %s:%d: Error from server: code=0100 [Bad credentials] message="%s"`, s.opts.Host, s.opts.Port, serverMsg)) + ")"
	case keyspace != "" && s.sess == nil:
		// The driver hides why USE failed; ask the server for its error.
		c.Keyspace = ""
		if sess, err2 := c.CreateSession(); err2 == nil {
			if err3 := sess.Query(" USE " + keyspace).Exec(); err3 != nil {
				detail = pyException(err3)
			}
			sess.Close()
		}
	}
	return fmt.Errorf("('Unable to connect to any servers', {'%s:%d': %s})", s.opts.Host, s.opts.Port, detail)
}

// pyException renders an error as the repr of the Python driver's
// exception, e.g. InvalidRequest('Error from server: ...').
func pyException(err error) string {
	class, msg, _ := strings.Cut(errorText(err), ": ")
	return class + "(" + pyStr(msg) + ")"
}

func (s *Shell) localString(col string) string {
	var v string
	_ = s.sess.Query("SELECT " + col + " FROM system.local WHERE key = 'local'").Scan(&v)
	return v
}

func (s *Shell) versions() (release, cqlVersion string, proto int) {
	_ = s.sess.Query("SELECT release_version, cql_version FROM system.local WHERE key = 'local'").Scan(&release, &cqlVersion)
	return release, cqlVersion, s.proto
}

func (s *Shell) showHost() {
	name := s.clusterName
	if s.color {
		name = ansiBlue + name + ansiReset
	}
	fmt.Fprintf(s.opts.Stdout, "Connected to %s at %s:%d\n", name, s.opts.Host, s.opts.Port)
}

func (s *Shell) showVersion() {
	release, cqlVersion, proto := s.versions()
	fmt.Fprintf(s.opts.Stdout, "[cqlsh %s | Cassandra %s | CQL spec %s | Native protocol v%d]\n", Version, release, cqlVersion, proto)
}

func (s *Shell) prompt(continuation bool) string {
	if continuation {
		if s.keyspace == "" {
			return "   ... "
		}
		return strings.Repeat(" ", len(s.keyspace)) + "    ... "
	}
	p := "cqlsh> "
	if s.keyspace != "" {
		p = "cqlsh:" + s.keyspace + "> "
	}
	if s.opts.Username != "" {
		p = s.opts.Username + "@" + p
	}
	return p
}

// loop is cqlsh's cmdloop over the current input.
func (s *Shell) loop() {
	var sp Splitter
	emptyLines := 0
	prompt := s.prompt(false)
	for !s.stop {
		if s.tty {
			io.WriteString(s.opts.Stdout, prompt)
		}
		line, err := s.in.ReadString('\n')
		if line != "" {
			s.lineno++
			if s.interrupted.Swap(false) {
				sp.Reset()
				emptyLines = 0
			}
			if err != nil && s.tty {
				line += "\n"
			}
			for _, st := range sp.Feed(line) {
				if s.stop {
					break
				}
				s.handle(st)
			}
			// cqlsh's reset_prompt / set_continue_prompt.
			switch {
			case !sp.Pending():
				prompt, emptyLines = s.prompt(false), 0
			case emptyLines >= 3:
				prompt, emptyLines = "Statements are terminated with a ';'.  You can press CTRL-C to cancel an incomplete statement.", 0
			default:
				prompt = s.prompt(true)
				if strings.TrimRight(line, "\r\n") == "" {
					emptyLines++
				} else {
					emptyLines = 0
				}
			}
		}
		if err != nil {
			// EOF: cqlsh's handle_eof.
			if s.tty {
				fmt.Fprintln(s.opts.Stdout)
			}
			if !s.stop {
				stmts, incomplete := sp.Flush()
				for _, st := range stmts {
					if s.stop {
						break
					}
					s.handle(st)
				}
				if incomplete {
					s.printerr("Incomplete statement at end of file")
				}
			}
			return
		}
	}
}

// printerr prints an error as cqlsh's printerr: on stderr, prefixed with
// "FILE:LINE:" when the input is not interactive.
func (s *Shell) printerr(text string) {
	s.hadError = true
	if s.showLineNums {
		text = fmt.Sprintf("%s:%d:%s", s.inName, s.lineno, text)
	}
	if s.color {
		text = ansiRed + text + ansiReset
	}
	fmt.Fprintln(s.opts.Stderr, text)
}

// println prints shell messages (not query results) on stdout.
func (s *Shell) println(a ...any) { fmt.Fprintln(s.opts.Stdout, a...) }

// writeresult writes query output (captured by CAPTURE).
func (s *Shell) writeresult(text string) { io.WriteString(s.out, text+"\n") }

// handle runs one complete statement or shell command.
func (s *Shell) handle(stmt string) {
	word := strings.ToLower(firstWord(stmt))
	args := strings.TrimSpace(skipSpaceAndComments(stmt)[len(word):])
	switch word {
	case "use":
		s.doUse(stmt, args)
	case "describe", "desc":
		s.doDescribe(stmt, args)
	case "consistency":
		s.doConsistency(word, args)
	case "serial":
		s.doSerial(args)
	case "paging":
		s.doPaging(args)
	case "expand":
		s.doExpand(args)
	case "tracing":
		s.doTracing(args)
	case "source":
		s.doSource(args)
	case "capture":
		s.doCapture(args)
	case "show":
		s.doShow(args)
	case "clear", "cls":
		io.WriteString(s.opts.Stdout, "\033[H\033[2J")
	case "help", "?":
		s.doHelp(args)
	case "exit", "quit":
		if args != "" {
			s.printerr(fmt.Sprintf("Improper %s command.", firstWord(stmt)))
			return
		}
		s.stop = true
	case "copy":
		s.doCopy(args)
	case "login":
		s.doLogin(args)
	default:
		s.perform(stmt)
	}
}

// result is one page of a statement result: columns, their types, raw rows.
type result struct {
	cols  []gocql.ColumnInfo
	types []*types.Type
	rows  [][][]byte
}

// rawCell captures one column's serialized value.
type rawCell struct{ data []byte }

func (r *rawCell) UnmarshalCQL(_ gocql.TypeInfo, data []byte) error {
	if data == nil {
		r.data = nil
	} else {
		r.data = append([]byte{}, data...)
	}
	return nil
}

// rawValue binds already-serialized bytes.
type rawValue []byte

func (r rawValue) MarshalCQL(gocql.TypeInfo) ([]byte, error) { return r, nil }

// readPage reads every row of one page of iter.
func readPage(iter *gocql.Iter) *result {
	cols := iter.Columns()
	res := &result{cols: cols}
	var dest []interface{}
	var cells []*rawCell
	var widths []int
	for _, c := range cols {
		res.types = append(res.types, convertType(c.TypeInfo))
		n := 1
		if tt, ok := c.TypeInfo.(gocql.TupleTypeInfo); ok {
			n = len(tt.Elems)
		}
		widths = append(widths, n)
		for i := 0; i < n; i++ {
			rc := &rawCell{}
			cells = append(cells, rc)
			dest = append(dest, rc)
		}
	}
	if len(cols) == 0 {
		return res
	}
	for iter.Scan(dest...) {
		row := make([][]byte, len(cols))
		k := 0
		for i, c := range cols {
			if _, ok := c.TypeInfo.(gocql.TupleTypeInfo); ok {
				comps := make([][]byte, widths[i])
				allNull := true
				for j := range comps {
					comps[j] = cells[k+j].data
					allNull = allNull && comps[j] == nil
				}
				if !allNull {
					row[i] = types.EncodeTuple(comps)
				}
			} else {
				row[i] = cells[k].data
			}
			k += widths[i]
		}
		res.rows = append(res.rows, row)
	}
	return res
}

// convertType maps the driver's type description to a CQL type.
func convertType(ti gocql.TypeInfo) *types.Type {
	switch x := ti.(type) {
	case gocql.CollectionType:
		switch x.Type() {
		case gocql.TypeList:
			return types.ListOf(convertType(x.Elem), false)
		case gocql.TypeSet:
			return types.SetOf(convertType(x.Elem), false)
		case gocql.TypeMap:
			return types.MapOf(convertType(x.Key), convertType(x.Elem), false)
		}
	case gocql.TupleTypeInfo:
		var ps []*types.Type
		for _, e := range x.Elems {
			ps = append(ps, convertType(e))
		}
		return types.TupleOf(ps...)
	case gocql.UDTTypeInfo:
		t := &types.Type{Kind: types.UDT, Keyspace: x.Keyspace, Name: x.Name, Frozen: true}
		for _, f := range x.Elements {
			t.FieldNames = append(t.FieldNames, f.Name)
			t.Params = append(t.Params, convertType(f.Type))
		}
		return t
	case gocql.VectorType:
		return &types.Type{Kind: types.Vector, Params: []*types.Type{convertType(x.SubType)}, Dimension: x.Dimensions}
	}
	if ti == nil {
		return types.BlobType
	}
	switch ti.Type() {
	case gocql.TypeAscii:
		return types.AsciiType
	case gocql.TypeBigInt:
		return types.BigintType
	case gocql.TypeBlob:
		return types.BlobType
	case gocql.TypeBoolean:
		return types.BooleanType
	case gocql.TypeCounter:
		return types.CounterType
	case gocql.TypeDecimal:
		return types.DecimalType
	case gocql.TypeDouble:
		return types.DoubleType
	case gocql.TypeFloat:
		return types.FloatType
	case gocql.TypeInt:
		return types.IntType
	case gocql.TypeText, gocql.TypeVarchar:
		return types.TextType
	case gocql.TypeTimestamp:
		return types.TimestampType
	case gocql.TypeUUID:
		return types.UUIDType
	case gocql.TypeVarint:
		return types.VarintType
	case gocql.TypeTimeUUID:
		return types.TimeuuidType
	case gocql.TypeInet:
		return types.InetType
	case gocql.TypeDate:
		return types.DateType
	case gocql.TypeTime:
		return types.TimeType
	case gocql.TypeSmallInt:
		return types.SmallintType
	case gocql.TypeTinyInt:
		return types.TinyintType
	case gocql.TypeDuration:
		return types.DurationType
	}
	return &types.Type{Kind: types.Custom}
}

// ctx is the context of one request; Ctrl-C cancels it.
func (s *Shell) ctx() (context.Context, context.CancelFunc) {
	return s.ctxFor(s.opts.RequestTimeout + 5*time.Second)
}

// ctxFor is ctx with a timeout of d.
func (s *Shell) ctxFor(d time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	s.mu.Lock()
	s.cancelCur = cancel
	s.mu.Unlock()
	return ctx, func() {
		s.mu.Lock()
		s.cancelCur = nil
		s.mu.Unlock()
		cancel()
	}
}

// watchInterrupts is cqlsh's KeyboardInterrupt handling: Ctrl-C cancels
// the running request, or drops the statement being typed and shows a
// fresh prompt.
func (s *Shell) watchInterrupts(sigs <-chan os.Signal) {
	for range sigs {
		s.mu.Lock()
		if s.cancelCur != nil {
			s.canceled = true
			s.cancelCur()
			s.mu.Unlock()
			continue
		}
		s.mu.Unlock()
		s.interrupted.Store(true)
		io.WriteString(s.opts.Stdout, "\n"+s.prompt(false))
	}
}

// run executes a statement and calls onPage for each page (the first
// one even when empty). It returns the warnings and the first error.
// With a tracer, every page is requested with tracing.
func (s *Shell) run(stmt string, cl gocql.Consistency, pageSize int, tracer gocql.Tracer, onPage func(r *result, first, last bool) bool) ([]string, error) {
	var state []byte
	var warnings []string
	first := true
	for {
		ctx, cancel := s.ctx()
		q := s.sess.Query(stmt).WithContext(ctx).Consistency(cl).SerialConsistency(s.serial).PageSize(pageSize).PageState(state)
		if tracer != nil {
			q = q.Trace(tracer)
		}
		iter := q.Iter()
		res := readPage(iter)
		if first {
			warnings = iter.Warnings() // before Close, which drops them
		}
		err := iter.Close()
		state = iter.PageState()
		cancel()
		if err != nil {
			return warnings, s.wrapTimeout(err)
		}
		last := len(state) == 0
		if !onPage(res, first, last) || last {
			return warnings, nil
		}
		first = false
	}
}

func (s *Shell) wrapTimeout(err error) error {
	s.mu.Lock()
	canceled := s.canceled
	s.canceled = false
	s.mu.Unlock()
	if canceled && errors.Is(err, context.Canceled) {
		return errInterrupted
	}
	if errors.Is(err, gocql.ErrTimeoutNoResponse) || errors.Is(err, context.DeadlineExceeded) {
		host := s.opts.Host + ":" + strconv.Itoa(s.opts.Port)
		return fmt.Errorf("OperationTimedOut: errors={'%s': 'Client request timeout. See Session.execute[_async](timeout)'}, last_host=%s", host, host)
	}
	return err
}

func (s *Shell) effectivePageSize() int {
	if s.paging {
		return s.pageSize
	}
	return 5000 // the Python driver's default fetch size
}

// perform runs a CQL statement and prints its result as cqlsh does.
func (s *Shell) perform(stmt string) bool {
	isSelect := len(stmt) >= 6 && strings.EqualFold(stmt[:6], "select")
	lower := strings.ToLower(stmt)
	isList := strings.HasPrefix(lower, "list")
	total := 0
	printed := false
	var names []cell
	var tracer gocql.Tracer
	traces := &traceIDs{}
	// cqlsh's do_select does not trace reads of system_traces.
	tracing := s.tracing && !(isSelect && s.selectsFrom(stmt, "system_traces"))
	if tracing {
		tracer = traces
	}
	warnings, err := s.run(stmt, s.consistency, s.effectivePageSize(), tracer, func(r *result, first, last bool) bool {
		if first {
			names = make([]cell, len(r.cols))
			for i, c := range r.cols {
				names[i] = newCell(formatText(c.Name, false))
				if s.color {
					names[i].text = s.columnColor(c) + names[i].text + ansiReset
				}
			}
		}
		if isSelect || isList {
			if first {
				s.writeresult("")
			}
			if len(r.rows) > 0 || first {
				s.printStatic(names, r, first || s.tty, total)
				total += len(r.rows)
			}
			if !last {
				if s.captureFile == nil && s.tty {
					io.WriteString(s.opts.Stdout, "---MORE---")
					if _, err := s.in.ReadString('\n'); err != nil {
						return false
					}
				}
			} else if !s.tty {
				s.writeresult("")
			}
			printed = true
			return true
		}
		if len(r.rows) > 0 && first {
			// A conditional update's [applied] row.
			s.writeresult("")
			s.printStatic(names, r, true, 0)
		}
		return false
	})
	if errors.Is(err, errInterrupted) {
		s.println()
		return false
	}
	if err != nil {
		s.printerr(errorText(err))
		return false
	}
	if printed {
		s.writeresult(fmt.Sprintf("(%d rows)", total))
	}
	s.printWarnings(warnings)
	if tracing {
		s.printStatementTraces(traces.list())
	}
	return true
}

// columnColor is cqlsh's myformat_colname: partition key columns red,
// clustering columns cyan, static columns white, others magenta.
func (s *Shell) columnColor(c gocql.ColumnInfo) string {
	key := c.Keyspace + "." + c.Table
	kinds, ok := s.kinds[key]
	if !ok {
		kinds = map[string]string{}
		iter := s.sess.Query(`SELECT column_name, kind FROM system_schema.columns WHERE keyspace_name = ? AND table_name = ?`, c.Keyspace, c.Table).Iter()
		var name, kind string
		for iter.Scan(&name, &kind) {
			kinds[name] = kind
		}
		_ = iter.Close()
		if s.kinds == nil {
			s.kinds = map[string]map[string]string{}
		}
		s.kinds[key] = kinds
	}
	switch kinds[c.Name] {
	case "partition_key":
		return ansiRed
	case "clustering":
		return ansiCyan
	case "static":
		return ansiWhite
	}
	return ansiMagenta
}

func (s *Shell) formatRows(r *result) [][]cell {
	rows := make([][]cell, len(r.rows))
	for i, row := range r.rows {
		cells := make([]cell, len(row))
		for j, v := range row {
			cells[j] = s.valueCell(r.types[j], v)
		}
		rows[i] = cells
	}
	return rows
}

// valueCell formats a value as a table cell: its width is the plain
// text's, its text colored when colors are on.
func (s *Shell) valueCell(t *types.Type, v []byte) cell {
	c := newCell(FormatValue(t, v, s.format))
	if s.color {
		o := s.format
		o.Color = true
		c.text = FormatValue(t, v, o)
	}
	return c
}

// printStatic is cqlsh's print_static_result.
func (s *Shell) printStatic(names []cell, r *result, withHeader bool, offset int) {
	if len(r.cols) == 0 {
		return
	}
	if len(r.rows) == 0 {
		writeTable(s.out, names, nil, true, s.tty)
		return
	}
	rows := s.formatRows(r)
	if s.expand {
		writeVertical(s.out, names, rows, offset)
		return
	}
	writeTable(s.out, names, rows, withHeader, s.tty)
}

func (s *Shell) printWarnings(ws []string) {
	if len(ws) == 0 {
		return
	}
	s.writeresult("")
	s.writeresult("Warnings :")
	for _, w := range ws {
		s.writeresult(w)
		s.writeresult("")
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// unquoteName returns a CQL name as stored: double-quoted names unquoted,
// others lower-cased.
func unquoteName(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return strings.ReplaceAll(s[1:len(s)-1], `""`, `"`)
	}
	return strings.ToLower(s)
}

// unquoteValue strips a single-quoted string literal.
func unquoteValue(s string) string {
	if len(s) >= 2 && s[0] == '\'' && s[len(s)-1] == '\'' {
		return strings.ReplaceAll(s[1:len(s)-1], "''", "'")
	}
	return s
}

func osErr(err error, name string) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		switch {
		case errors.Is(err, os.ErrNotExist):
			return "[Errno 2] No such file or directory: " + pyStr(name)
		case errors.Is(err, os.ErrPermission):
			return "[Errno 13] Permission denied: " + pyStr(name)
		}
		return pe.Err.Error()
	}
	return err.Error()
}

func expandUser(p string) string {
	if strings.HasPrefix(p, "~") {
		if home, err := os.UserHomeDir(); err == nil {
			return home + p[1:]
		}
	}
	return p
}
