package cql

import (
	"sort"
	"strings"
	"sync"

	"github.com/cqld/cqld/internal/cqlerr"
)

// Parse parses exactly one CQL statement, optionally followed by ';'.
//
// Errors are *cqlerr.Error values: SyntaxError for malformed text (with
// Cassandra's "line L:C ..." messages), and Invalid for the few checks that
// Cassandra also makes while parsing (duplicate column definitions, several
// PRIMARY KEY clauses, ...).
func Parse(src string) (Statement, error) {
	p, err := newParser(src)
	if err != nil {
		return nil, err
	}
	defer p.release()
	var st Statement
	if err := p.run(func() {
		st = p.statement()
		for p.accept(tkSemicolon) {
		}
		if p.tok().kind != tkEOF {
			p.mismatched("EOF")
		}
	}); err != nil {
		return nil, err
	}
	return st, nil
}

// ParseStatements parses a script of ';'-separated statements (a schema
// file, a cqlsh SOURCE file). Empty statements are skipped.
func ParseStatements(src string) ([]Statement, error) {
	p, err := newParser(src)
	if err != nil {
		return nil, err
	}
	defer p.release()
	var out []Statement
	if err := p.run(func() {
		for {
			for p.accept(tkSemicolon) {
			}
			if p.tok().kind == tkEOF {
				return
			}
			out = append(out, p.statement())
			if p.tok().kind != tkEOF && !p.accept(tkSemicolon) {
				p.mismatched("';'")
			}
		}
	}); err != nil {
		return nil, err
	}
	return out, nil
}

// ParseType parses a CQL type as written in DDL, e.g. "frozen<map<text, int>>".
func ParseType(src string) (TypeExpr, error) {
	p, err := newParser(src)
	if err != nil {
		return TypeExpr{}, err
	}
	defer p.release()
	var t TypeExpr
	if err := p.run(func() {
		t = p.typeExpr()
		if p.tok().kind != tkEOF {
			p.mismatched("EOF")
		}
	}); err != nil {
		return TypeExpr{}, err
	}
	return t, nil
}

// maxDepth bounds the nesting of parenthesised, bracketed and braced
// constructs, so that hostile input cannot exhaust the goroutine stack
// (which Go cannot recover from).
const maxDepth = 200

// parser is a recursive-descent parser over the token slice produced by lex.
//
// Errors are raised by panicking with a *bailout, which run converts back
// into an error; try and alternatives use the same mechanism to backtrack
// (ANTLR's syntactic predicates). Any other panic is a parser bug: try
// re-raises it and run reports it as a ServerError rather than taking the
// server down (the fuzz test treats that as a failure).
type parser struct {
	src  string
	toks []token
	p    int // index of the current token

	// markers is the number of bind markers seen so far; the next marker
	// gets this index.
	markers int
	// splitMinus is the index of a negative number token whose '-' was
	// taken as a binary minus (see additiveOp), or -1.
	splitMinus int
	depth      int
	// assignDepth is the depth of the top-level term of an UPDATE value
	// (see additiveOp), or 0.
	assignDepth int
}

// bailout carries a parse error up to run or try. For syntax errors only
// the message and the byte offset of the offending token are recorded: the
// "line L:C" prefix and the context snippet are built by run, once, so that
// failed speculative alternatives stay cheap. pos also serves to pick the
// most advanced of several failed alternatives.
type bailout struct {
	err *cqlerr.Error // a complete error (Invalid); nil for syntax errors
	msg string
	pos int
	// snip is where the snippet marks the offending token: pos, except
	// after a failed LL(2) decision, where ANTLR reports the second token
	// but the stream is back at the first.
	snip int
}

// parserPool recycles parsers and their token slices: tokens never outlive
// a parse (the AST copies what it needs), so a statement costs no token
// allocation in the steady state.
var parserPool = sync.Pool{New: func() any { return new(parser) }}

// maxPooledTokens bounds the token slices kept in the pool, so that one
// huge script does not pin its memory.
const maxPooledTokens = 4096

func newParser(src string) (*parser, error) {
	p := parserPool.Get().(*parser)
	toks, err := lexInto(src, p.toks)
	if err != nil {
		p.toks = toks
		p.release()
		return nil, err
	}
	*p = parser{src: src, toks: toks, splitMinus: -1}
	return p, nil
}

