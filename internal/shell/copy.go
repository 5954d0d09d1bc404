package shell

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/cqld/cqld/internal/cql"
	"github.com/cqld/cqld/internal/types"
)

// copyWorkers is the number of concurrent inserts of COPY FROM.
const copyWorkers = 8

// copyCmd is a parsed COPY command.
type copyCmd struct {
	ks, table string
	columns   []string
	from      bool
	file      string // "" for STDIN/STDOUT
	opts      map[string]string
}

// lexCopy splits a COPY command into tokens: names (possibly quoted),
// string literals (kept quoted), punctuation and bare words.
func lexCopy(s string) []string {
	var toks []string
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '\'' || c == '"':
			j := i + 1
			for j < len(s) {
				if s[j] == c {
					if j+1 < len(s) && s[j+1] == c {
						j += 2
						continue
					}
					break
				}
				j++
			}
			toks = append(toks, s[i:min(j+1, len(s))])
			i = j + 1
		case strings.ContainsRune("(),.=", rune(c)):
			toks = append(toks, string(c))
			i++
		default:
			j := i
			for j < len(s) && !strings.ContainsRune(" \t\r\n(),.='\"", rune(s[j])) {
				j++
			}
			toks = append(toks, s[i:j])
			i = j
		}
	}
	return toks
}

func parseCopy(args string, current string) (*copyCmd, error) {
	bad := errors.New("Improper COPY command.")
	toks := lexCopy(args)
	c := &copyCmd{opts: map[string]string{}}
	i := 0
	next := func() string {
		if i < len(toks) {
			i++
			return toks[i-1]
		}
		return ""
	}
	name := next()
	if name == "" {
		return nil, bad
	}
	if i < len(toks) && toks[i] == "." {
		i++
		c.ks = unquoteName(name)
		c.table = unquoteName(next())
	} else {
		c.ks = current
		c.table = unquoteName(name)
	}
	if i < len(toks) && toks[i] == "(" {
		i++
		for {
			col := next()
			if col == "" {
				return nil, bad
			}
			c.columns = append(c.columns, unquoteName(col))
			sep := next()
			if sep == ")" {
				break
			}
			if sep != "," {
				return nil, bad
			}
		}
	}
	switch strings.ToUpper(next()) {
	case "FROM":
		c.from = true
	case "TO":
	default:
		return nil, bad
	}
	f := next()
	switch {
	case strings.HasPrefix(f, "'"):
		c.file = expandUser(unquoteValue(f))
	case strings.EqualFold(f, "STDIN") && c.from, strings.EqualFold(f, "STDOUT") && !c.from:
	default:
		return nil, bad
	}
	if i < len(toks) {
		if !strings.EqualFold(next(), "WITH") {
			return nil, bad
		}
		for {
			k := strings.ToLower(next())
			if next() != "=" {
				return nil, bad
			}
			v := next()
			if v == "" {
				return nil, bad
			}
			c.opts[k] = unquoteValue(v)
			if i >= len(toks) {
				break
			}
			if !strings.EqualFold(next(), "AND") {
				return nil, bad
			}
		}
	}
	if c.ks == "" {
		return nil, errors.New("Not in any keyspace.")
	}
	return c, nil
}

