package bench

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// opKind names what one operation did; each kind has its own histogram.
type opKind int

const (
	opRead opKind = iota
	opUpdate
	opInsert
	opReadModifyWrite
	opSlice
	numOpKinds
)

var opKindNames = [numOpKinds]string{"READ", "UPDATE", "INSERT", "READ-MODIFY-WRITE", "SLICE"}

func (k opKind) String() string { return opKindNames[k] }

// errExhausted ends a worker whose workload has a fixed number of operations
// (the load phases).
var errExhausted = errors.New("bench: no more operations")

// worker runs operations of one workload. Each goroutine owns one worker;
// workers of one workload share the workload's counters.
type worker interface {
	// op runs one operation and reports its kind. errExhausted means there
	// is nothing left to do (the operation was not run).
	op(ctx context.Context) (opKind, error)
}

// workload is one named mix of operations on one table.
type workload interface {
	// ddl returns the statements that create the workload's table
	// (the keyspace exists already). They are idempotent.
	ddl() []string
	// loader returns a worker factory for the load phase, or nil when the
	// workload needs no data loaded.
	loader() func(r *rand.Rand) worker
	// runner returns the worker factory for the measured phase.
	runner() func(r *rand.Rand) worker
}

// Workloads lists the workload names accepted by Config.Workload, in the
// order the benchmark script runs them (YCSB's recommended order, D last
// because it inserts).
var Workloads = []string{"a", "b", "c", "f", "d", "ts-insert", "slice"}

// env is what every workload's workers need.
type env struct {
	cfg     *Config
	session *gocql.Session
	cl      gocql.Consistency
	ks      string
}

func (e *env) query(stmt string, values ...any) *gocql.Query {
	return e.session.Query(stmt, values...).Consistency(e.cl).Idempotent(true)
}

func newWorkload(e *env) (workload, error) {
	switch e.cfg.Workload {
	case "a":
		return newYCSB(e, 0.5, 0.5, 0, 0, "zipfian"), nil
	case "b":
		return newYCSB(e, 0.95, 0.05, 0, 0, "zipfian"), nil
	case "c":
		return newYCSB(e, 1, 0, 0, 0, "zipfian"), nil
	case "d":
		return newYCSB(e, 0.95, 0, 0.05, 0, "latest"), nil
	case "f":
		return newYCSB(e, 0.5, 0, 0, 0.5, "zipfian"), nil
	case "ts-insert":
		return &timeSeries{env: e}, nil
	case "slice":
		return &wideSlice{env: e}, nil
	}
	return nil, fmt.Errorf("unknown workload %q (known: %s)", e.cfg.Workload, strings.Join(Workloads, ", "))
}

// valueSource hands out pseudo-random byte strings without allocating: slices
// of one random buffer at random offsets. Callers must not modify them.
type valueSource struct{ buf []byte }

func newValueSource(r *rand.Rand, size int) valueSource {
	b := make([]byte, max(64<<10, 2*size))
	for i := range b {
		b[i] = byte(' ' + r.IntN(95)) // printable, like YCSB's values
	}
	return valueSource{buf: b}
}

func (v valueSource) get(r *rand.Rand, size int) []byte {
	off := r.IntN(len(v.buf) - size + 1)
	return v.buf[off : off+size : off+size]
}

// ycsb is the YCSB core workload on usertable (y_id text, field0..N blob):
// reads read all fields, updates write one field, inserts write all
// (YCSB's defaults readallfields=true, writeallfields=false).
type ycsb struct {
	*env
	read, update, insert, rmw float64 // proportions, summing to 1
	dist                      string
	inserts                   *ackedCounter // workload D's new records
	loadNext                  atomic.Int64

	selectCQL string
	insertCQL string
	updateCQL []string // one per field
}

