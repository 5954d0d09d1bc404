// Package mutation holds the pure values that travel between the query layer,
// the coordinator and storage: cells with their write timestamps, TTLs and
// deletion times; rows with markers and deletions; range tombstones; partition
// updates (the unit of a write); read commands and reconciled partitions.
//
// It has no I/O. Merge rules live here (Reconcile) so that the in-memory and
// the on-disk engines, and later the replicas of a cluster, agree exactly.
package mutation
