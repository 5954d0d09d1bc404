package types

import (
	"errors"
	"fmt"

	"github.com/cqld/cqld/internal/cqlerr"
)

// ColumnError is an Invalid error whose Cassandra message names the column
// (or bind marker) that a value or type belongs to, which this package does
// not know. Format contains exactly one %s for that name. Functions of this
// package return either a *cqlerr.Error (complete message) or a
// *ColumnError; callers turn both into a client error with WithColumn.
type ColumnError struct {
	Format string
}

// Error returns the message with the column shown as "?".
func (e *ColumnError) Error() string { return fmt.Sprintf(e.Format, "?") }

// ForColumn returns the Invalid error naming column.
func (e *ColumnError) ForColumn(column string) *cqlerr.Error {
	return cqlerr.Invalidf(e.Format, column)
}

// WithColumn converts an error returned by this package into the
// *cqlerr.Error to send to the client, naming column where the message
// needs it. nil stays nil.
func WithColumn(err error, column string) *cqlerr.Error {
	if err == nil {
		return nil
	}
	var ce *ColumnError
	if errors.As(err, &ce) {
		return ce.ForColumn(column)
	}
	return cqlerr.As(err)
}

// notAssignable is Cassandra's error for a literal of the wrong kind, e.g.
// Invalid STRING constant (foo) for "col" of type blob.
func notAssignable(kind, text string, t *Type) *ColumnError {
	return &ColumnError{Format: "Invalid " + kind + " constant (" + escapePercent(text) + ") for \"%s\" of type " + escapePercent(t.String())}
}

func escapePercent(s string) string {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '%' {
			out = append(out, '%')
		}
		out = append(out, s[i])
	}
	return string(out)
}
