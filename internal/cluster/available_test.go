package cluster

import (
	"context"
	"fmt"
	"testing"

	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/mutation"
	"github.com/cqld/cqld/internal/query"
	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/storage"
	"github.com/cqld/cqld/internal/types"
	"github.com/google/uuid"
)

// TestAvailable: a one-node cluster's answer, per replication and level,
// to a write, a read and a Paxos round (Cassandra 5.0's
// assureSufficientLiveReplicas and Paxos v1's checks).
func TestAvailable(t *testing.T) {
	simple := func(rf string) *schema.Keyspace {
		return &schema.Keyspace{Replication: map[string]string{"class": schema.SimpleStrategyClass, "replication_factor": rf}}
	}
	nts := func(kv ...string) *schema.Keyspace {
		r := map[string]string{"class": schema.NetworkTopologyClass}
		for i := 0; i < len(kv); i += 2 {
			r[kv[i]] = kv[i+1]
		}
		return &schema.Keyspace{Replication: r}
	}
	local := &schema.Keyspace{Replication: map[string]string{"class": schema.LocalStrategyClass}}
	describe := func(err error) string {
		if err == nil {
			return "ok"
		}
		e := cqlerr.As(err)
		return fmt.Sprintf("%s %s %d/%d", e.Message, query.ConsistencyName(query.Consistency(e.Consistency)), e.Required, e.Alive)
	}
	for _, c := range []struct {
		ks          *schema.Keyspace
		cl          query.Consistency
		write, read string
	}{
		{simple("1"), query.One, "ok", "ok"},
		{simple("1"), query.All, "ok", "ok"},
		{simple("1"), query.Two, "Cannot achieve consistency level TWO TWO 2/1", "Cannot achieve consistency level TWO TWO 2/1"},
		{simple("3"), query.Quorum, "Cannot achieve consistency level QUORUM QUORUM 2/1", "Cannot achieve consistency level QUORUM QUORUM 2/1"},
		{simple("3"), query.LocalOne, "ok", "ok"},
		{simple("3"), query.EachQuorum, "Cannot achieve consistency level EACH_QUORUM EACH_QUORUM 2/1", "Cannot achieve consistency level EACH_QUORUM EACH_QUORUM 2/1"},
		{simple("3"), query.Any, "ok", "ok"},
		{simple("0"), query.One, "Cannot achieve consistency level ONE ONE 1/0", "Cannot achieve consistency level ONE ONE 1/0"},
		// ALL blocks for no replica of none: a write passes the check,
		// a read still needs one (Cassandra fails an assertion).
		{simple("0"), query.All, "ok", "Cannot achieve consistency level ALL ALL 0/0"},
		{nts("datacenter1", "3"), query.LocalQuorum, "Cannot achieve consistency level LOCAL_QUORUM LOCAL_QUORUM 2/1", "Cannot achieve consistency level LOCAL_QUORUM LOCAL_QUORUM 2/1"},
		{nts("datacenter1", "1"), query.EachQuorum, "ok", "ok"},
		{nts("datacenter1", "3"), query.EachQuorum, "Cannot achieve consistency level EACH_QUORUM in DC datacenter1 EACH_QUORUM 2/0", "Cannot achieve consistency level EACH_QUORUM in DC datacenter1 EACH_QUORUM 2/0"},
		{nts("datacenter1", "1", "dc2", "3"), query.EachQuorum, "Cannot achieve consistency level EACH_QUORUM in DC dc2 EACH_QUORUM 2/0", "Cannot achieve consistency level EACH_QUORUM in DC dc2 EACH_QUORUM 2/0"},
		{nts("datacenter1", "1", "dc2", "3"), query.LocalQuorum, "ok", "ok"},
		{nts("datacenter1", "1", "dc2", "3"), query.Quorum, "Cannot achieve consistency level QUORUM QUORUM 3/1", "Cannot achieve consistency level QUORUM QUORUM 3/1"},
		{nts("dc2", "3"), query.LocalOne, "Cannot achieve consistency level LOCAL_ONE LOCAL_ONE 1/0", "Cannot achieve consistency level LOCAL_ONE LOCAL_ONE 1/0"},
		{local, query.All, "ok", "ok"},
		{local, query.Three, "Cannot achieve consistency level THREE THREE 3/1", "Cannot achieve consistency level THREE THREE 3/1"},
	} {
		name := fmt.Sprintf("%v %s", c.ks.Replication, query.ConsistencyName(c.cl))
		if got := describe(available(c.ks, "datacenter1", c.cl, false)); got != c.write {
			t.Errorf("%s write: %s, want %s", name, got, c.write)
		}
		if got := describe(available(c.ks, "datacenter1", c.cl, true)); got != c.read {
			t.Errorf("%s read: %s, want %s", name, got, c.read)
		}
	}
	for _, c := range []struct {
		ks   *schema.Keyspace
		cl   query.Consistency
		want string
	}{
		{simple("1"), query.Serial, "ok"},
		{simple("3"), query.Serial, "Cannot achieve consistency level QUORUM QUORUM 2/1"},
		{simple("3"), query.LocalSerial, "Cannot achieve consistency level LOCAL_QUORUM LOCAL_QUORUM 2/1"},
		{simple("0"), query.Serial, "Cannot achieve consistency level SERIAL SERIAL 1/0"},
		{nts("dc2", "3"), query.LocalSerial, "Cannot achieve consistency level LOCAL_SERIAL LOCAL_SERIAL 1/0"},
	} {
		if got := describe(paxos(c.ks, "datacenter1", c.cl)); got != c.want {
			t.Errorf("%v %s paxos: %s, want %s", c.ks.Replication, query.ConsistencyName(c.cl), got, c.want)
		}
	}
}

// TestNodeLocalUntimed: cqld's own reads and writes (NODE_LOCAL: reads
// before writes, builds) are not counted as the clients' coordinator
// latencies.
func TestNodeLocalUntimed(t *testing.T) {
	sm, err := schema.NewManager(nil)
	if err != nil {
		t.Fatal(err)
	}
	ks := &schema.Keyspace{Name: "ks", Replication: map[string]string{"class": schema.SimpleStrategyClass, "replication_factor": "1"}}
	if _, err := sm.CreateKeyspace(ks, false); err != nil {
		t.Fatal(err)
	}
	tbl := schema.NewTable("ks", "t", uuid.New(), []*schema.Column{{Name: "k", Type: types.IntType, Kind: schema.PartitionKey}}, schema.DefaultTableParams())
	l := NewLocal(storage.NewMemory(), nil, sm, "datacenter1")
	ctx := context.Background()
	key := types.EncodeInt(1)
	read := &mutation.ReadCommand{TableID: tbl.ID, Key: key, NowSec: 1}
	for _, cl := range []query.Consistency{query.NodeLocal, query.One} {
		if err := l.Mutate(ctx, tbl, cl, []*mutation.PartitionUpdate{{TableID: tbl.ID, Key: key}}); err != nil {
			t.Fatal(err)
		}
		if _, err := l.Read(ctx, tbl, cl, read); err != nil {
			t.Fatal(err)
		}
	}
	tm := l.TableTimers(tbl.ID)
	if r, w := tm.Read.Snapshot().Ops, tm.Write.Snapshot().Ops; r != 1 || w != 1 {
		t.Fatalf("timed %d reads and %d writes, want the ONE ones alone", r, w)
	}
}
