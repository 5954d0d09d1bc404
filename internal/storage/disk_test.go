package storage

import (
	"context"
	"encoding/binary"
	"math"
	"testing"

	"github.com/cqld/cqld/internal/mutation"
	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/types"
	"github.com/google/uuid"
)

// sensorTable is seed 000's
//
//	CREATE TABLE sensor_readings (sensor_id text, day date,
//	  reading_time timestamp, temperature double, humidity double,
//	  pressure double, PRIMARY KEY ((sensor_id, day), reading_time))
func sensorTable() *schema.Table {
	id := uuid.MustParse("0b6e3c1f-8d2a-4c57-9e0f-5a4b3c2d1e0f")
	return schema.NewTable("ks", "sensor_readings", id, []*schema.Column{
		{Name: "sensor_id", Type: types.TextType, Kind: schema.PartitionKey, Position: 0, ID: 1},
		{Name: "day", Type: types.DateType, Kind: schema.PartitionKey, Position: 1, ID: 2},
		{Name: "reading_time", Type: types.TimestampType, Kind: schema.Clustering, Position: 0, ID: 3},
		{Name: "humidity", Type: types.DoubleType, Kind: schema.Regular, Position: -1, ID: 4},
		{Name: "pressure", Type: types.DoubleType, Kind: schema.Regular, Position: -1, ID: 5},
		{Name: "temperature", Type: types.DoubleType, Kind: schema.Regular, Position: -1, ID: 6},
	}, schema.DefaultTableParams())
}

// sensorDay writes one sensor-day (86,400 rows, one reading a second, by
// INSERT: a row marker and three cells per row) and returns the engine,
// flushed and compacted.
func sensorDay(tb testing.TB, dir string) *Pebble {
	tb.Helper()
	t := sensorTable()
	p, err := Open(dir, Options{SyncMode: SyncPeriodic})
	if err != nil {
		tb.Fatal(err)
	}
	const day = 20000 // 2024-10-04 as days since the epoch
	dayVal := binary.BigEndian.AppendUint32(nil, uint32(day)+1<<31)
	key := mutation.CompositeKey([][]byte{[]byte("sensor-0042"), dayVal})
	start := int64(day) * 86400 * 1000 // ms
	f64 := func(v float64) []byte { return binary.BigEndian.AppendUint64(nil, math.Float64bits(v)) }
	ctx := context.Background()
	const batch = 100
	for i := 0; i < 86400; i += batch {
		u := &mutation.PartitionUpdate{TableID: t.ID, Key: key, Token: 1234567, Deletion: mutation.Live}
		for j := i; j < i+batch; j++ {
			ms := start + int64(j)*1000
			ts := ms*1000 + 17 // write time in µs, a little after the reading
			cell := func(col uint32, v float64) mutation.Cell {
				return mutation.Cell{Column: col, Value: f64(v), Timestamp: ts, LocalDeletionTime: mutation.NoDeletion}
			}
			// Realistic readings: slowly varying, two decimals.
			x := float64(j) / 86400 * 2 * math.Pi
			temp := math.Round((21.5+3*math.Sin(x)+0.01*float64(j%7))*100) / 100
			hum := math.Round((45+10*math.Cos(x)+0.01*float64(j%5))*100) / 100
			pres := math.Round((1013.25+2*math.Sin(3*x))*100) / 100
			u.Rows = append(u.Rows, mutation.Row{
				Clustering: [][]byte{binary.BigEndian.AppendUint64(nil, uint64(ms))},
				Marker:     mutation.Liveness{Timestamp: ts, LocalDeletionTime: mutation.NoDeletion},
				Deletion:   mutation.Live,
				Cells:      []mutation.Cell{cell(4, hum), cell(5, pres), cell(6, temp)},
			})
		}
		if err := p.Apply(ctx, t, u); err != nil {
			tb.Fatal(err)
		}
	}
	if err := p.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := p.Compact(ctx); err != nil {
		tb.Fatal(err)
	}
	return p
}

// TestSensorDayBytesOnDisk measures the bytes on disk of seed 000's
// sensor_readings table holding one sensor-day after flush and compaction
// (docs/benchmarks.md, storage section):
//
//	go test ./internal/storage -run SensorDayBytesOnDisk -v
//
// The seed's formula says 124 B/row; the goal is <= 80 B/row.
func TestSensorDayBytesOnDisk(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 86,400 rows")
	}
	p := sensorDay(t, t.TempDir())
	defer p.Close()
	tbl := sensorTable()
	m := p.Metrics()
	tables := m.Total().TablesSize
	tp := appendTablePrefix(nil, tbl.ID)
	est, err := p.db.EstimateDiskUsage(tp, prefixEnd(tp))
	if err != nil {
		t.Fatal(err)
	}
	const rows = 86400
	t.Logf("sstables: %d bytes, %.1f B/row (table range estimate %d bytes, %.1f B/row); %d sstables; seed formula 124 B/row, goal <= 80",
		tables, float64(tables)/rows, est, float64(est)/rows, m.Total().TablesCount)
	// The whole day reads back.
	ps := mustRead(t, p, tbl, &mutation.ReadCommand{TableID: tbl.ID,
		Key:   mutation.CompositeKey([][]byte{[]byte("sensor-0042"), binary.BigEndian.AppendUint32(nil, uint32(20000)+1<<31)}),
		Token: 1234567, NowSec: 1})
	if len(ps) != 1 || len(ps[0].Rows) != rows || len(ps[0].Rows[rows-1].Cells) != 3 {
		t.Fatalf("read back %d partitions", len(ps))
	}
	if float64(tables)/rows > 80 {
		t.Errorf("%.1f B/row on disk, goal <= 80", float64(tables)/rows)
	}
}