// tableColumns returns the table's columns in the Python driver's order
// (partition key, clustering, then the others by name) and their types.
func (s *Shell) tableColumns(ks, table string) ([]string, map[string]*types.Type, error) {
	type col struct {
		name, kind, typ string
		pos             int
	}
	var cols []col
	iter := s.sess.Query(`SELECT column_name, kind, position, type FROM system_schema.columns WHERE keyspace_name = ? AND table_name = ?`, ks, table).Iter()
	var c col
	for iter.Scan(&c.name, &c.kind, &c.pos, &c.typ) {
		cols = append(cols, c)
	}
	if err := iter.Close(); err != nil {
		return nil, nil, err
	}
	if len(cols) == 0 {
		return nil, nil, fmt.Errorf("Column family %s not found", table)
	}
	rank := map[string]int{"partition_key": 0, "clustering": 1}
	sort.SliceStable(cols, func(i, j int) bool {
		ri, ok := rank[cols[i].kind]
		if !ok {
			ri = 2
		}
		rj, ok := rank[cols[j].kind]
		if !ok {
			rj = 2
		}
		if ri != rj {
			return ri < rj
		}
		if ri < 2 {
			return cols[i].pos < cols[j].pos
		}
		return cols[i].name < cols[j].name
	})
	udts := map[string]*types.Type{}
	var resolve func(name string) (*types.Type, error)
	resolve = func(name string) (*types.Type, error) {
		name = unquoteName(name)
		if _, n, ok := strings.Cut(name, "."); ok {
			name = n
		}
		if t, ok := udts[name]; ok {
			return t, nil
		}
		var fieldNames, fieldTypes []string
		if err := s.sess.Query(`SELECT field_names, field_types FROM system_schema.types WHERE keyspace_name = ? AND type_name = ?`, ks, name).Scan(&fieldNames, &fieldTypes); err != nil {
			return nil, fmt.Errorf("unknown type %s", name)
		}
		t := &types.Type{Kind: types.UDT, Keyspace: ks, Name: name, FieldNames: fieldNames}
		for _, ft := range fieldTypes {
			p, err := types.ParseTypeStringWith(ft, resolve)
			if err != nil {
				return nil, err
			}
			t.Params = append(t.Params, p)
		}
		udts[name] = t
		return t, nil
	}
	names := make([]string, len(cols))
	typs := map[string]*types.Type{}
	for i, c := range cols {
		names[i] = c.name
		t, err := types.ParseTypeStringWith(c.typ, resolve)
		if err != nil {
			return nil, nil, err
		}
		typs[c.name] = t
	}
	return names, typs, nil
}

func (s *Shell) doCopy(args string) {
	c, err := parseCopy(args, s.keyspace)
	if err != nil {
		s.printerr(err.Error())
		return
	}
	all, typs, err := s.tableColumns(c.ks, c.table)
	if err != nil {
		s.printerr(errorText(err))
		return
	}
	if c.columns == nil {
		c.columns = all
	}
	for _, col := range c.columns {
		if _, ok := typs[col]; !ok {
			s.printerr("Invalid column name " + col)
			return
		}
	}
	d := csvDialect{delim: ',', quote: '"', escape: '\\'}
	for k, v := range c.opts {
		switch k {
		case "delimiter":
			d.delim = firstRune(v, ',')
		case "quote":
			d.quote = firstRune(v, '"')
		case "escape":
			d.escape = firstRune(v, '\\')
		}
	}
	if c.from {
		s.copyFrom(c, typs, d)
	} else {
		s.copyTo(c, d)
	}
}

func firstRune(s string, def rune) rune {
	for _, r := range s {
		return r
	}
	return def
}

type csvDialect struct{ delim, quote, escape rune }

// writeRecord writes a CSV record as Python's csv.writer with cqlsh's
// dialect (QUOTE_MINIMAL, doublequote=False, escapechar, "\r\n").
func (d csvDialect) writeRecord(w io.Writer, fields []string) {
	var b strings.Builder
	for i, f := range fields {
		if i > 0 {
			b.WriteRune(d.delim)
		}
		var fb strings.Builder
		quoted := len(fields) == 1 && f == ""
		for _, r := range f {
			switch {
			case r == d.quote && d.quote == d.escape:
				fb.WriteRune(r)
				fb.WriteRune(r)
				quoted = true
				continue
			case r == d.quote || r == d.escape:
				fb.WriteRune(d.escape)
			case r == d.delim || r == '\r' || r == '\n':
				quoted = true
			}
			fb.WriteRune(r)
		}
		if quoted {
			b.WriteRune(d.quote)
			b.WriteString(fb.String())
			b.WriteRune(d.quote)
		} else {
			b.WriteString(fb.String())
		}
	}
	b.WriteString("\r\n")
	io.WriteString(w, b.String())
}

