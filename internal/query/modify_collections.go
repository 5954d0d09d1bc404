package query

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/cqld/cqld/internal/cql"
	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/mutation"
	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/tracing"
	"github.com/cqld/cqld/internal/types"
)

// Writes to non-frozen collections and counters (Cassandra's Lists, Sets,
// Maps and Constants operations).
//
// A non-frozen collection is stored as one cell per element (Cell.Path is
// the set element, the map key or, for lists, a timeuuid that orders the
// list). Overwriting the whole collection writes a column-level tombstone
// (Path == nil) at timestamp-1 followed by the new elements at timestamp,
// exactly as Cassandra's setComplexDeletionTimeForOverwrite; DELETE of the
// column writes the tombstone at the timestamp itself.
//
// List index operations (l[i] = v, DELETE l[i]), list element removal
// (l = l - [..]) and counter increments read before writing, under the
// partition lock of the coordinator (see Coordinator.LockPartitions).

// opKind is what a columnOp does.
type opKind uint8

const (
	opSet     opKind = iota // c = v (whole value)
	opDelete                // DELETE c
	opAdd                   // c = c + v: set/map add, list append, counter increment
	opSub                   // c = c - v: set/map/list removal, counter decrement
	opPrepend               // l = v + l
	opSetElem               // m[k] = v, l[i] = v
	opDelElem               // DELETE m[k], DELETE s[e], DELETE l[i]
)

// Cassandra's limit on set elements and map keys (they are cell paths).
const maxPathSize = 0xFFFF

func isCollection(t *types.Type) bool {
	return t.Kind == types.List || t.Kind == types.Set || t.Kind == types.Map
}

// needsRead reports whether the plan reads the current row before writing.
func (p *modifyPlan) needsRead() bool {
	for i := range p.ops {
		op := &p.ops[i]
		if op.col.Type.Kind == types.Counter && (op.kind == opAdd || op.kind == opSub) {
			return true
		}
		if op.col.Type.Kind == types.List && (op.kind == opSetElem || op.kind == opDelElem || op.kind == opSub) {
			return true
		}
	}
	return false
}

// checkCounterUsing refuses USING TTL / TIMESTAMP on counter tables.
func checkCounterUsing(t *schema.Table, u cql.UsingClause) error {
	if !t.IsCounter {
		return nil
	}
	if u.Timestamp != nil {
		return cqlerr.Invalidf("Cannot provide custom timestamp for counter updates")
	}
	if u.TTL != nil {
		return cqlerr.Invalidf("Cannot provide custom TTL for counter updates")
	}
	return nil
}

// elemSpecs are the receivers of c[k] = v: Cassandra's idx(l)/key(m) and
// value(c) specifications.
func elemSpecs(t *schema.Table, col *schema.Column) (key, val ColumnSpec) {
	switch col.Type.Kind {
	case types.List:
		return spec(t, "idx("+col.Name+")", types.IntType), spec(t, "value("+col.Name+")", col.Type.Params[0])
	case types.Map:
		return spec(t, "key("+col.Name+")", col.Type.Params[0]), spec(t, "value("+col.Name+")", col.Type.Params[1])
	}
	return spec(t, "value("+col.Name+")", col.Type.Params[0]), ColumnSpec{}
}

// assignmentText is the CQL of an assignment as Cassandra prints it in
// messages (Operation.RawUpdate.toString).
func assignmentText(a cql.Assignment) string {
	v := cql.FormatTerm(a.Value)
	switch {
	case a.Element != nil:
		return fmt.Sprintf("%s[%s] = %s", a.Column, cql.FormatTerm(a.Element), v)
	case a.Op == '+':
		return fmt.Sprintf("%s = %s + %s", a.Column, a.Column, v)
	case a.Op == '-':
		return fmt.Sprintf("%s = %s - %s", a.Column, a.Column, v)
	case a.Op == 'p':
		return fmt.Sprintf("%s = %s + %s", a.Column, v, a.Column)
	}
	return fmt.Sprintf("%s = %s", a.Column, v)
}