// release returns p to the pool; p must not be used afterwards.
func (p *parser) release() {
	toks := p.toks
	if cap(toks) > maxPooledTokens {
		toks = nil
	}
	clear(toks[:cap(toks)]) // drop references to the source text
	*p = parser{toks: toks[:0]}
	parserPool.Put(p)
}

// run calls f, converting a parse bailout into an error.
func (p *parser) run(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			b, ok := r.(*bailout)
			if !ok {
				err = cqlerr.Serverf("internal error parsing CQL: %v", r)
				return
			}
			err = p.errorOf(b)
		}
	}()
	f()
	return nil
}

// parserState is what try saves and restores.
type parserState struct {
	p, markers, splitMinus int
	depth                  int
}

func (p *parser) save() parserState {
	return parserState{p.p, p.markers, p.splitMinus, p.depth}
}

func (p *parser) restore(s parserState) {
	p.p, p.markers, p.splitMinus, p.depth = s.p, s.markers, s.splitMinus, s.depth
}

// try runs f and returns its bailout, restoring the parser state if f
// failed.
func (p *parser) try(f func()) (failure *bailout) {
	s := p.save()
	defer func() {
		if r := recover(); r != nil {
			b, isBailout := r.(*bailout)
			if !isBailout {
				panic(r)
			}
			p.restore(s)
			failure = b
		}
	}()
	f()
	return nil
}

// alternatives tries each function in turn and keeps the first that
// parses. If none does, it fails with the error of the alternative that got
// furthest, which is the most useful one to report.
func (p *parser) alternatives(fs ...func()) {
	var best *bailout
	for _, f := range fs {
		b := p.try(f)
		if b == nil {
			return
		}
		if best == nil || b.pos > best.pos {
			best = b
		}
	}
	panic(best)
}

// ---------------------------------------------------------------------------
// Token access

func (p *parser) tok() *token { return &p.toks[p.p] }

// peek returns the token n positions ahead of the current one (EOF past the
// end).
func (p *parser) peek(n int) *token {
	if i := p.p + n; i < len(p.toks) {
		return &p.toks[i]
	}
	return &p.toks[len(p.toks)-1]
}

func (p *parser) advance() *token {
	t := &p.toks[p.p]
	if t.kind != tkEOF {
		p.p++
	}
	return t
}

func (p *parser) is(k tokenKind) bool { return p.toks[p.p].kind == k }

func (p *parser) accept(k tokenKind) bool {
	if p.is(k) {
		p.advance()
		return true
	}
	return false
}

func (p *parser) expect(k tokenKind) *token {
	if !p.is(k) {
		p.mismatched(k.String())
	}
	return p.advance()
}

func (t *token) isKw(k keyword) bool { return t.kind == tkIdent && t.kw == k }

func (p *parser) isKw(k keyword) bool { return p.tok().isKw(k) }

func (p *parser) acceptKw(k keyword) bool {
	if p.isKw(k) {
		p.advance()
		return true
	}
	return false
}

func (p *parser) expectKw(k keyword) {
	if !p.isKw(k) {
		p.mismatched(k.String())
	}
	p.advance()
}

// enter and leave bound the recursion depth.
func (p *parser) enter() {
	p.depth++
	if p.depth > maxDepth {
		p.failAt(p.tok(), "too many nested expressions at input "+p.display(p.tok()))
	}
}

func (p *parser) leave() { p.depth-- }

// ---------------------------------------------------------------------------
// Errors

// failAt aborts parsing with a SyntaxError located at t.
func (p *parser) failAt(t *token, msg string) {
	panic(&bailout{msg: msg, pos: t.pos, snip: t.pos})
}

// errorOf turns a bailout into the error returned to the caller.
func (p *parser) errorOf(b *bailout) *cqlerr.Error {
	if b.err != nil {
		return b.err
	}
	line, col := lineCol(p.src, b.pos)
	var sb strings.Builder
	sb.Grow(len(b.msg) + 80)
	sb.WriteString("line ")
	writeInt(&sb, line)
	sb.WriteByte(':')
	writeInt(&sb, col)
	sb.WriteByte(' ')
	sb.WriteString(b.msg)
	p.writeSnippet(&sb, b.snip)
	return cqlerr.Syntaxf("%s", sb.String())
}

