// Package ring places partitions on the token ring the way Apache
// Cassandra's Murmur3Partitioner does, bit for bit, so that drivers that
// compute tokens client-side route to the right replicas.
//
// It owns:
//
//   - Token: Cassandra's variant of MurmurHash3 x64_128 (seed 0, tail bytes
//     sign-extended as Java's byte does, token = the first 64-bit half).
//     Two rules drivers skip but a server needs: the empty key is the
//     minimum token (math.MinInt64, which no real key ever gets), and a hash
//     equal to math.MinInt64 is mapped to math.MaxInt64.
//   - CompositeKey / SplitCompositeKey: Cassandra's CompositeType encoding of
//     multi-column partition keys (per component: uint16 big-endian length,
//     the bytes, an end-of-component byte 0x00). A single-column partition
//     key is the value itself, not a composite.
//   - RandomTokens: the vnode tokens a node picks once at bootstrap and
//     persists (num_tokens).
//
// Invariants: Token is a pure function of the serialized key; the test
// vectors in token_test.go come from a real Cassandra and must never change.
package ring