// compileAssignment compiles one SET item of an UPDATE.
func (c *compiled) compileAssignment(t *schema.Table, col *schema.Column, a cql.Assignment, now nowFunc) (columnOp, error) {
	typ := col.Type
	if a.Field != "" {
		return c.compileFieldAssignment(t, col, a, now)
	}
	if a.Element != nil {
		if !isCollection(typ) {
			return columnOp{}, cqlerr.Invalidf("Invalid operation (%s) for non collection column %s", assignmentText(a), col.Name)
		}
		if !typ.IsMultiCell() {
			return columnOp{}, cqlerr.Invalidf("Invalid operation (%s) for frozen collection column %s", assignmentText(a), col.Name)
		}
		if typ.Kind == types.Set {
			return columnOp{}, cqlerr.Invalidf("Invalid operation (%s) for set column %s", assignmentText(a), col.Name)
		}
		ks, vs := elemSpecs(t, col)
		kf, err := c.compileTerm(a.Element, ks, now)
		if err != nil {
			return columnOp{}, err
		}
		vf, err := c.compileTerm(a.Value, vs, now)
		if err != nil {
			return columnOp{}, err
		}
		return columnOp{col: col, kind: opSetElem, elem: kf, value: vf}, nil
	}
	switch a.Op {
	case '=':
		if typ.Kind == types.Counter {
			return columnOp{}, cqlerr.Invalidf("Cannot set the value of counter column %s (counters can only be incremented/decremented, not set)", col.Name)
		}
		if err := checkWritable(col); err != nil {
			return columnOp{}, err
		}
		f, err := c.compileTerm(a.Value, spec(t, col.Name, typ), now)
		if err != nil {
			return columnOp{}, err
		}
		return columnOp{col: col, kind: opSet, value: f}, nil
	case '+', '-':
		kind := opAdd
		if a.Op == '-' {
			kind = opSub
		}
		recv := typ
		switch {
		case isCollection(typ):
			if !typ.IsMultiCell() {
				return columnOp{}, cqlerr.Invalidf("Invalid operation (%s) for frozen collection column %s", assignmentText(a), col.Name)
			}
			if typ.Kind == types.Map && kind == opSub {
				recv = types.SetOf(typ.Params[0], false)
			}
		case typ.Kind == types.Counter:
		case typ.Kind == types.Tuple || typ.Kind == types.UDT:
			return columnOp{}, cqlerr.Invalidf("Invalid operation (%s) for tuple column %s", assignmentText(a), col.Name)
		default:
			return columnOp{}, cqlerr.Invalidf("Invalid operation (%s) for non counter column %s", assignmentText(a), col.Name)
		}
		f, err := c.compileTerm(a.Value, spec(t, col.Name, recv), now)
		if err != nil {
			if typ.Kind == types.Map && cqlerr.As(err).Code == cqlerr.Invalid {
				// Operation.Addition and Substraction replace the error.
				if kind == opAdd {
					return columnOp{}, cqlerr.Invalidf("Value for a map addition has to be a map, but was: '%s'", termText(a.Value))
				}
				return columnOp{}, cqlerr.Invalidf("Value for a map substraction has to be a set, but was: '%s'", termText(a.Value))
			}
			return columnOp{}, err
		}
		return columnOp{col: col, kind: kind, value: f}, nil
	case 'p':
		if typ.Kind != types.List {
			return columnOp{}, cqlerr.Invalidf("Invalid operation (%s) for non list column %s", assignmentText(a), col.Name)
		}
		if !typ.IsMultiCell() {
			return columnOp{}, cqlerr.Invalidf("Invalid operation (%s) for frozen list column %s", assignmentText(a), col.Name)
		}
		f, err := c.compileTerm(a.Value, spec(t, col.Name, typ), now)
		if err != nil {
			return columnOp{}, err
		}
		return columnOp{col: col, kind: opPrepend, value: f}, nil
	}
	return columnOp{}, cqlerr.Invalidf("Invalid operation (%s)", assignmentText(a))
}

// compileElementDeletion compiles DELETE c[k].
func (c *compiled) compileElementDeletion(t *schema.Table, col *schema.Column, elem cql.Term, now nowFunc) (columnOp, error) {
	if !isCollection(col.Type) {
		return columnOp{}, cqlerr.Invalidf("Invalid deletion operation for non collection column %s", col.Name)
	}
	if !col.Type.IsMultiCell() {
		return columnOp{}, cqlerr.Invalidf("Invalid deletion operation for frozen collection column %s", col.Name)
	}
	ks, _ := elemSpecs(t, col)
	f, err := c.compileTerm(elem, ks, now)
	if err != nil {
		return columnOp{}, err
	}
	return columnOp{col: col, kind: opDelElem, elem: f}, nil
}

