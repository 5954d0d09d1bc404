package storage

import (
	"fmt"
	"strings"

	"github.com/cqld/cqld/internal/mutation"
	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/types"
)

func fmtValue(t *types.Type, v []byte) string {
	switch t.Kind {
	case types.Int:
		if len(v) == 4 {
			x, _ := types.DecodeInt(v)
			return fmt.Sprint(x)
		}
	case types.Text:
		return fmt.Sprintf("%q", v)
	case types.Decimal:
		return types.Format(t, v)
	}
	return fmt.Sprintf("0x%x", v)
}

func fmtRow(t *schema.Table, b *strings.Builder, r *mutation.Row) {
	if r.Clustering == nil {
		b.WriteString("  static")
	} else {
		b.WriteString("  [")
		for i, v := range r.Clustering {
			if i > 0 {
				b.WriteString(" ")
			}
			b.WriteString(fmtValue(t.Clustering[i].Type, v))
		}
		b.WriteString("]")
	}
	if r.Marker.Timestamp != mutation.NoTimestamp {
		fmt.Fprintf(b, " marker@%d", r.Marker.Timestamp)
		if r.Marker.TTL != 0 {
			fmt.Fprintf(b, "/ttl%d", r.Marker.TTL)
		}
	}
	if !r.Deletion.IsLive() {
		fmt.Fprintf(b, " deleted@%d", r.Deletion.MarkedForDeleteAt)
	}
	for _, c := range r.Cells {
		col := t.ColumnByID(c.Column)
		b.WriteString(" " + col.Name)
		vt := col.Type
		if c.Path != nil {
			pt := pathType(col)
			fmt.Fprintf(b, "[%s]", fmtValue(pt, c.Path))
			if col.Type.Kind == types.Map {
				vt = col.Type.Params[1]
			}
		}
		if c.Tombstone {
			fmt.Fprintf(b, "=<tombstone>@%d", c.Timestamp)
			continue
		}
		if c.Path != nil && col.Type.Kind == types.Set {
			fmt.Fprintf(b, "@%d", c.Timestamp)
		} else {
			fmt.Fprintf(b, "=%s@%d", fmtValue(vt, c.Value), c.Timestamp)
		}
		if c.TTL != 0 {
			fmt.Fprintf(b, "/ttl%d", c.TTL)
		}
	}
	b.WriteString("\n")
}

// fmtPartitions renders a read result, one line per row.
func fmtPartitions(t *schema.Table, ps []mutation.Partition) string {
	var b strings.Builder
	for i := range ps {
		p := &ps[i]
		fmt.Fprintf(&b, "pk=%s token=%d\n", fmtValue(t.PartitionKey[0].Type, p.Key), p.Token)
		if p.Static != nil {
			fmtRow(t, &b, p.Static)
		}
		for j := range p.Rows {
			fmtRow(t, &b, &p.Rows[j])
		}
	}
	return b.String()
}