// readRecord reads one CSV record (fields may span lines when quoted).
func (d csvDialect) readRecord(r *bufio.Reader) ([]string, error) {
	var fields []string
	var f strings.Builder
	inQuote, any := false, false
	for {
		ch, _, err := r.ReadRune()
		if err != nil {
			if !any {
				return nil, err
			}
			return append(fields, f.String()), nil
		}
		any = true
		switch {
		case ch == d.escape && d.escape != d.quote:
			n, _, err := r.ReadRune()
			if err == nil {
				f.WriteRune(n)
			}
		case ch == d.quote && inQuote:
			if d.escape == d.quote {
				if n, _, err := r.ReadRune(); err == nil {
					if n == d.quote {
						f.WriteRune(n)
						continue
					}
					r.UnreadRune()
				}
			}
			inQuote = false
		case ch == d.quote:
			inQuote = true
		case inQuote:
			f.WriteRune(ch)
		case ch == d.delim:
			fields = append(fields, f.String())
			f.Reset()
		case ch == '\r':
		case ch == '\n':
			return append(fields, f.String()), nil
		default:
			f.WriteRune(ch)
		}
	}
}

func describeInterval(d time.Duration) string {
	return fmt.Sprintf("%.03f seconds", d.Seconds())
}

func (s *Shell) copyTo(c *copyCmd, d csvDialect) {
	start := time.Now()
	var w io.Writer = s.opts.Stdout
	if c.file != "" {
		f, err := os.Create(c.file)
		if err != nil {
			s.printerr(fmt.Sprintf("Can't open %s for writing: %s", pyStr(c.file), osErr(err, c.file)))
			return
		}
		defer f.Close()
		bw := bufio.NewWriter(f)
		defer bw.Flush()
		w = bw
	}
	o := s.format
	o.MillisOnly = true
	o.Null = c.opts["null"]
	o.FloatPrecision = atoiDefault(c.opts["floatprecision"], 5)
	o.DoublePrecision = atoiDefault(c.opts["doubleprecision"], 12)
	boolStyle := [2]string{"True", "False"}
	if bs, ok := c.opts["boolstyle"]; ok {
		parts := strings.Split(bs, ",")
		if len(parts) == 2 {
			boolStyle = [2]string{strings.TrimSpace(parts[0]), strings.TrimSpace(parts[1])}
		}
	}
	o.BoolStyle = &boolStyle
	pageSize := atoiDefault(c.opts["pagesize"], 1000)
	maxRows := atoiDefault(c.opts["maxrows"], -1)
	s.println("Using 1 child processes")
	s.println("\nStarting copy of " + c.ks + "." + c.table + " with columns [" + strings.Join(c.columns, ", ") + "].")
	if strings.EqualFold(c.opts["header"], "true") {
		d.writeRecord(w, c.columns)
	}
	quoted := make([]string, len(c.columns))
	for i, col := range c.columns {
		quoted[i] = cql.MaybeQuote(col)
	}
	stmt := "SELECT " + strings.Join(quoted, ", ") + " FROM " + cql.MaybeQuote(c.ks) + "." + cql.MaybeQuote(c.table)
	n := 0
	_, err := s.run(stmt, s.consistency, pageSize, nil, func(r *result, first, last bool) bool {
		for _, row := range r.rows {
			if maxRows >= 0 && n >= maxRows {
				return false
			}
			fields := make([]string, len(row))
			for i, v := range row {
				if v == nil || (len(v) == 0 && r.types[i].Kind != types.Text && r.types[i].Kind != types.Ascii && r.types[i].Kind != types.Blob) {
					fields[i] = o.Null
					continue
				}
				if k := r.types[i].Kind; k == types.Text || k == types.Ascii {
					fields[i] = string(v)
					continue
				}
				prec := o.FloatPrecision
				if r.types[i].Kind == types.Double {
					prec = o.DoublePrecision
				}
				var b strings.Builder
				formatInto(&b, r.types[i], v, false, prec, o)
				fields[i] = b.String()
			}
			d.writeRecord(w, fields)
			n++
		}
		return true
	})
	if err != nil {
		s.printerr(errorText(err))
		return
	}
	s.progress(n, start)
	files := 1
	if c.file == "" {
		files = 0
	}
	s.println(fmt.Sprintf("\n%d rows exported to %d files in %s.", n, files, describeInterval(time.Since(start))))
}