// currentRow is the live state of the row a read-before-write modifies.
type currentRow struct {
	cells, static []mutation.Cell
}

func (r *currentRow) cellsOf(col *schema.Column) []mutation.Cell {
	if r == nil {
		return nil
	}
	src := r.cells
	if col.Kind == schema.Static {
		src = r.static
	}
	var out []mutation.Cell
	for _, c := range src {
		if c.Column == col.ID {
			out = append(out, c)
		}
	}
	return out
}

// applyList updates the list column of op in the current row with the
// cells op wrote: what a later operation of the statement reads. The cells themselves stay: two live cells an
// operation and a later one write on one path have the statement's
// timestamp, and reconcile as Cassandra's do (the greater value wins), so
// l = l + [6, 8], l[4] = 5 leaves 6.
func (r *currentRow) applyList(op *columnOp, cells []mutation.Cell) {
	src := &r.cells
	if op.col.Kind == schema.Static {
		src = &r.static
	}
	var list, others []mutation.Cell
	for _, c := range *src {
		if c.Column == op.col.ID {
			list = append(list, c)
		} else {
			others = append(others, c)
		}
	}
	find := func(path []byte) int {
		return slices.IndexFunc(list, func(c mutation.Cell) bool { return bytes.Equal(c.Path, path) })
	}
	var added []mutation.Cell
	for _, c := range cells {
		switch {
		case c.Tombstone && c.Path == nil:
			list = list[:0]
		case c.Tombstone:
			if i := find(c.Path); i >= 0 {
				list = slices.Delete(list, i, i+1)
			}
		case find(c.Path) >= 0:
			list[find(c.Path)].Value = c.Value
		default:
			added = append(added, c)
		}
	}
	if op.kind == opPrepend {
		list = append(added, list...)
	} else {
		list = append(list, added...)
	}
	*src = append(others, list...)
}

// readCurrent reads the live rows cks of one partition, and its static
// row: empty clusterings stand for the static row alone. Each row is a
// point slice (the engine sorts and merges them), so that a counter
// UPDATE ... c IN (...) or a conditional batch over a few rows of a wide
// partition reads those rows, not the partition.
func (e *Executor) readCurrent(ctx context.Context, t *schema.Table, cl Consistency, key []byte, token int64, cks [][][]byte, nowSec int64) (*mutation.Partition, error) {
	cmd := &mutation.ReadCommand{TableID: t.ID, Key: key, Token: token, NowSec: nowSec}
	if len(t.Clustering) > 0 {
		for _, ck := range cks {
			if len(ck) > 0 {
				b := mutation.Bound{Values: ck, Inclusive: true}
				cmd.Slices = append(cmd.Slices, mutation.Slice{Start: b, End: b})
			}
		}
		cmd.StaticOnly = cmd.Slices == nil
	}
	return e.readOne(ctx, t, cl, cmd)
}

// readOne runs a single-partition read at cl (the reads before writes of
// counters, list operations and views at NodeLocal, LWT's at its serial
// level) and returns the partition, nil when it has no live data.
func (e *Executor) readOne(ctx context.Context, t *schema.Table, cl Consistency, cmd *mutation.ReadCommand) (*mutation.Partition, error) {
	parts, err := e.cfg.Coordinator.Read(ctx, t, cl, cmd)
	if err != nil {
		return nil, err
	}
	parts = dropShadowed(t, parts)
	for i := range parts {
		if bytes.Equal(parts[i].Key, cmd.Key) {
			return &parts[i], nil
		}
	}
	return nil, nil
}

// currentCells returns the cells of row ck in part (nil when absent).
func currentCells(t *schema.Table, part *mutation.Partition, ck [][]byte) []mutation.Cell {
	if part == nil {
		return nil
	}
	for i := range part.Rows {
		if t.CompareClustering(part.Rows[i].Clustering, ck) == 0 {
			return part.Rows[i].Cells
		}
	}
	return nil
}

