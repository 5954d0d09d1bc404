package node

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/cqld/cqld/internal/query"
	"github.com/cqld/cqld/internal/types"
)

// benchNode starts a node with a key-value table.
func benchNode(b *testing.B) *Node {
	b.Helper()
	n := startTestNode(b, b.TempDir())
	b.Cleanup(func() { stopTestNode(b, n) })
	ex := n.Executor()
	for _, q := range []string{
		`CREATE KEYSPACE bench WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`,
		`CREATE TABLE bench.kv (k bigint PRIMARY KEY, v blob)`,
	} {
		if _, err := ex.Query(context.Background(), &query.Session{}, q, nil); err != nil {
			b.Fatal(err)
		}
	}
	return n
}

// BenchmarkExecutor measures the query layer and storage without the
// protocol: prepared INSERT (synced, group commit) and point SELECT.
func BenchmarkExecutor(b *testing.B) {
	n := benchNode(b)
	ex := n.Executor()
	ctx := context.Background()
	sess := &query.Session{}
	ins, err := ex.Prepare(ctx, sess, `INSERT INTO bench.kv (k, v) VALUES (?, ?)`, "")
	if err != nil {
		b.Fatal(err)
	}
	sel, err := ex.Prepare(ctx, sess, `SELECT v FROM bench.kv WHERE k = ?`, "")
	if err != nil {
		b.Fatal(err)
	}
	val := make([]byte, 100)
	var next atomic.Int64
	b.Run("insert-parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.SetParallelism(8)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				k := next.Add(1)
				opts := &query.Options{Consistency: 1, Values: []query.Value{{B: types.EncodeBigint(k)}, {B: val}}}
				if _, err := ex.Execute(ctx, sess, ins.ID, nil, opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
	b.Run("select", func(b *testing.B) {
		b.ReportAllocs()
		max := next.Load()
		for i := 0; i < b.N; i++ {
			k := int64(i)%max + 1
			opts := &query.Options{Consistency: 1, Values: []query.Value{{B: types.EncodeBigint(k)}}}
			res, err := ex.Execute(ctx, sess, sel.ID, nil, opts)
			if err != nil {
				b.Fatal(err)
			}
			if len(res.Rows) != 1 {
				b.Fatalf("key %d: %d rows", k, len(res.Rows))
			}
		}
	})
}

// BenchmarkDriver measures the whole server through gocql v2 (write
// coalescing off, see FACTS.md), client and server on the same machine.
func BenchmarkDriver(b *testing.B) {
	n := benchNode(b)
	for _, proto := range []int{4, 5} {
		addr := n.NativeAddr()
		cluster := gocql.NewCluster(addr.IP.String())
		cluster.Port = addr.Port
		cluster.ProtoVersion = proto
		cluster.WriteCoalesceWaitTime = 0
		cluster.Consistency = gocql.One
		sess, err := cluster.CreateSession()
		if err != nil {
			b.Fatal(err)
		}
		val := make([]byte, 100)
		var next atomic.Int64
		b.Run(fmt.Sprintf("v%d/insert", proto), func(b *testing.B) {
			b.ReportAllocs()
			b.SetParallelism(16)
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if err := sess.Query(`INSERT INTO bench.kv (k, v) VALUES (?, ?)`, next.Add(1), val).Exec(); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
		b.Run(fmt.Sprintf("v%d/select", proto), func(b *testing.B) {
			b.ReportAllocs()
			b.SetParallelism(16)
			max := next.Load()
			var i atomic.Int64
			b.RunParallel(func(pb *testing.PB) {
				var v []byte
				for pb.Next() {
					k := i.Add(1)%max + 1
					if err := sess.Query(`SELECT v FROM bench.kv WHERE k = ?`, k).Scan(&v); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
		sess.Close()
	}
}
