package cqlerr

import (
	"context"
	"sync"
)

// Warnings collects the client warnings of one request (Cassandra's
// ClientWarn): any layer that holds the request's context may add one with
// Warn, and whoever created the collector (the query layer) sends them with
// the response. Safe for concurrent use.
type Warnings struct {
	mu   sync.Mutex
	list []string
}

type warningsKey struct{}

// WithWarnings returns a context carrying a new warnings collector.
func WithWarnings(ctx context.Context) (context.Context, *Warnings) {
	w := &Warnings{}
	return context.WithValue(ctx, warningsKey{}, w), w
}

// Warn adds a client warning to the request of ctx; it does nothing when
// ctx carries no collector. A warning already present is not repeated.
func Warn(ctx context.Context, msg string) {
	w, _ := ctx.Value(warningsKey{}).(*Warnings)
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, m := range w.list {
		if m == msg {
			return
		}
	}
	w.list = append(w.list, msg)
}

// List returns the warnings added so far.
func (w *Warnings) List() []string {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.list...)
}