func staticOf(part *mutation.Partition) []mutation.Cell {
	if part == nil || part.Static == nil {
		return nil
	}
	return part.Static.Cells
}

// rowCells evaluates the plan's operations into the cells of one row (and
// of its partition's static row). cur is the current row for the
// operations that read before writing.
func (e *Executor) rowCells(p *modifyPlan, vals []Value, w writeParams, cur *currentRow) (cells, static []mutation.Cell, err error) {
	out := make([]mutation.Cell, 0, len(p.ops)) // one cell per operation but on collections
	for i := range p.ops {
		op := &p.ops[i]
		before := len(out)
		if out, err = e.opCells(out, op, vals, w, cur); err != nil {
			return nil, nil, err
		}
		if cur != nil && op.col.Type.Kind == types.List && op.col.Type.IsMultiCell() &&
			slices.ContainsFunc(p.ops[i+1:], func(o columnOp) bool { return o.col == op.col }) {
			// The operations of a statement apply in order: the next
			// one on this list sees this one's result (Cassandra's
			// testMultipleOperationOnListWithinTheSameQuery).
			cur.applyList(op, out[before:])
		}
		if op.col.Kind == schema.Static {
			static = append(static, out[before:]...)
			out = out[:before]
		}
	}
	sortCells(out)
	sortCells(static)
	return out, static, nil
}

// cellWriter makes the cells of one operation.
type cellWriter struct {
	col *schema.Column
	w   writeParams
}

func (cw cellWriter) live(path, value []byte) mutation.Cell {
	c := mutation.Cell{Column: cw.col.ID, Path: path, Value: value, Timestamp: cw.w.ts, LocalDeletionTime: mutation.NoDeletion}
	if cw.w.ttl > 0 {
		c.TTL, c.LocalDeletionTime = cw.w.ttl, cw.w.nowSec+int64(cw.w.ttl)
	}
	return c
}

func (cw cellWriter) tombstone(path []byte, ts int64) mutation.Cell {
	return mutation.Cell{Column: cw.col.ID, Path: path, Tombstone: true, Timestamp: ts, LocalDeletionTime: cw.w.nowSec}
}

// opCells appends the cells of one operation to out.
func (e *Executor) opCells(out []mutation.Cell, op *columnOp, vals []Value, w writeParams, cur *currentRow) ([]mutation.Cell, error) {
	col := op.col
	cw := cellWriter{col: col, w: w}
	multi := col.Type.IsMultiCell()
	switch op.kind {
	case opDelete:
		if col.Type.Kind == types.Counter {
			// A deleted counter cannot be used again: Cassandra's counter
			// reconciliation lets a tombstone win over any counter cell.
			return append(out, cw.tombstone(nil, math.MaxInt64)), nil
		}
		return append(out, cw.tombstone(nil, w.ts)), nil
	case opSet:
		b, unset, err := op.value(vals)
		if err != nil || unset {
			return out, err
		}
		if !multi {
			if b == nil {
				return append(out, cw.tombstone(nil, w.ts)), nil
			}
			return append(out, cw.live(nil, b)), nil
		}
		out = append(out, cw.tombstone(nil, w.ts-1))
		if b == nil {
			return out, nil
		}
		return e.addElements(out, cw, b, false)
	case opAdd, opSub, opPrepend:
		b, unset, err := op.value(vals)
		if err != nil || unset {
			return out, err
		}
		if col.Type.Kind == types.Counter {
			return counterCells(out, cw, op.kind == opSub, b, cur)
		}
		if b == nil {
			return out, nil // adding or removing null changes nothing
		}
		switch op.kind {
		case opAdd:
			return e.addElements(out, cw, b, false)
		case opPrepend:
			return e.addElements(out, cw, b, true)
		}
		return removeElements(out, cw, b, cur)
	case opSetElem:
		k, kunset, err := op.elem(vals)
		if err != nil {
			return out, err
		}
		v, vunset, err := op.value(vals)
		if err != nil {
			return out, err
		}
		if col.Type.Kind == types.List {
			if kunset {
				return out, cqlerr.Invalidf("Invalid unset value for list index")
			}
			if k == nil {
				return out, cqlerr.Invalidf("Invalid null value for list index")
			}
			if vunset {
				return out, nil
			}
			path, err := listPath(cur.cellsOf(col), k, "Attempted to set an element on a list which is null")
			if err != nil {
				return out, err
			}
			if v == nil {
				return append(out, cw.tombstone(path, w.ts)), nil
			}
			return append(out, cw.live(path, v)), nil
		}
		if kunset {
			return out, cqlerr.Invalidf("Invalid unset map key")
		}
		if k == nil {
			return out, cqlerr.Invalidf("Invalid null map key")
		}
		if vunset {
			return out, nil
		}
		if len(k) > maxPathSize {
			return out, cqlerr.Invalidf("Map key is too long. Map keys are limited to %d bytes but %d bytes keys provided", maxPathSize, len(k))
		}
		if v == nil {
			return append(out, cw.tombstone(k, w.ts)), nil
		}
		return append(out, cw.live(k, v)), nil
	case opDelElem:
		k, unset, err := op.elem(vals)
		if err != nil {
			return out, err
		}
		switch col.Type.Kind {
		case types.List:
			if unset {
				return out, cqlerr.Invalidf("Invalid unset value for list index")
			}
			if k == nil {
				return out, cqlerr.Invalidf("Invalid null value for list index")
			}
			path, err := listPath(cur.cellsOf(col), k, "Attempted to delete an element from a list which is null")
			if err != nil {
				return out, err
			}
			return append(out, cw.tombstone(path, w.ts)), nil
		case types.Map:
			if unset {
				return out, cqlerr.Invalidf("Invalid unset map key")
			}
			if k == nil {
				return out, cqlerr.Invalidf("Invalid null map key")
			}
		default:
			if unset {
				return out, nil
			}
			if k == nil {
				return out, cqlerr.Invalidf("Invalid null set element")
			}
		}
		return append(out, cw.tombstone(k, w.ts)), nil
	}
	return out, cqlerr.Serverf("internal error: unknown column operation")
}

