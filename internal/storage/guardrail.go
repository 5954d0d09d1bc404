package storage

import (
	"context"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strings"

	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/mutation"
	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/types"
)

// Tombstone guardrails (Cassandra's tombstone_warn_threshold and
// tombstone_failure_threshold): a read that scans more tombstones
// (deletions, cell tombstones, expired cells) than the warn threshold adds
// Cassandra's client warning to the request (cqlerr.Warn) and logs; one that
// scans more than the failure threshold stops scanning and fails with
// ReadFailure, whose message is Cassandra's (the same text is also sent as a
// client warning, as Cassandra does).

// errTombstoneOverwhelming stops a read at the failure threshold.
var errTombstoneOverwhelming = errors.New("storage: tombstone_failure_threshold exceeded")

// tombstoneWarnMessage and tombstoneAbortMessage are Cassandra's
// (WarningsSnapshot; one node here).
func tombstoneWarnMessage(n int64, cql string) string {
	return fmt.Sprintf("1 nodes scanned up to %d tombstones and issued tombstone warnings for query %s  (see tombstone_warn_threshold)", n, cql)
}

func tombstoneAbortMessage(n int64, cql string) string {
	return fmt.Sprintf("1 nodes scanned over %d tombstones and aborted the query %s (see tombstone_failure_threshold)", n, cql)
}

// failAt returns the tombstone count at which reads abort (MaxInt64: never).
func (p *Pebble) failAt() int64 {
	if p.opts.TombstoneFailureThreshold <= 0 {
		return math.MaxInt64
	}
	return int64(p.opts.TombstoneFailureThreshold)
}

// guard applies the thresholds to a finished (or aborted) read.
func (p *Pebble) guard(ctx context.Context, t *schema.Table, cmd *mutation.ReadCommand, info *ReadInfo, err error) error {
	if errors.Is(err, errTombstoneOverwhelming) {
		cql := readCommandCQL(t, cmd)
		msg := tombstoneAbortMessage(info.TombstonesScanned, cql)
		p.opts.Logger.Error(fmt.Sprintf("Scanned over %d tombstones during query '%s'; query aborted",
			p.opts.TombstoneFailureThreshold, cql))
		cqlerr.Warn(ctx, msg)
		return &cqlerr.Error{Code: cqlerr.ReadFailure, Message: msg, Consistency: 0x0001, Received: 0, BlockFor: 1}
	}
	if err == nil && p.opts.TombstoneWarnThreshold > 0 && info.TombstonesScanned > int64(p.opts.TombstoneWarnThreshold) {
		cql := readCommandCQL(t, cmd)
		p.opts.Logger.Warn(fmt.Sprintf("Read %d live rows and %d tombstone cells for query %.512s (see tombstone_warn_threshold)",
			info.LiveRows, info.TombstonesScanned, cql))
		cqlerr.Warn(ctx, tombstoneWarnMessage(info.TombstonesScanned, cql))
	}
	return err
}

var plainIdentifier = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

func maybeQuote(s string) string {
	if plainIdentifier.MatchString(s) {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// readCommandCQL renders a read command as Cassandra's
// ReadCommand.toCQLString does (for messages): SELECT * FROM ks.t, the
// partition key or token restriction, the limit, ALLOW FILTERING.
func readCommandCQL(t *schema.Table, cmd *mutation.ReadCommand) string {
	var b strings.Builder
	b.WriteString("SELECT * FROM ")
	b.WriteString(maybeQuote(t.Keyspace))
	b.WriteByte('.')
	b.WriteString(maybeQuote(t.Name))
	if cmd.Key != nil {
		vals, err := mutation.SplitCompositeKey(cmd.Key, len(t.PartitionKey))
		if err == nil && len(vals) == len(t.PartitionKey) {
			for i, c := range t.PartitionKey {
				if i == 0 {
					b.WriteString(" WHERE ")
				} else {
					b.WriteString(" AND ")
				}
				b.WriteString(maybeQuote(c.Name))
				b.WriteString(" = ")
				b.WriteString(types.FormatCQL(c.Type, vals[i]))
			}
		}
	} else if cmd.StartToken != math.MinInt64 || cmd.EndToken != math.MinInt64 {
		names := make([]string, len(t.PartitionKey))
		for i, c := range t.PartitionKey {
			names[i] = maybeQuote(c.Name)
		}
		tok := "token(" + strings.Join(names, ", ") + ")"
		sep := " WHERE "
		if cmd.StartToken != math.MinInt64 {
			fmt.Fprintf(&b, "%s%s > %d", sep, tok, cmd.StartToken)
			sep = " AND "
		}
		if cmd.EndToken != math.MinInt64 {
			fmt.Fprintf(&b, "%s%s <= %d", sep, tok, cmd.EndToken)
		}
	}
	if cmd.RowLimit > 0 {
		fmt.Fprintf(&b, " LIMIT %d", cmd.RowLimit)
	}
	b.WriteString(" ALLOW FILTERING")
	return b.String()
}
