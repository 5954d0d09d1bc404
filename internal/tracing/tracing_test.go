package tracing

import (
	"bytes"
	"context"
	"sync"
	"testing"
)

func TestSession(t *testing.T) {
	ctx := context.Background()
	Trace(ctx, RequestThread, "not traced") // no session: nothing happens

	s := New([]byte{127, 0, 0, 1})
	if s.ID.Version() != 1 {
		t.Fatalf("session id %s is not a time UUID", s.ID)
	}
	ctx = NewContext(ctx, s)
	if FromContext(ctx) != s {
		t.Fatal("FromContext lost the session")
	}
	if !s.Begin("Execute CQL3 query", map[string]string{"query": "q"}) {
		t.Fatal("first Begin refused")
	}
	if s.Begin("Preparing CQL3 query", nil) {
		t.Fatal("second Begin took the session")
	}
	if req, params := s.Request(); req != "Execute CQL3 query" || params["query"] != "q" {
		t.Fatalf("Request() = %q %v", req, params)
	}
	Trace(ctx, RequestThread, "Parsing q")
	Trace(ctx, ReadThread, "Read 1 live rows")
	Trace(Without(ctx), RequestThread, "the node's own statement")
	evs := s.Events()
	if len(evs) != 2 || evs[0].Activity != "Parsing q" || evs[1].Activity != "Read 1 live rows" || evs[1].Thread != ReadThread {
		t.Fatalf("events %+v", evs)
	}
	if evs[1].Elapsed < evs[0].Elapsed || evs[0].ID == evs[1].ID || evs[1].ID.Time() < evs[0].ID.Time() {
		t.Fatalf("events out of order: %+v", evs)
	}
	if s.Elapsed() < evs[1].Elapsed {
		t.Fatalf("duration %d before the last event's %d", s.Elapsed(), evs[1].Elapsed)
	}
}

// TestEventIDsIncrease: event ids are version 1 UUIDs whose times
// strictly increase, after the session id's, even for events added in
// the same 100 ns or concurrently; they share the session's clock
// sequence and node, so they sort by time alone.
func TestEventIDsIncrease(t *testing.T) {
	s := New(nil)
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 500; i++ {
				s.Add(ReadThread, "e")
			}
		}()
	}
	wg.Wait()
	evs := s.Events()
	if len(evs) != 2000 {
		t.Fatalf("%d events", len(evs))
	}
	last := s.ID.Time()
	for i, ev := range evs {
		if ev.ID.Version() != 1 || ev.ID.Time() <= last || !bytes.Equal(ev.ID[8:], s.ID[8:]) {
			t.Fatalf("event %d: id %s (time %d) after %d, session %s", i, ev.ID, ev.ID.Time(), last, s.ID)
		}
		last = ev.ID.Time()
	}
}