// listPath finds the path of the element at index idx (a serialized int).
func listPath(cells []mutation.Cell, idx []byte, nullMsg string) ([]byte, error) {
	if len(cells) == 0 {
		return nil, cqlerr.Invalidf("%s", nullMsg)
	}
	i := int32(binary.BigEndian.Uint32(idx))
	if i < 0 || int(i) >= len(cells) {
		return nil, cqlerr.Invalidf("List index %d out of bound, list has size %d", i, len(cells))
	}
	return cells[i].Path, nil
}

// addElements appends the element cells of a serialized collection value.
func (e *Executor) addElements(out []mutation.Cell, cw cellWriter, b []byte, prepend bool) ([]mutation.Cell, error) {
	typ := cw.col.Type
	switch typ.Kind {
	case types.UDT:
		return addUDTFields(out, cw, b)
	case types.Map:
		ks, vs, err := types.DecodeMap(b)
		if err != nil {
			return out, cqlerr.Invalidf("Invalid map value for %s", cw.col.Name)
		}
		for i := range ks {
			if ks[i] == nil || vs[i] == nil {
				return out, cqlerr.Invalidf("null is not supported inside collections")
			}
			if len(ks[i]) > maxPathSize {
				return out, cqlerr.Invalidf("Map key is too long. Map keys are limited to %d bytes but %d bytes keys provided", maxPathSize, len(ks[i]))
			}
			out = append(out, cw.live(ks[i], vs[i]))
		}
		return out, nil
	case types.Set:
		els, err := types.DecodeCollection(b)
		if err != nil {
			return out, cqlerr.Invalidf("Invalid set value for %s", cw.col.Name)
		}
		for _, el := range els {
			if el == nil {
				return out, cqlerr.Invalidf("null is not supported inside collections")
			}
			if len(el) > maxPathSize {
				return out, cqlerr.Invalidf("Set value is too long. Set values are limited to %d bytes but %d bytes value provided", maxPathSize, len(el))
			}
			out = append(out, cw.live(el, []byte{}))
		}
		return out, nil
	case types.List:
		els, err := types.DecodeCollection(b)
		if err != nil {
			return out, cqlerr.Invalidf("Invalid list value for %s", cw.col.Name)
		}
		for _, el := range els {
			if el == nil {
				return out, cqlerr.Invalidf("null is not supported inside collections")
			}
		}
		paths := listPaths.next(len(els), prepend)
		for i, el := range els {
			out = append(out, cw.live(paths[i], el))
		}
		return out, nil
	}
	return out, cqlerr.Serverf("internal error: not a collection")
}

