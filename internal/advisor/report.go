package advisor

import (
	"encoding/json"
	"fmt"
	"io"
)

// WriteJSON writes the report as JSON (the format tools read).
func (r *Report) WriteJSON(w io.Writer) error {
	out := *r
	if out.Findings == nil {
		out.Findings = []Finding{}
	}
	if out.Tables == nil {
		out.Tables = []TableEstimate{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(&out)
}

// WriteText writes the report for people, grouped by table; color adds
// ANSI colours for a terminal.
func (r *Report) WriteText(w io.Writer, color bool) error {
	paint := func(code, s string) string {
		if !color {
			return s
		}
		return "\x1b[" + code + "m" + s + "\x1b[0m"
	}
	sevColor := map[Severity]string{Error: "31;1", Warning: "33;1", Info: "36"}
	last := "\x00"
	for _, f := range r.Findings {
		if f.Table != last {
			title := f.Table
			if title == "" {
				title = "(schema)"
			}
			fmt.Fprintf(w, "\n%s\n", paint("1", title))
			last = f.Table
		}
		fmt.Fprintf(w, "  %s %s: %s\n", paint(sevColor[f.Severity], string(f.Severity)), f.Rule, f.Message)
		if f.Query != "" {
			fmt.Fprintf(w, "      query: %s\n", f.Query)
		}
		fmt.Fprintf(w, "      fix:   %s\n      seed:  %s\n", f.Fix, f.Seed)
	}
	if len(r.Tables) > 0 {
		fmt.Fprintf(w, "\n%s\n", paint("1", "Partition sizes (seed 000's formula, 23 B per cell; measured when read from a server)"))
		for _, t := range r.Tables {
			rows := fmt.Sprintf("%.0f rows", t.RowsPerPartition)
			size := humanBytes(t.PartitionSizeBytes)
			switch {
			case t.Measured:
				size = fmt.Sprintf("measured mean %s", size)
				if t.MaxPartitionSizeBytes > 0 {
					size += fmt.Sprintf(", max %s", humanBytes(t.MaxPartitionSizeBytes))
				}
				formula := humanBytes(t.EstimatedPartitionSizeBytes)
				if t.EstimatedPartitionSizeBytes == 0 {
					formula = fmt.Sprintf("%d B per row", t.RowBytes)
				}
				size += fmt.Sprintf(", %d partitions (formula: %s)", t.PartitionsCount, formula)
			case !t.Bounded:
				rows, size = "unbounded", "grows without limit"
			case t.RowsPerPartition == 0:
				rows, size = "rows unknown", fmt.Sprintf("%d B per row", t.RowBytes)
			default:
				size = "estimated " + size
			}
			fmt.Fprintf(w, "  %-40s %-16s %s\n", t.Table, rows, size)
		}
	}
	if len(r.Findings) == 0 {
		fmt.Fprintln(w, "\nno findings")
	}
	return nil
}
