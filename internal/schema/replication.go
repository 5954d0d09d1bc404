package schema

import (
	"strconv"
	"strings"
)

// IsLocal reports whether the keyspace is replicated by LocalStrategy.
func (k *Keyspace) IsLocal() bool { return k.Replication["class"] == LocalStrategyClass }

// ReplicationFactor is the number of replicas the keyspace's replication
// asks for in datacenter dc, or in all datacenters when dc is "":
// SimpleStrategy's replication_factor (its replicas are wherever the nodes
// are), NetworkTopologyStrategy's factor of dc or the sum of all of them,
// and 1 for LocalStrategy (each node holds its own copy). A factor written
// "all/transient" counts all its replicas.
func (k *Keyspace) ReplicationFactor(dc string) int {
	r := k.Replication
	switch r["class"] {
	case SimpleStrategyClass:
		return replicaCount(r["replication_factor"])
	case NetworkTopologyClass:
		if dc != "" {
			return replicaCount(r[dc])
		}
		total := 0
		for name, v := range r {
			if name != "class" {
				total += replicaCount(v)
			}
		}
		return total
	}
	return 1
}

// replicaCount parses a replication factor, "3" or "3/1".
func replicaCount(v string) int {
	all, _, _ := strings.Cut(v, "/")
	n, _ := strconv.Atoi(strings.TrimSpace(all))
	return n
}

// StrategyName is the replication class's simple name (SimpleStrategy).
func (k *Keyspace) StrategyName() string {
	c := k.Replication["class"]
	return c[strings.LastIndexByte(c, '.')+1:]
}