// removeElements appends the tombstones removing set elements, map keys
// (b is a set of keys) or every list element equal to one of b's.
func removeElements(out []mutation.Cell, cw cellWriter, b []byte, cur *currentRow) ([]mutation.Cell, error) {
	els, err := types.DecodeCollection(b)
	if err != nil {
		return out, cqlerr.Invalidf("Invalid value for %s", cw.col.Name)
	}
	if cw.col.Type.Kind != types.List {
		for _, el := range els {
			if el != nil {
				out = append(out, cw.tombstone(el, cw.w.ts))
			}
		}
		return out, nil
	}
	et := cw.col.Type.Params[0]
	for _, c := range cur.cellsOf(cw.col) {
		for _, el := range els {
			if el != nil && types.Compare(et, c.Value, el) == 0 {
				out = append(out, cw.tombstone(c.Path, cw.w.ts))
				break
			}
		}
	}
	return out, nil
}

// counterCells writes the new value of a counter: its current value plus
// or minus the delta, at a timestamp after the current cell's (the caller
// holds the partition lock, so no increment is lost).
func counterCells(out []mutation.Cell, cw cellWriter, minus bool, b []byte, cur *currentRow) ([]mutation.Cell, error) {
	if b == nil {
		return out, cqlerr.Invalidf("Invalid null value for counter increment")
	}
	if len(b) != 8 {
		return out, cqlerr.Invalidf("Expected 8 bytes for a counter value, got %d", len(b))
	}
	delta := int64(binary.BigEndian.Uint64(b))
	if minus {
		delta = -delta
	}
	var value int64
	ts := cw.w.ts
	for _, c := range cur.cellsOf(cw.col) {
		if c.Path == nil && len(c.Value) == 8 {
			value = int64(binary.BigEndian.Uint64(c.Value))
			if c.Timestamp >= ts {
				ts = c.Timestamp + 1
			}
		}
	}
	cell := mutation.Cell{Column: cw.col.ID, Value: types.EncodeBigint(value + delta), Timestamp: ts, LocalDeletionTime: mutation.NoDeletion}
	return append(out, cell), nil
}

// listClock hands out the timeuuids that are the paths of list elements:
// increasing with time for appends, and, for prepends, decreasing below a
// reference time like Cassandra's Lists.PrecisionTime (so a prepended
// element sorts before every element added earlier).
type listClock struct {
	mu    sync.Mutex
	last  int64 // last append time, 100ns units since 1582-10-15
	first int64 // last prepend time
	node  [8]byte
	nowFn func() time.Time
}

var listPaths = newListClock()

func newListClock() *listClock {
	c := &listClock{nowFn: time.Now}
	_, _ = rand.Read(c.node[:])
	return c
}

// prependReference is Cassandra's Lists.PrecisionTime REFERENCE_TIME
// (2010-01-01T00:00:00Z) in 100ns units since the UUID epoch.
const prependReference = 1262304000000*10000 + tracing.UUIDEpochTicks

func (c *listClock) next(n int, prepend bool) [][]byte {
	c.mu.Lock()
	now := c.nowFn().UnixNano()/100 + tracing.UUIDEpochTicks
	var start int64
	if prepend {
		start = 2*prependReference - now
		if c.first != 0 && c.first <= start {
			start = c.first - 1
		}
		start -= int64(n) - 1
		c.first = start
	} else {
		start = now
		if start <= c.last {
			start = c.last + 1
		}
		c.last = start + int64(n) - 1
	}
	c.mu.Unlock()
	out := make([][]byte, n)
	for i := range out {
		out[i] = c.uuid(start + int64(i))
	}
	return out
}

func (c *listClock) uuid(t int64) []byte {
	u := make([]byte, 16)
	binary.BigEndian.PutUint32(u[0:], uint32(t))
	binary.BigEndian.PutUint16(u[4:], uint16(t>>32))
	binary.BigEndian.PutUint16(u[6:], uint16(t>>48)&0x0fff|0x1000)
	copy(u[8:], c.node[:])
	u[8] = u[8]&0x3f | 0x80
	return u
}
