package advisor

import (
	"fmt"
	"html"
	"strings"
)

// Mermaid renders a Chebotko logical diagram as Mermaid flowchart text:
// each query Qn is a node with an edge into the table designed for it; each
// table lists its columns with K, C↑, C↓ and S marks.
func Mermaid(tables []DesignTable) string {
	var b strings.Builder
	b.WriteString("flowchart LR\n")
	for _, t := range tables {
		var rows []string
		for _, c := range t.Columns {
			rows = append(rows, strings.TrimSpace(fmt.Sprintf("%s %s %s", c.Name, c.Type, c.Mark)))
		}
		fmt.Fprintf(&b, "  %s[\"<b>%s</b><br/>%s\"]\n", t.Name, t.Name, strings.Join(rows, "<br/>"))
		label := t.Query.Name
		if t.Query.Description != "" {
			label += ": " + t.Query.Description
		}
		fmt.Fprintf(&b, "  %s([\"%s\"]) --> %s\n", t.Query.Name, strings.ReplaceAll(label, "\"", "'"), t.Name)
	}
	return b.String()
}

// SVG renders the same diagram as a standalone SVG document.
func SVG(tables []DesignTable) string {
	const (
		rowH     = 18
		boxW     = 330
		queryW   = 210
		gap      = 28
		left     = 20
		boxX     = left + queryW + 60
		titleH   = 26
		fontSize = 13
	)
	height := gap
	for _, t := range tables {
		height += titleH + rowH*len(t.Columns) + 8 + gap
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="monospace" font-size="%d">`+"\n",
		boxX+boxW+left, height, fontSize)
	b.WriteString(`<defs><marker id="arrow" markerWidth="10" markerHeight="10" refX="9" refY="3" orient="auto"><path d="M0,0 L9,3 L0,6 z" fill="#333"/></marker></defs>` + "\n")
	y := gap
	for _, t := range tables {
		h := titleH + rowH*len(t.Columns) + 8
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="#fff" stroke="#333"/>`+"\n", boxX, y, boxW, h)
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="#dde6f0" stroke="#333"/>`+"\n", boxX, y, boxW, titleH)
		fmt.Fprintf(&b, `<text x="%d" y="%d" font-weight="bold">%s</text>`+"\n", boxX+8, y+18, html.EscapeString(t.Name))
		for i, c := range t.Columns {
			ry := y + titleH + rowH*(i+1)
			fmt.Fprintf(&b, `<text x="%d" y="%d">%s %s</text>`+"\n", boxX+8, ry, html.EscapeString(c.Name), html.EscapeString(c.Type))
			if c.Mark != "" {
				fmt.Fprintf(&b, `<text x="%d" y="%d" font-weight="bold">%s</text>`+"\n", boxX+boxW-36, ry, html.EscapeString(c.Mark))
			}
		}
		label := t.Query.Name
		if t.Query.Description != "" {
			label += ": " + t.Query.Description
		}
		if len(label) > 28 {
			label = label[:27] + "…"
		}
		qy := y + titleH/2 + 4
		fmt.Fprintf(&b, `<text x="%d" y="%d">%s</text>`+"\n", left, qy, html.EscapeString(label))
		fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#333" marker-end="url(#arrow)"/>`+"\n", left+queryW+4, qy-4, boxX-2, qy-4)
		y += h + gap
	}
	b.WriteString("</svg>\n")
	return b.String()
}