func (s *Shell) progress(n int, start time.Time) {
	el := time.Since(start).Seconds()
	rate := 0.0
	if el > 0 {
		rate = float64(n) / el
	}
	fmt.Fprintf(s.opts.Stdout, "Processed: %d rows; Rate: %7.0f rows/s; Avg. rate: %7.0f rows/s\r", n, math.Round(rate), math.Round(rate))
}

func atoiDefault(s string, def int) int {
	if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil {
		return n
	}
	return def
}

func (s *Shell) copyFrom(c *copyCmd, typs map[string]*types.Type, d csvDialect) {
	start := time.Now()
	var in *bufio.Reader
	if c.file != "" {
		f, err := os.Open(c.file)
		if err != nil {
			s.printerr(fmt.Sprintf("Can't open %s for reading: %s", pyStr(c.file), osErr(err, c.file)))
			return
		}
		defer f.Close()
		in = bufio.NewReader(f)
	} else {
		s.println("[Use \\. on a line by itself to end input]")
		in = s.in
	}
	nullVal := c.opts["null"]
	header := strings.EqualFold(c.opts["header"], "true")
	skipRows := atoiDefault(c.opts["skiprows"], 0)
	maxRows := atoiDefault(c.opts["maxrows"], -1)
	boolStyle := [2]string{"true", "false"}
	if bs, ok := c.opts["boolstyle"]; ok {
		parts := strings.Split(bs, ",")
		if len(parts) == 2 {
			boolStyle = [2]string{strings.ToLower(strings.TrimSpace(parts[0])), strings.ToLower(strings.TrimSpace(parts[1]))}
		}
	}
	s.println("Using 1 child processes")
	s.println("\nStarting copy of " + c.ks + "." + c.table + " with columns [" + strings.Join(c.columns, ", ") + "].")
	quoted := make([]string, len(c.columns))
	marks := make([]string, len(c.columns))
	for i, col := range c.columns {
		quoted[i] = cql.MaybeQuote(col)
		marks[i] = "?"
	}
	stmtHead := "INSERT INTO " + cql.MaybeQuote(c.ks) + "." + cql.MaybeQuote(c.table) + " (" + strings.Join(quoted, ", ") + ") VALUES ("
	stmtTail := ""
	if ttl := atoiDefault(c.opts["ttl"], -1); ttl >= 0 {
		stmtTail = " USING TTL " + strconv.Itoa(ttl)
	}
	stmt := stmtHead + strings.Join(marks, ", ") + ")" + stmtTail
	hasTuple := false
	for _, col := range c.columns {
		hasTuple = hasTuple || typs[col].Kind == types.Tuple
	}
	// Rows are inserted by a few concurrent workers (cqlsh uses worker
	// processes); failures are reported as they happen.
	type job struct {
		stmt string
		bind []interface{}
	}
	var (
		mu            sync.Mutex
		wg            sync.WaitGroup
		n, failed     int
		skipped, line int
		processed     int
		jobs          = make(chan job, 256)
		cl            = s.consistency
		done          = make(chan struct{})
	)
	fail := func(msg string) {
		mu.Lock()
		failed++
		s.printerr(msg)
		mu.Unlock()
	}
	for w := 0; w < copyWorkers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				ctx, cancel := context.WithTimeout(context.Background(), s.opts.RequestTimeout+5*time.Second)
				err := s.sess.Query(j.stmt, j.bind...).WithContext(ctx).Consistency(cl).Exec()
				cancel()
				if err != nil {
					fail(fmt.Sprintf("Failed to import 1 rows: %s,  given up after 1 attempts", errorText(err)))
					continue
				}
				mu.Lock()
				n++
				mu.Unlock()
			}
		}()
	}
	if s.tty {
		go func() {
			t := time.NewTicker(250 * time.Millisecond)
			defer t.Stop()
			for {
				select {
				case <-done:
					return
				case <-t.C:
					mu.Lock()
					s.progress(n, start)
					mu.Unlock()
				}
			}
		}()
	}
	for {
		if c.file == "" {
			if peek, err := in.Peek(3); err == nil && (string(peek) == "\\.\n" || string(peek[:2]) == "\\." && peek[2] == '\r') {
				in.ReadString('\n')
				break
			}
		}
		rec, err := d.readRecord(in)
		if err != nil {
			break
		}
		line++
		if header && line == 1 {
			continue
		}
		if skipped < skipRows {
			skipped++
			continue
		}
		if maxRows >= 0 && processed >= maxRows {
			break
		}
		processed++
		if len(rec) != len(c.columns) {
			fail(fmt.Sprintf("Failed to import 1 rows: ParseError - Invalid row length %d should be %d,  given up without retries", len(rec), len(c.columns)))
			continue
		}
		vals := make([]interface{}, len(rec))
		var perr error
		for i, f := range rec {
			t := typs[c.columns[i]]
			if f == nullVal {
				vals[i] = rawValue(nil)
				continue
			}
			if t.Kind == types.Boolean {
				switch strings.ToLower(f) {
				case boolStyle[0]:
					f = "true"
				case boolStyle[1]:
					f = "false"
				}
			}
			v, err := parseCSVValue(t, f)
			if err != nil {
				perr = fmt.Errorf("Failed to import 1 rows: ParseError - Failed to parse %s : %s,  given up without retries", f, cqlMessage(err))
				break
			}
			vals[i] = rawValue(v)
		}
		if perr != nil {
			fail(perr.Error())
			continue
		}
		// The driver cannot bind tuple columns of prepared statements (it
		// counts their components but marshals whole columns), so tuples
		// are written as CQL literals.
		rowStmt, bind := stmt, vals
		if hasTuple {
			bind = nil
			lits := make([]string, len(vals))
			for i, v := range vals {
				t := typs[c.columns[i]]
				if t.Kind == types.Tuple {
					if v.(rawValue) == nil {
						lits[i] = "null"
					} else {
						lits[i] = types.FormatCQL(t, v.(rawValue))
					}
					continue
				}
				lits[i] = "?"
				bind = append(bind, v)
			}
			rowStmt = stmtHead + strings.Join(lits, ", ") + ")" + stmtTail
		}
		jobs <- job{rowStmt, bind}
	}
	close(jobs)
	wg.Wait()
	close(done)
	s.progress(n, start)
	if failed > 0 {
		s.printerr(fmt.Sprintf("Failed to process %d rows", failed))
	}
	files := 1
	if c.file == "" {
		files = 0
	}
	s.println(fmt.Sprintf("\n%d rows imported from %d files in %s (%d skipped).", n, files, describeInterval(time.Since(start)), skipped))
}

