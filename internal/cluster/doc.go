// Package cluster makes a node part of a cluster: the token ring
// (subpackage ring: Murmur3 and vnode tokens), replica placement, and the
// coordinator that executes the query layer's replica-level commands at a
// consistency level.
//
// Today a node is a cluster of one: Local applies every command to the
// node's own storage engine. Replication, hints, read repair and gossip grow
// here without changing the query layer's Coordinator interface.
package cluster
