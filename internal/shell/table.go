package shell

import (
	"io"
	"strings"
)

// cell is one formatted value with its terminal display width.
type cell struct {
	text  string
	width int
}

func newCell(s string) cell { return cell{s, displayWidth(s)} }

func pad(n int) string {
	if n <= 0 {
		return ""
	}
	return strings.Repeat(" ", n)
}

// writeTable prints one page of rows as cqlsh's print_formatted_result:
// the header left-justified (and right-trimmed), a rule of dashes joined by
// '+', every value right-justified, and a blank line after the rows when
// the shell is interactive. rows == nil prints the header of an empty
// result followed by a blank line.
func writeTable(w io.Writer, names []cell, rows [][]cell, withHeader, tty bool) {
	widths := make([]int, len(names))
	for i, n := range names {
		widths[i] = n.width
	}
	for _, r := range rows {
		for i, c := range r {
			if i < len(widths) && c.width > widths[i] {
				widths[i] = c.width
			}
		}
	}
	var b strings.Builder
	if withHeader {
		parts := make([]string, len(names))
		for i, n := range names {
			parts[i] = n.text + pad(widths[i]-n.width)
		}
		b.WriteString(strings.TrimRight(" "+strings.Join(parts, " | "), " "))
		b.WriteByte('\n')
		dashes := make([]string, len(widths))
		for i, wd := range widths {
			dashes[i] = strings.Repeat("-", wd)
		}
		b.WriteString("-" + strings.Join(dashes, "-+-") + "-\n")
	}
	if rows == nil {
		b.WriteByte('\n')
		io.WriteString(w, b.String())
		return
	}
	for _, r := range rows {
		parts := make([]string, len(r))
		for i, c := range r {
			parts[i] = pad(widths[i]-c.width) + c.text
		}
		b.WriteString(" " + strings.Join(parts, " | ") + "\n")
	}
	if tty {
		b.WriteByte('\n')
	}
	io.WriteString(w, b.String())
}

// writeVertical prints rows as cqlsh's EXPAND ON output: for each row an
// "@ Row N" line, a rule sized to the widest name and value, then one
// "name | value" line per column and a blank line.
func writeVertical(w io.Writer, names []cell, rows [][]cell, offset int) {
	maxName, maxVal := 0, 0
	for _, n := range names {
		maxName = max(maxName, n.width)
	}
	for _, r := range rows {
		for _, c := range r {
			maxVal = max(maxVal, c.width)
		}
	}
	var b strings.Builder
	for i, r := range rows {
		b.WriteString("@ Row " + itoa(offset+i+1) + "\n")
		b.WriteString("-" + strings.Repeat("-", maxName) + "-+-" + strings.Repeat("-", maxVal) + "-\n")
		for j, c := range r {
			b.WriteString(" " + names[j].text + pad(maxName-names[j].width) + " | " + c.text + "\n")
		}
		b.WriteByte('\n')
	}
	io.WriteString(w, b.String())
}