func cqlMessage(err error) string {
	var re gocql.RequestError
	if errors.As(err, &re) {
		return re.Message()
	}
	return err.Error()
}

// parseCSVValue converts one CSV field to a serialized value of t: the
// text form cqlsh's COPY TO writes (collections as {'a': 1}, UDTs as
// {f: 'v'}, tuples as (1, 'a')).
func parseCSVValue(t *types.Type, s string) ([]byte, error) {
	switch t.Kind {
	case types.Text, types.Ascii:
		return types.ParseString(t, s)
	case types.List, types.Set, types.Map, types.Tuple, types.UDT, types.Vector:
		p := &litParser{s: s}
		v, err := p.value(t)
		if err != nil {
			return nil, err
		}
		p.skip()
		if p.i != len(p.s) {
			return nil, fmt.Errorf("unexpected %q", p.s[p.i:])
		}
		return v, nil
	}
	return types.ParseString(t, strings.TrimSpace(s))
}

// litParser parses cqlsh's formatted collection values.
type litParser struct {
	s string
	i int
}

func (p *litParser) skip() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

func (p *litParser) eat(c byte) bool {
	p.skip()
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *litParser) errorf() error {
	return fmt.Errorf("cannot parse %q at position %d", p.s, p.i)
}

// atom reads a quoted string (unquoted) or a bare token up to , : ] } ).
func (p *litParser) atom() (string, bool, error) {
	p.skip()
	if p.i < len(p.s) && p.s[p.i] == '\'' {
		var b strings.Builder
		j := p.i + 1
		for j < len(p.s) {
			if p.s[j] == '\'' {
				if j+1 < len(p.s) && p.s[j+1] == '\'' {
					b.WriteByte('\'')
					j += 2
					continue
				}
				p.i = j + 1
				return b.String(), true, nil
			}
			b.WriteByte(p.s[j])
			j++
		}
		return "", false, p.errorf()
	}
	j := p.i
	for j < len(p.s) && !strings.ContainsRune(",:]})", rune(p.s[j])) {
		j++
	}
	tok := strings.TrimSpace(p.s[p.i:j])
	p.i = j
	return tok, false, nil
}

