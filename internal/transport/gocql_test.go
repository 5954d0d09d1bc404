package transport

import (
	"fmt"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/apache/cassandra-gocql-driver/v2/lz4"
	"github.com/apache/cassandra-gocql-driver/v2/snappy"
)

func gocqlCluster(t testing.TB, s *Server, proto int, comp gocql.Compressor) *gocql.ClusterConfig {
	host, portStr, _ := net.SplitHostPort(s.Addr().String())
	port, _ := strconv.Atoi(portStr)
	cluster := gocql.NewCluster(host)
	cluster.Port = port
	cluster.ProtoVersion = proto
	cluster.Compressor = comp
	cluster.Timeout = 10 * time.Second
	cluster.ConnectTimeout = 10 * time.Second
	cluster.WriteCoalesceWaitTime = 0
	cluster.NumConns = 1
	return cluster
}

func TestGocql(t *testing.T) {
	if testing.Short() {
		t.Skip("driver test")
	}
	s := startServer(t, newFakeHandler(), Config{})
	cases := []struct {
		proto int
		comp  gocql.Compressor
	}{{4, nil}, {4, snappy.SnappyCompressor{}}, {5, lz4.LZ4Compressor{}}, {5, nil}, {0, lz4.LZ4Compressor{}}}
	for _, tc := range cases {
		name := fmt.Sprintf("v%d", tc.proto)
		if tc.comp != nil {
			name += "-" + tc.comp.Name()
		}
		t.Run(name, func(t *testing.T) {
			sess, err := gocqlCluster(t, s, tc.proto, tc.comp).CreateSession()
			if err != nil {
				t.Fatal(err)
			}
			defer sess.Close()
			var k int
			var v string
			iter := sess.Query("SELECT k, v FROM ks.t").Iter()
			if !iter.Scan(&k, &v) || k != 1 || v != "one" {
				t.Errorf("scan: k=%d v=%q", k, v)
			}
			if err := iter.Close(); err != nil {
				t.Fatal(err)
			}
			// Prepared statements (gocql prepares anything with values).
			if err := sess.Query("SELECT k, v FROM ks.t WHERE k = ?", 42).Scan(&k, &v); err != nil || k != 42 {
				t.Errorf("prepared: %v k=%d", err, k)
			}
			if err := sess.Query("INSERT INTO ks.t (k, v) VALUES (?, ?)", 1, "x").Exec(); err != nil {
				t.Error(err)
			}
			b := sess.Batch(gocql.LoggedBatch)
			b.Query("INSERT INTO ks.t (k, v) VALUES (?, ?)", 2, "y")
			if err := b.Exec(); err != nil {
				t.Error(err)
			}
			var reqErr gocql.RequestError
			if err := sess.Query("ERR invalid").Exec(); err == nil {
				t.Error("expected error")
			} else if re, ok := err.(gocql.RequestError); !ok || re.Code() != gocql.ErrCodeInvalid {
				t.Errorf("error %v (%T) %v", err, err, reqErr)
			}
			// Concurrent queries on one connection.
			var wg sync.WaitGroup
			for i := 0; i < 50; i++ {
				wg.Add(1)
				go func(i int) {
					defer wg.Done()
					var k int
					var v string
					if err := sess.Query("SELECT k, v FROM ks.t WHERE k = ?", i).Scan(&k, &v); err != nil || k != i {
						t.Errorf("concurrent %d: %v %d", i, err, k)
					}
				}(i)
			}
			wg.Wait()
		})
	}
}
