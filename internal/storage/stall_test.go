package storage

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// TestEventLogger checks the log lines of a write stall and a slow disk.
func TestEventLogger(t *testing.T) {
	var buf bytes.Buffer
	l := eventLogger(slog.New(slog.NewTextHandler(&buf, nil)))
	l.WriteStallBegin(pebble.WriteStallBeginInfo{Reason: "memtable count limit reached"})
	l.WriteStallEnd()
	if out := buf.String(); !strings.Contains(out, "storage: writes stalled") || !strings.Contains(out, `reason="memtable count limit reached"`) ||
		!strings.Contains(out, "duration=") {
		t.Fatalf("logged %q", out)
	}
	buf.Reset()
	l.DiskSlow(pebble.DiskSlowInfo{Path: "/data/000012.log", OpType: vfs.OpTypeSync, Duration: 6 * time.Second})
	if out := buf.String(); !strings.Contains(out, "storage: slow disk") || !strings.Contains(out, "op=sync") ||
		!strings.Contains(out, "file=/data/000012.log") || !strings.Contains(out, "duration=6s") {
		t.Fatalf("logged %q", out)
	}
}