func (p *litParser) value(t *types.Type) ([]byte, error) {
	p.skip()
	switch t.Kind {
	case types.List, types.Set, types.Vector:
		open, end := byte('['), byte(']')
		if t.Kind == types.Set {
			open, end = '{', '}'
		}
		if !p.eat(open) {
			return nil, p.errorf()
		}
		var elems [][]byte
		if !p.eat(end) {
			for {
				e, err := p.value(t.Params[0])
				if err != nil {
					return nil, err
				}
				elems = append(elems, e)
				if p.eat(end) {
					break
				}
				if !p.eat(',') {
					return nil, p.errorf()
				}
			}
		}
		switch t.Kind {
		case types.Set:
			return types.EncodeSet(t.Params[0], elems), nil
		case types.Vector:
			return types.EncodeVector(t, elems), nil
		}
		return types.EncodeList(elems), nil
	case types.Map:
		if !p.eat('{') {
			return nil, p.errorf()
		}
		var ks, vs [][]byte
		if !p.eat('}') {
			for {
				k, err := p.value(t.Params[0])
				if err != nil {
					return nil, err
				}
				if !p.eat(':') {
					return nil, p.errorf()
				}
				v, err := p.value(t.Params[1])
				if err != nil {
					return nil, err
				}
				ks, vs = append(ks, k), append(vs, v)
				if p.eat('}') {
					break
				}
				if !p.eat(',') {
					return nil, p.errorf()
				}
			}
		}
		return types.EncodeMap(t.Params[0], ks, vs), nil
	case types.Tuple:
		if !p.eat('(') {
			return nil, p.errorf()
		}
		comps := make([][]byte, len(t.Params))
		for i := range t.Params {
			if i > 0 && !p.eat(',') {
				break
			}
			v, err := p.value(t.Params[i])
			if err != nil {
				return nil, err
			}
			comps[i] = v
		}
		if !p.eat(')') {
			return nil, p.errorf()
		}
		return types.EncodeTuple(comps), nil
	case types.UDT:
		if !p.eat('{') {
			return nil, p.errorf()
		}
		comps := make([][]byte, len(t.Params))
		if !p.eat('}') {
			for {
				name, _, err := p.atom()
				if err != nil {
					return nil, err
				}
				idx := -1
				for i, f := range t.FieldNames {
					if f == name {
						idx = i
					}
				}
				if idx < 0 {
					for i, f := range t.FieldNames {
						if f == unquoteName(name) {
							idx = i
						}
					}
				}
				if idx < 0 || !p.eat(':') {
					return nil, p.errorf()
				}
				v, err := p.value(t.Params[idx])
				if err != nil {
					return nil, err
				}
				comps[idx] = v
				if p.eat('}') {
					break
				}
				if !p.eat(',') {
					return nil, p.errorf()
				}
			}
		}
		// Trailing null fields are omitted, as Cassandra serializes UDTs.
		last := len(comps)
		for last > 0 && comps[last-1] == nil {
			last--
		}
		return types.EncodeTuple(comps[:last]), nil
	}
	tok, quoted, err := p.atom()
	if err != nil {
		return nil, err
	}
	if !quoted && tok == "null" {
		return nil, nil
	}
	return types.ParseString(t, tok)
}
