package shell

import (
	"strings"
)

// newlineCommands end at the end of their line without a ';' (cqlsh's
// my_commands_ending_with_newline).
var newlineCommands = map[string]bool{
	"help": true, "?": true, "consistency": true, "serial": true, "describe": true,
	"desc": true, "show": true, "source": true, "capture": true, "login": true,
	"debug": true, "tracing": true, "expand": true, "paging": true, "exit": true,
	"quit": true, "clear": true, "cls": true, "history": true,
}

// Splitter accumulates input lines and cuts them into complete statements
// as cqlsh does: a statement ends at a ';' outside string literals, quoted
// names, $$ bodies and comments; shell commands such as DESCRIBE also end
// at the end of their line.
type Splitter struct {
	buf string
}

// Feed appends text (one or more lines) and returns the statements it
// completes, without their terminating ';'.
func (s *Splitter) Feed(text string) []string {
	s.buf += text
	stmts, rest := split(s.buf)
	s.buf = rest
	return stmts
}

// Pending reports whether an incomplete statement is buffered (ignoring
// whitespace and comments).
func (s *Splitter) Pending() bool { return hasContent(s.buf) }

// Flush ends the input: it returns the statements still buffered, treating
// the end as a line end, and whether an incomplete statement remained.
func (s *Splitter) Flush() (stmts []string, incomplete bool) {
	stmts, rest := split(s.buf + "\n")
	s.buf = ""
	return stmts, hasContent(rest)
}

// Reset drops the buffered partial statement.
func (s *Splitter) Reset() { s.buf = "" }

// SplitStatements cuts a whole script into statements; incomplete reports
// a trailing statement without its terminator.
func SplitStatements(script string) (stmts []string, incomplete bool) {
	var s Splitter
	stmts = s.Feed(script)
	more, inc := s.Flush()
	return append(stmts, more...), inc
}

// split scans text and returns the complete statements and the unconsumed
// rest (starting at the first token of the incomplete statement).
func split(text string) (stmts []string, rest string) {
	start := -1 // start of the current statement's first token
	i := 0
	n := len(text)
	emit := func(end int) {
		if start >= 0 {
			if st := strings.TrimSpace(text[start:end]); st != "" {
				stmts = append(stmts, st)
			}
		}
		start = -1
	}
	for i < n {
		c := text[i]
		switch {
		case c == '-' && i+1 < n && text[i+1] == '-', c == '/' && i+1 < n && text[i+1] == '/':
			j := strings.IndexByte(text[i:], '\n')
			if j < 0 {
				if start < 0 {
					return stmts, ""
				}
				return stmts, text[start:]
			}
			i += j // the newline itself is handled below
			continue
		case c == '/' && i+1 < n && text[i+1] == '*':
			j := strings.Index(text[i+2:], "*/")
			if j < 0 {
				if start < 0 {
					return stmts, text[i:]
				}
				return stmts, text[start:]
			}
			i += j + 4
			continue
		case c == '\n':
			if start >= 0 && newlineCommands[strings.ToLower(firstWord(text[start:]))] {
				emit(i)
			}
			i++
			continue
		case c == ' ' || c == '\t' || c == '\r' || c == '\f':
			i++
			continue
		}
		if start < 0 {
			start = i
		}
		switch {
		case c == ';':
			// cqlsh keeps BEGIN BATCH ... APPLY BATCH together.
			if strings.EqualFold(firstWord(text[start:i]), "begin") && !endsWithApplyBatch(text[start:i]) {
				i++
				continue
			}
			emit(i)
			i++
		case c == '\'' || c == '"':
			j := i + 1
			closed := false
			for j < n {
				if text[j] == c {
					if j+1 < n && text[j+1] == c {
						j += 2
						continue
					}
					closed = true
					break
				}
				j++
			}
			if !closed {
				return stmts, text[start:]
			}
			i = j + 1
		case c == '$' && i+1 < n && text[i+1] == '$':
			j := strings.Index(text[i+2:], "$$")
			if j < 0 {
				return stmts, text[start:]
			}
			i += j + 4
		default:
			i++
		}
	}
	if start < 0 {
		return stmts, ""
	}
	return stmts, text[start:]
}

// firstWord returns the first word of a statement (letters, digits, '_',
// or a lone '?'), skipping leading whitespace and comments.
func firstWord(s string) string {
	s = skipSpaceAndComments(s)
	if strings.HasPrefix(s, "?") {
		return "?"
	}
	i := 0
	for i < len(s) && (isIdentByte(s[i])) {
		i++
	}
	return s[:i]
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func skipSpaceAndComments(s string) string {
	for {
		s = strings.TrimLeft(s, " \t\r\n\f")
		switch {
		case strings.HasPrefix(s, "--"), strings.HasPrefix(s, "//"):
			j := strings.IndexByte(s, '\n')
			if j < 0 {
				return ""
			}
			s = s[j+1:]
		case strings.HasPrefix(s, "/*"):
			j := strings.Index(s, "*/")
			if j < 0 {
				return ""
			}
			s = s[j+2:]
		default:
			return s
		}
	}
}

func hasContent(s string) bool { return skipSpaceAndComments(s) != "" }

func endsWithApplyBatch(s string) bool {
	f := strings.Fields(strings.ToUpper(s))
	return len(f) >= 2 && f[len(f)-2] == "APPLY" && f[len(f)-1] == "BATCH"
}
