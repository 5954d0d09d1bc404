package cluster

import (
	"sort"

	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/query"
	"github.com/cqld/cqld/internal/schema"
)

// checkAvailable is Cassandra's assureSufficientLiveReplicas on a cluster
// of this one node: the keyspace of t has one live replica here when its
// replication places any in the node's datacenter, none otherwise, and
// a request at cl fails with Unavailable when that is fewer than cl blocks
// for (ConsistencyLevel.blockFor): QUORUM and SERIAL a majority of the
// replication factor, ALL all of it, LOCAL_QUORUM and LOCAL_SERIAL a
// majority of the local datacenter's, EACH_QUORUM a majority in each
// datacenter, TWO and THREE that many. A read needs a replica even at a
// level that blocks for none. ANY, NODE_LOCAL and virtual tables are never
// refused.
func (l *Local) checkAvailable(t *schema.Table, cl query.Consistency, read bool) error {
	if cl == query.Any || cl == query.NodeLocal || t.Virtual {
		return nil
	}
	ks := l.schema.Current().Keyspace(t.Keyspace)
	if ks == nil {
		return nil // dropped meanwhile: the engine finds no data
	}
	return available(ks, l.dc, cl, read)
}

// available applies the rules of checkAvailable to keyspace ks of a node
// of datacenter dc.
func available(ks *schema.Keyspace, dc string, cl query.Consistency, read bool) error {
	local := ks.ReplicationFactor(dc)
	live := min(local, 1)
	var blockFor int
	switch cl {
	case query.One, query.LocalOne:
		blockFor = 1
	case query.Two:
		blockFor = 2
	case query.Three:
		blockFor = 3
	case query.Quorum, query.Serial:
		blockFor = ks.ReplicationFactor("")/2 + 1
	case query.All:
		blockFor = ks.ReplicationFactor("")
	case query.LocalQuorum, query.LocalSerial:
		blockFor = local/2 + 1
	case query.EachQuorum:
		if ks.Replication["class"] == schema.NetworkTopologyClass {
			return eachQuorum(ks, dc, live)
		}
		blockFor = ks.ReplicationFactor("")/2 + 1
	default:
		return nil
	}
	if live < blockFor || (read && live == 0) {
		return unavailable(cl, "", blockFor, live)
	}
	return nil
}

// eachQuorum checks EACH_QUORUM against a NetworkTopologyStrategy
// keyspace: a majority of each datacenter's replicas, this node's live
// ones in its own. Cassandra's error gives the datacenter's majority as
// required and 0 alive (UnavailableException.create's arguments are
// passed in another order), whatever is alive.
func eachQuorum(ks *schema.Keyspace, localDC string, live int) error {
	var dcs []string
	for dc := range ks.Replication {
		if dc != "class" {
			dcs = append(dcs, dc)
		}
	}
	sort.Strings(dcs)
	for _, dc := range dcs {
		blockFor := ks.ReplicationFactor(dc)/2 + 1
		alive := 0
		if dc == localDC {
			alive = live
		}
		if alive < blockFor {
			return unavailable(query.EachQuorum, dc, blockFor, 0)
		}
	}
	return nil
}

// checkPaxos checks a Paxos round at serial level cl: its participants
// (the live replicas, a majority of which must answer: one here when the
// keyspace has a replica in this datacenter), then the read of the current
// value at QUORUM, or LOCAL_QUORUM for LOCAL_SERIAL, as Cassandra's Paxos
// v1 (its 5.0 default) reads it.
func (l *Local) checkPaxos(t *schema.Table, cl query.Consistency) error {
	if t.Virtual {
		return nil
	}
	ks := l.schema.Current().Keyspace(t.Keyspace)
	if ks == nil {
		return nil
	}
	return paxos(ks, l.dc, cl)
}

// paxos applies the rules of checkPaxos to keyspace ks of a node of
// datacenter dc.
func paxos(ks *schema.Keyspace, dc string, cl query.Consistency) error {
	if ks.ReplicationFactor(dc) == 0 {
		return unavailable(cl, "", 1, 0)
	}
	read := query.Quorum
	if cl == query.LocalSerial {
		read = query.LocalQuorum
	}
	return available(ks, dc, read, true)
}

// unavailable is UnavailableException.create: "Cannot achieve consistency
// level X" (" in DC dc" for EACH_QUORUM's datacenters).
func unavailable(cl query.Consistency, dc string, required, alive int) error {
	msg := "Cannot achieve consistency level " + query.ConsistencyName(cl)
	if dc != "" {
		msg += " in DC " + dc
	}
	return &cqlerr.Error{Code: cqlerr.Unavailable, Message: msg, Consistency: uint16(cl),
		Required: int32(required), Alive: int32(alive)}
}