// noViableAfter reports that no alternative matches at the token after the
// current one, which a two-token decision looked at: the message names that
// token, the snippet marks the current one.
func (p *parser) noViableAfter() {
	t := p.peek(1)
	panic(&bailout{msg: "no viable alternative at input " + p.display(t), pos: t.pos, snip: p.tok().pos})
}

// failInvalid aborts parsing with an Invalid error, for the checks that
// Cassandra makes while building the statement during parsing.
func (p *parser) failInvalid(format string, args ...any) {
	panic(&bailout{err: cqlerr.Invalidf(format, args...), pos: p.tok().pos})
}

// noViable reports that no alternative of the current rule matches the
// current token.
func (p *parser) noViable() {
	p.failAt(p.tok(), "no viable alternative at input "+p.display(p.tok()))
}

// mismatched reports that the current token is not the expected one.
func (p *parser) mismatched(expected string) {
	p.failAt(p.tok(), "mismatched input "+p.display(p.tok())+" expecting "+expected)
}

// recognitionError reports a grammatical error that Cassandra detects in a
// parser action rather than by the grammar itself: addRecognitionError and
// the SyntaxExceptions thrown from actions carry the bare message, with
// neither position nor snippet (ErrorCollector.syntaxError(recognizer,
// String)).
func (p *parser) recognitionError(t *token, msg string) {
	panic(&bailout{err: cqlerr.Syntaxf("%s", msg), pos: t.pos})
}

// display renders a token the way ANTLR does in messages: its text in single
// quotes, '<EOF>' at the end of input.
func (p *parser) display(t *token) string {
	if t.kind == tkEOF {
		return "'<EOF>'"
	}
	return "'" + p.src[t.pos:t.end] + "'"
}

// writeSnippet appends Cassandra's context snippet: " (...text [offending] text...)".
// Like Cassandra's ErrorCollector it shows from ten tokens before the
// offending one (at byte offset pos) to two after it, counting runs of
// white space and comments as tokens, and highlights the offending token
// (the last token at EOF).
func (p *parser) writeSnippet(b *strings.Builder, pos int) {
	type span struct{ pos, end int }
	// The offending token, then a window of the token stream as ANTLR sees
	// it, hidden tokens included. Ten hidden or real tokens back need at
	// most ten real tokens.
	i := sort.Search(len(p.toks), func(i int) bool { return p.toks[i].pos >= pos })
	if i >= len(p.toks) || p.toks[i].kind == tkEOF {
		i = len(p.toks) - 2 // the last real token
	}
	if i < 0 {
		return
	}
	lo, hi := max(0, i-10), min(len(p.toks)-1, i+3)
	var spans []span
	offIdx := 0
	prev := 0
	if lo > 0 {
		prev = p.toks[lo-1].end
	}
	for j := lo; j < hi; j++ {
		t := &p.toks[j]
		if t.kind == tkEOF {
			break
		}
		if t.pos > prev {
			spans = append(spans, span{prev, t.pos})
		}
		if j == i {
			offIdx = len(spans)
		}
		spans = append(spans, span{t.pos, t.end})
		prev = t.end
	}
	if hi < len(p.toks) && p.toks[hi].pos > prev {
		spans = append(spans, span{prev, p.toks[hi].pos})
	}
	from := spans[max(0, offIdx-10)]
	to := spans[min(len(spans)-1, offIdx+2)]
	o := spans[offIdx]
	b.WriteString(" (")
	if from.pos > 0 {
		b.WriteString("...")
	}
	writeNoNewlines(b, p.src[from.pos:o.pos])
	b.WriteByte('[')
	writeNoNewlines(b, p.src[o.pos:o.end])
	b.WriteByte(']')
	if to.end > o.end {
		writeNoNewlines(b, p.src[o.end:to.end])
	}
	if strings.TrimRight(p.src[max(to.end, o.end):], " \t\r\n") != "" {
		b.WriteString("...")
	}
	b.WriteByte(')')
}

