package storage

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2"
)

// TestStallLogger checks the log line of a write stall.
func TestStallLogger(t *testing.T) {
	var buf bytes.Buffer
	l := stallLogger(slog.New(slog.NewTextHandler(&buf, nil)))
	l.WriteStallBegin(pebble.WriteStallBeginInfo{Reason: "memtable count limit reached"})
	l.WriteStallEnd()
	if out := buf.String(); !strings.Contains(out, "storage: writes stalled") || !strings.Contains(out, `reason="memtable count limit reached"`) ||
		!strings.Contains(out, "duration=") {
		t.Fatalf("logged %q", out)
	}
}
