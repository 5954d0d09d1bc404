package query

import (
	"context"
	"fmt"

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
	if err := e.cfg.Coordinator.Mutate(context.WithoutCancel(tracing.Without(ctx)), t, NodeLocal, []*mutation.PartitionUpdate{up}); err != nil {
		e.cfg.Logger.Warn("cannot persist prepared statement", "query", query, "err", err)
	}
}

// removePersistedPrepared deletes the rows of statements, in one write
// (SystemKeyspace.removePreparedStatement).
func (e *Executor) removePersistedPrepared(ctx context.Context, keys [][]byte) {
	t := e.preparedStatementsTable()
	if t == nil || len(keys) == 0 {
		return
	}
	ts, now := e.timestamp(), e.now().Unix()
	ups := make([]*mutation.PartitionUpdate, len(keys))
	for i, key := range keys {
		ups[i] = &mutation.PartitionUpdate{TableID: t.ID, Key: key, Token: e.cfg.Partitioner.Token(key),
			Deletion: mutation.Deletion{MarkedForDeleteAt: ts, LocalDeletionTime: now}}
	}
	if err := e.cfg.Coordinator.Mutate(context.WithoutCancel(tracing.Without(ctx)), t, NodeLocal, ups); err != nil {
		e.cfg.Logger.Warn("cannot remove prepared statements", "count", len(keys), "err", err)
	}
}

// preloadPage is how many rows of system.prepared_statements PreloadPrepared
// reads at a time.
const preloadPage = 1000

// PreloadPrepared prepares again the statements of
// system.prepared_statements (QueryProcessor.preloadPreparedStatements).
// A statement that no longer prepares (its table was dropped, ...) is
// deleted from the table. Loading stops before the cache would have to
// evict, as Cassandra stops at its threshold: the rest stays in the table
// (a leak of statements an application prepares with literals; TRUNCATE
// system.prepared_statements clears it). It returns how many statements
// were loaded and removed.
func (e *Executor) PreloadPrepared(ctx context.Context) (loaded, removed int, err error) {
	t := e.preparedStatementsTable()
	if t == nil || !e.cfg.PersistPreparedStatements {
		return 0, 0, nil
	}
	opts := &Options{Consistency: uint16(One), PageSize: preloadPage}
	var invalid [][]byte
	defer func() { e.removePersistedPrepared(ctx, invalid) }()
	for {
		res, err := e.Query(ctx, &Session{Internal: true},
			"SELECT prepared_id, logged_keyspace, query_string FROM system.prepared_statements", opts)
		if err != nil {
			return loaded, len(invalid), err
		}
		for _, row := range res.Rows {
			keyspace, query := string(row[1]), string(row[2])
			if !e.prepared.fits(preparedWeight(query)) {
				e.cfg.Logger.Warn(fmt.Sprintf("Detected prepared statement cache filling up during preload after preparing %d statements "+
					"(prepared_statements_cache_size: %d bytes). Consider truncating system.prepared_statements to clear out "+
					"leaked prepared statements.", loaded, e.cfg.PreparedStatementsCacheSize))
				return loaded, len(invalid), nil
			}
			// A row whose id is not its statement's is checked before
			// the statement is cached.
			id := preparedID(keyspace, query)
			if string(id[:]) != string(row[0]) {
				invalid = append(invalid, row[0])
				continue
			}
			if _, err := e.prepare(ctx, query, keyspace, false); err != nil {
				invalid = append(invalid, id[:])
				continue
			}
			loaded++
		}
		if res.PagingState == nil {
			return loaded, len(invalid), nil
		}
		opts.PagingState = res.PagingState
	}
}

// invalidatePrepared removes from the cache, and from
// system.prepared_statements, the statements that no longer compile after
// a DROP or an ALTER TABLE (QueryProcessor's
// StatementInvalidatingListener): those that may refer to keyspace ks, or
// with a table name, to that table. Their clients get UNPREPARED and
// prepare again against the new schema, instead of executing a statement
// against a table recreated under the same name. The others keep what
// they were compiled to.
func (e *Executor) invalidatePrepared(ctx context.Context, ks, table string) {
	gone := map[[16]byte]*preparedEntry{}
	for id, pe := range e.prepared.snapshot() {
		if !pe.touches(ks, table) {
			continue
		}
		if _, err := e.recompile(pe); err != nil {
			gone[id] = pe
		}
	}
	if len(gone) == 0 {
		return
	}
	e.prepared.remove(gone)
	if e.cfg.PersistPreparedStatements {
		keys := make([][]byte, 0, len(gone))
		for id := range gone {
			keys = append(keys, id[:])
		}
		e.removePersistedPrepared(ctx, keys)
	}
}

// touches reports whether the statement may refer to keyspace ks (its
// session keyspace, or the keyspace of a table it reads or writes), or
// when table is set, whether it reads or writes ks.table.
func (pe *preparedEntry) touches(ks, table string) bool {
	if table == "" && pe.keyspace == ks {
		return true
	}
	is := func(t *schema.Table) bool { return t.Keyspace == ks && (table == "" || t.Name == table) }
	c := pe.cur.Load()
	if c.sel != nil && is(c.sel.table) || c.modify != nil && is(c.modify.table) {
		return true
	}
	if c.batch != nil {
		for _, m := range c.batch.stmts {
			if is(m.table) {
				return true
			}
		}
	}
	return false
}