// writeNoNewlines writes s with line breaks replaced by spaces (Cassandra
// drops them, which glues words together).
func writeNoNewlines(b *strings.Builder, s string) {
	for {
		i := strings.IndexAny(s, "\r\n")
		if i < 0 {
			b.WriteString(s)
			return
		}
		b.WriteString(s[:i])
		b.WriteByte(' ')
		s = s[i+1:]
	}
}

func writeInt(b *strings.Builder, n int) {
	var buf [20]byte
	i := len(buf)
	for {
		i--
		buf[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			break
		}
	}
	b.Write(buf[i:])
}

// ---------------------------------------------------------------------------
// Statements

// statement parses one statement (cqlStatement in Parser.g).
func (p *parser) statement() Statement {
	// Markers are numbered per statement.
	p.markers, p.assignDepth = 0, 0
	t := p.tok()
	var st Statement
	switch {
	case t.isKw(kwSelect):
		st = p.selectStatement()
	case t.isKw(kwInsert):
		st = p.insertStatement()
	case t.isKw(kwUpdate):
		st = p.updateStatement()
	case t.isKw(kwDelete):
		st = p.deleteStatement()
	case t.isKw(kwBegin):
		st = p.batchStatement()
	case t.isKw(kwUse):
		st = p.useStatement()
	case t.isKw(kwTruncate):
		st = p.truncateStatement()
	case t.isKw(kwCreate):
		st = p.createStatement()
	case t.isKw(kwAlter):
		st = p.alterStatement()
	case t.isKw(kwDrop):
		st = p.dropStatement()
	case t.isKw(kwGrant), t.isKw(kwRevoke), t.isKw(kwList), t.isKw(kwDescribe), t.isKw(kwDesc), t.isKw(kwAdd):
		st = p.otherStatement()
	default:
		p.noViable()
	}
	return st
}

// ---------------------------------------------------------------------------
// Identifiers and names

// identLike reports whether t can be used as an (unquoted or quoted)
// identifier: IDENT, QUOTED_NAME or unreserved_keyword. Empty quoted names
// ("") are excluded; see cident.
func (t *token) identLike() bool {
	switch t.kind {
	case tkIdent:
		return t.kw == kwNone || t.kw.isUnreserved()
	case tkQuotedIdent:
		return t.text != ""
	}
	return false
}

// ident parses ident / noncol_ident / fident: IDENT, QUOTED_NAME or an
// unreserved keyword. Unquoted names are lower-cased by the lexer.
func (p *parser) ident() string {
	t := p.tok()
	if !t.identLike() {
		p.noViable()
	}
	p.advance()
	return t.text
}

// cident is ident plus the legacy empty quoted name "" (column references
// in DML only).
func (p *parser) cident() string {
	if t := p.tok(); t.kind == tkQuotedIdent && t.text == "" {
		p.advance()
		return ""
	}
	return p.ident()
}

// isCident reports whether t can start a cident.
func (t *token) isCident() bool {
	return t.identLike() || t.kind == tkQuotedIdent
}

// qualifiedName parses (ksName '.')? name, for tables (columnFamilyName),
// indexes and views; what names the object in the bind-marker message.
func (p *parser) qualifiedName(what string) QualifiedName {
	if p.is(tkQMark) {
		if p.peek(1).kind == tkDot {
			p.markerInName("keyspace")
		}
		p.markerInName(what)
	}
	first := p.ident()
	if p.accept(tkDot) {
		if p.is(tkQMark) {
			p.markerInName(what)
		}
		return QualifiedName{Keyspace: first, Name: p.ident()}
	}
	return QualifiedName{Name: first}
}

func (p *parser) markerInName(what string) {
	p.recognitionError(p.tok(), "Bind variables cannot be used for "+what+" names")
}

// keyspaceName parses a keyspace name.
func (p *parser) keyspaceName() string {
	if p.is(tkQMark) {
		p.markerInName("keyspace")
	}
	return p.ident()
}

// String returns "keyspace.name", or "name" when unqualified, without
// quoting (as Cassandra's QualifiedName.toString does; use it in messages).
func (q QualifiedName) String() string {
	if q.Keyspace == "" {
		return q.Name
	}
	return q.Keyspace + "." + q.Name
}
