package transport

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/cqld/cqld/internal/query"
	"github.com/cqld/cqld/internal/types"
)

// trivialHandler answers every EXECUTE with the same one-row result; the
// fake handler answers the driver's connect-time queries.
type trivialHandler struct {
	*fakeHandler
	res *query.Result
}

func (h *trivialHandler) Execute(context.Context, *query.Session, []byte, []byte, *query.Options) (*query.Result, error) {
	return h.res, nil
}

func newTrivialHandler() *trivialHandler {
	cols := []query.ColumnSpec{col("ks", "t", "k", types.IntType), col("ks", "t", "v", types.TextType)}
	return &trivialHandler{fakeHandler: newFakeHandler(), res: &query.Result{Kind: query.RowsResult, Columns: cols,
		Rows: [][][]byte{{int32Bytes(1), []byte("value")}}}}
}

// BenchmarkGocqlExecute measures a prepared SELECT round trip through gocql
// v2 against an in-process server (client and server share the CPUs).
func BenchmarkGocqlExecute(b *testing.B) {
	for _, proto := range []int{4, 5} {
		b.Run("v"+string(rune('0'+proto)), func(b *testing.B) {
			s := startServer(b, newTrivialHandler(), Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
			cluster := gocqlCluster(b, s, proto, nil)
			cluster.NumConns = 2
			sess, err := cluster.CreateSession()
			if err != nil {
				b.Skipf("session: %v", err) // e.g. no system tables in the trivial handler
			}
			defer sess.Close()
			b.SetParallelism(16)
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				var k int
				var v string
				for pb.Next() {
					if err := sess.Query("SELECT k, v FROM ks.t WHERE k = ?", 1).Scan(&k, &v); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}