func newYCSB(e *env, read, update, insert, rmw float64, dist string) *ycsb {
	w := &ycsb{env: e, read: read, update: update, insert: insert, rmw: rmw, dist: dist}
	n := e.cfg.FieldCount
	fields := make([]string, n)
	marks := make([]string, n)
	for i := range fields {
		fields[i] = "field" + strconv.Itoa(i)
		marks[i] = "?"
	}
	w.selectCQL = fmt.Sprintf("SELECT y_id, %s FROM %s.usertable WHERE y_id = ?", strings.Join(fields, ", "), e.ks)
	w.insertCQL = fmt.Sprintf("INSERT INTO %s.usertable (y_id, %s) VALUES (?, %s)", e.ks, strings.Join(fields, ", "), strings.Join(marks, ", "))
	for _, f := range fields {
		w.updateCQL = append(w.updateCQL, fmt.Sprintf("UPDATE %s.usertable SET %s = ? WHERE y_id = ?", e.ks, f))
	}
	// D inserts after the loaded records; the run's start is unique enough
	// that repeated runs on one table mostly add new keys.
	w.inserts = newAckedCounter(e.cfg.RecordCount)
	return w
}

func (w *ycsb) ddl() []string {
	var cols strings.Builder
	for i := 0; i < w.cfg.FieldCount; i++ {
		fmt.Fprintf(&cols, ", field%d blob", i)
	}
	return []string{fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s.usertable (y_id text PRIMARY KEY%s)", w.ks, cols.String())}
}

type ycsbWorker struct {
	w      *ycsb
	r      *rand.Rand
	vals   valueSource
	keys   keyChooser
	args   []any
	dest   []any
	loaded bool // load phase
}

func (w *ycsb) newWorker(r *rand.Rand, load bool) worker {
	n := w.cfg.FieldCount
	wk := &ycsbWorker{w: w, r: r, vals: newValueSource(r, w.cfg.ValueSize), loaded: load,
		args: make([]any, n+1), dest: make([]any, n+1)}
	var key string
	wk.dest[0] = &key
	for i := 1; i <= n; i++ {
		wk.dest[i] = new([]byte)
	}
	switch w.dist {
	case "latest":
		wk.keys = &skewedLatest{acked: w.inserts, z: newZipfian(max(w.inserts.last()+1, 2), 0)}
	case "uniform":
		wk.keys = uniformChooser{items: w.cfg.RecordCount}
	default:
		wk.keys = newScrambledZipfian(w.cfg.RecordCount)
	}
	return wk
}

func (w *ycsb) loader() func(r *rand.Rand) worker {
	return func(r *rand.Rand) worker { return w.newWorker(r, true) }
}

func (w *ycsb) runner() func(r *rand.Rand) worker {
	return func(r *rand.Rand) worker { return w.newWorker(r, false) }
}

func (wk *ycsbWorker) op(ctx context.Context) (opKind, error) {
	w := wk.w
	if wk.loaded {
		n := w.loadNext.Add(1) - 1
		if n >= w.cfg.RecordCount {
			return opInsert, errExhausted
		}
		return opInsert, wk.doInsert(ctx, n)
	}
	p := wk.r.Float64()
	switch {
	case p < w.read:
		return opRead, wk.doRead(ctx, wk.keys.next(wk.r))
	case p < w.read+w.update:
		return opUpdate, wk.doUpdate(ctx, wk.keys.next(wk.r))
	case p < w.read+w.update+w.insert:
		n := w.inserts.take()
		err := wk.doInsert(ctx, n)
		if err == nil {
			w.inserts.ack(n)
		}
		return opInsert, err
	default:
		k := wk.keys.next(wk.r)
		if err := wk.doRead(ctx, k); err != nil {
			return opReadModifyWrite, err
		}
		return opReadModifyWrite, wk.doUpdate(ctx, k)
	}
}

func (wk *ycsbWorker) doRead(ctx context.Context, n int64) error {
	err := wk.w.query(wk.w.selectCQL, ycsbKey(n)).ScanContext(ctx, wk.dest...)
	if errors.Is(err, gocql.ErrNotFound) {
		return nil // a key not loaded (or a D insert not yet visible) is still an answered read
	}
	return err
}

func (wk *ycsbWorker) doUpdate(ctx context.Context, n int64) error {
	f := wk.r.IntN(wk.w.cfg.FieldCount)
	return wk.w.query(wk.w.updateCQL[f], wk.vals.get(wk.r, wk.w.cfg.ValueSize), ycsbKey(n)).ExecContext(ctx)
}

func (wk *ycsbWorker) doInsert(ctx context.Context, n int64) error {
	wk.args[0] = ycsbKey(n)
	for i := 1; i < len(wk.args); i++ {
		wk.args[i] = wk.vals.get(wk.r, wk.w.cfg.ValueSize)
	}
	return wk.w.query(wk.w.insertCQL, wk.args...).ExecContext(ctx)
}

// timeSeries inserts sensor readings into ((sensor_id, day), reading_time)
// partitions: the seeds' time-series table, written the way IoT ingest
// writes it (each reading a new row at the head of today's partition).
type timeSeries struct {
	*env
	clock atomic.Int64 // ms, so readings of one run never collide
}

func (t *timeSeries) ddl() []string {
	return []string{fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s.sensor_readings (sensor_id text, day date, "+
		"reading_time timestamp, temperature double, humidity double, pressure double, "+
		"PRIMARY KEY ((sensor_id, day), reading_time))", t.ks)}
}

func (t *timeSeries) loader() func(r *rand.Rand) worker { return nil }

func (t *timeSeries) runner() func(r *rand.Rand) worker {
	t.clock.Store(time.Now().UnixMilli())
	stmt := fmt.Sprintf("INSERT INTO %s.sensor_readings (sensor_id, day, reading_time, temperature, humidity, pressure) "+
		"VALUES (?, ?, ?, ?, ?, ?)", t.ks)
	return func(r *rand.Rand) worker {
		return workerFunc(func(ctx context.Context) (opKind, error) {
			ts := time.UnixMilli(t.clock.Add(1)).UTC()
			day := ts.Truncate(24 * time.Hour)
			sensor := "sensor-" + strconv.Itoa(r.IntN(t.cfg.Sensors))
			return opInsert, t.query(stmt, sensor, day, ts,
				15+10*r.Float64(), 30+40*r.Float64(), 980+40*r.Float64()).ExecContext(ctx)
		})
	}
}

// wideSlice reads 50-row slices of wide partitions: pk = ? AND ck > ? LIMIT
// 50. RecordCount rows are spread over Partitions partitions.
type wideSlice struct {
	*env
	loadNext atomic.Int64
}

const sliceLimit = 50

func (s *wideSlice) ddl() []string {
	return []string{fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s.wide (pk bigint, ck bigint, v blob, PRIMARY KEY (pk, ck))", s.ks)}
}

func (s *wideSlice) rowsPerPartition() int64 {
	return max(s.cfg.RecordCount/s.cfg.Partitions, 1)
}

func (s *wideSlice) loader() func(r *rand.Rand) worker {
	stmt := fmt.Sprintf("INSERT INTO %s.wide (pk, ck, v) VALUES (?, ?, ?)", s.ks)
	return func(r *rand.Rand) worker {
		vals := newValueSource(r, s.cfg.ValueSize)
		return workerFunc(func(ctx context.Context) (opKind, error) {
			n := s.loadNext.Add(1) - 1
			if n >= s.cfg.RecordCount {
				return opInsert, errExhausted
			}
			return opInsert, s.query(stmt, n%s.cfg.Partitions, n/s.cfg.Partitions,
				vals.get(r, s.cfg.ValueSize)).ExecContext(ctx)
		})
	}
}

func (s *wideSlice) runner() func(r *rand.Rand) worker {
	stmt := fmt.Sprintf("SELECT ck, v FROM %s.wide WHERE pk = ? AND ck > ? LIMIT %d", s.ks, sliceLimit)
	rows := s.rowsPerPartition()
	return func(r *rand.Rand) worker {
		var ck int64
		var v []byte
		return workerFunc(func(ctx context.Context) (opKind, error) {
			pk := r.Int64N(s.cfg.Partitions)
			from := r.Int64N(max(rows-sliceLimit, 1)) - 1
			iter := s.query(stmt, pk, from).IterContext(ctx)
			for iter.Scan(&ck, &v) {
			}
			return opSlice, iter.Close()
		})
	}
}

type workerFunc func(ctx context.Context) (opKind, error)

func (f workerFunc) op(ctx context.Context) (opKind, error) { return f(ctx) }
