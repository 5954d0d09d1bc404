package query

import (
	"context"

	"github.com/cqld/cqld/internal/mutation"
	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/tracing"
)

// Prepared statements outlive a restart as in Cassandra (CASSANDRA-8831):
// a statement prepared for the first time is written to
// system.prepared_statements (QueryProcessor.storePreparedStatement), and
// the node prepares them all again when it starts (PreloadPrepared), so
// that clients' EXECUTEs find them without an UNPREPARED round trip.
// Config.PersistPreparedStatements turns this on (the node does; the
// advisor's offline executor does not).

// preparedStatementsTable returns system.prepared_statements, or nil.
func (e *Executor) preparedStatementsTable() *schema.Table {
	return e.cfg.Schema.Current().Keyspaces[schema.SystemKeyspace].Table(schema.PreparedStatementsTable)
}

// persistPrepared writes a newly prepared statement's row. A failure is
// logged: the statement stays prepared until the node stops.
func (e *Executor) persistPrepared(ctx context.Context, id [16]byte, keyspace, query string) {
	t := e.preparedStatementsTable()
	if t == nil {
		return
	}
	ts := e.timestamp()
	cells := []mutation.Cell{
		{Column: t.Column("query_string").ID, Value: []byte(query), Timestamp: ts, LocalDeletionTime: mutation.NoDeletion},
	}
	if keyspace != "" {
		cells = append(cells, mutation.Cell{Column: t.Column("logged_keyspace").ID, Value: []byte(keyspace), Timestamp: ts, LocalDeletionTime: mutation.NoDeletion})
	}
	sortCells(cells)
	key := id[:]
	up := &mutation.PartitionUpdate{TableID: t.ID, Key: key, Token: e.cfg.Partitioner.Token(key), Deletion: mutation.Live,
		Rows: []mutation.Row{{Marker: mutation.Liveness{Timestamp: ts, LocalDeletionTime: mutation.NoDeletion}, Deletion: mutation.Live, Cells: cells}}}
	// Not cancelled with the connection: the statement stays cached, so
	// a lost row would not be written again.
	if err := e.cfg.Coordinator.Mutate(context.WithoutCancel(tracing.Without(ctx)), t, One, []*mutation.PartitionUpdate{up}); err != nil {
		e.cfg.Logger.Warn("cannot persist prepared statement", "query", query, "err", err)
	}
}

// removePersistedPrepared deletes a statement's row
// (SystemKeyspace.removePreparedStatement).
func (e *Executor) removePersistedPrepared(ctx context.Context, t *schema.Table, key []byte) error {
	up := &mutation.PartitionUpdate{TableID: t.ID, Key: key, Token: e.cfg.Partitioner.Token(key),
		Deletion: mutation.Deletion{MarkedForDeleteAt: e.timestamp(), LocalDeletionTime: e.now().Unix()}}
	return e.cfg.Coordinator.Mutate(ctx, t, One, []*mutation.PartitionUpdate{up})
}

// PreloadPrepared prepares again the statements of
// system.prepared_statements (QueryProcessor.preloadPreparedStatements).
// A statement that no longer prepares (its table was dropped, ...) is
// deleted from the table. It returns how many were loaded and removed.
func (e *Executor) PreloadPrepared(ctx context.Context) (loaded, removed int, err error) {
	t := e.preparedStatementsTable()
	if t == nil || !e.cfg.PersistPreparedStatements {
		return 0, 0, nil
	}
	res, err := e.Query(ctx, &Session{Internal: true},
		"SELECT prepared_id, logged_keyspace, query_string FROM system.prepared_statements", &Options{Consistency: uint16(One)})
	if err != nil {
		return 0, 0, err
	}
	for _, row := range res.Rows {
		id, keyspace, query := row[0], string(row[1]), string(row[2])
		if _, perr := e.prepare(ctx, query, keyspace, false); perr != nil || string(preparedIDBytes(keyspace, query)) != string(id) {
			if err := e.removePersistedPrepared(ctx, t, id); err != nil {
				return loaded, removed, err
			}
			removed++
			continue
		}
		loaded++
	}
	return loaded, removed, nil
}

func preparedIDBytes(keyspace, query string) []byte {
	id := preparedID(keyspace, query)
	return id[:]
}
