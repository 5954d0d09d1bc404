package storage

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/mutation"
	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/tracing"
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

// Partition guardrails (Cassandra 5.0's partition_size and
// partition_tombstones, which replace compaction_large_partition_warning_
// threshold): Cassandra checks them when it writes a partition to an
// SSTable and can only log, never fail a request. cqld has no SSTable
// writer of its own, so it checks what reads scan: a partition whose
// scanned bytes or tombstones pass a threshold is logged, with Cassandra's
// message, at most once a minute per partition.

type partitionGuard struct {
	sizeWarn, sizeFail, tombWarn, tombFail int64
	log                                    *slog.Logger
	now                                    func() time.Time

	mu     sync.Mutex
	logged map[string]time.Time // by table id and key: last time logged
}

// partitionGuardLogged bounds partitionGuard.logged.
const partitionGuardLogged = 1024

func newPartitionGuard(o *Options) *partitionGuard {
	pos := func(n int64) int64 { return max(n, 0) }
	g := &partitionGuard{
		sizeWarn: pos(o.PartitionSizeWarnThreshold), sizeFail: pos(o.PartitionSizeFailThreshold),
		tombWarn: pos(o.PartitionTombstonesWarnThreshold), tombFail: pos(o.PartitionTombstonesFailThreshold),
		log: o.Logger, now: o.Now, logged: map[string]time.Time{},
	}
	if g.sizeWarn+g.sizeFail+g.tombWarn+g.tombFail == 0 {
		return nil
	}
	return g
}

// over reports whether v passes the threshold th (0: disabled).
func over(v, th int64) bool { return th > 0 && v > th }

// check logs the partition (serialized key given) if what a read scanned of
// it passes a threshold.
func (g *partitionGuard) check(t *schema.Table, key []byte, s *partitionScan) {
	sizeFail, tombFail := over(s.bytes, g.sizeFail), over(s.tombstones, g.tombFail)
	sizeWarn, tombWarn := over(s.bytes, g.sizeWarn), over(s.tombstones, g.tombWarn)
	if !sizeFail && !tombFail && !sizeWarn && !tombWarn {
		return
	}
	id := string(t.ID[:]) + string(key)
	now := g.now()
	g.mu.Lock()
	last, seen := g.logged[id]
	if seen && now.Sub(last) < time.Minute {
		g.mu.Unlock()
		return
	}
	if len(g.logged) >= partitionGuardLogged {
		clear(g.logged)
	}
	g.logged[id] = now
	g.mu.Unlock()
	what := t.Keyspace + "." + t.Name + ":" + partitionKeyString(t, key)
	switch {
	case sizeFail:
		g.log.Error(fmt.Sprintf("Guardrail partition_size violated: Partition %s has size %d, this exceeds the failure threshold of %d.", what, s.bytes, g.sizeFail))
	case sizeWarn:
		g.log.Warn(fmt.Sprintf("Guardrail partition_size violated: Partition %s has size %d, this exceeds the warning threshold of %d.", what, s.bytes, g.sizeWarn))
	}
	switch {
	case tombFail:
		g.log.Error(fmt.Sprintf("Guardrail partition_tombstones violated: Partition %s has %d tombstones, this exceeds the failure threshold of %d.", what, s.tombstones, g.tombFail))
	case tombWarn:
		g.log.Warn(fmt.Sprintf("Guardrail partition_tombstones violated: Partition %s has %d tombstones, this exceeds the warning threshold of %d.", what, s.tombstones, g.tombWarn))
	}
}

// partitionKeyString renders a partition key as Cassandra's
// AbstractType.getString does: the components joined by ':'.
func partitionKeyString(t *schema.Table, key []byte) string {
	vals, err := mutation.SplitCompositeKey(key, len(t.PartitionKey))
	if err != nil || len(vals) != len(t.PartitionKey) {
		return fmt.Sprintf("0x%x", key)
	}
	parts := make([]string, len(vals))
	for i, c := range t.PartitionKey {
		parts[i] = types.Format(c.Type, vals[i])
	}
	return strings.Join(parts, ":")
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
		if ts := tracing.FromContext(ctx); ts != nil {
			ts.Add(tracing.ReadThread, fmt.Sprintf("Scanned over %d tombstones for query %s; query aborted (see tombstone_failure_threshold)",
				p.opts.TombstoneFailureThreshold, cql))
			tracing.ReadDone(ctx, info.LiveRows, info.TombstonesScanned, p.overTombstoneWarn(info))
		}
		cqlerr.Warn(ctx, msg)
		return &cqlerr.Error{Code: cqlerr.ReadFailure, Message: msg, Consistency: 0x0001, Received: 0, BlockFor: 1}
	}
	if err == nil && p.overTombstoneWarn(info) {
		cql := readCommandCQL(t, cmd)
		p.opts.Logger.Warn(fmt.Sprintf("Read %d live rows and %d tombstone cells for query %.512s (see tombstone_warn_threshold)",
			info.LiveRows, info.TombstonesScanned, cql))
		cqlerr.Warn(ctx, tombstoneWarnMessage(info.TombstonesScanned, cql))
	}
	return err
}

// overTombstoneWarn reports whether a read went through more tombstones
// than tombstone_warn_threshold.
func (p *Pebble) overTombstoneWarn(info *ReadInfo) bool {
	return p.opts.TombstoneWarnThreshold > 0 && info.TombstonesScanned > int64(p.opts.TombstoneWarnThreshold)
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
