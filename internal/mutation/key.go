package mutation

import "errors"

// CompositeKey serializes a partition key from its column values. A single
// column key is the value itself; a multi-column key uses Cassandra's
// CompositeType layout: for each component a big-endian uint16 length, the
// bytes, and an end-of-component byte 0x00. Drivers compute the same bytes to
// route requests, and the Murmur3 token is computed over them.
func CompositeKey(components [][]byte) []byte {
	if len(components) == 1 {
		return components[0]
	}
	n := 0
	for _, c := range components {
		n += 3 + len(c)
	}
	out := make([]byte, 0, n)
	for _, c := range components {
		out = append(out, byte(len(c)>>8), byte(len(c)))
		out = append(out, c...)
		out = append(out, 0)
	}
	return out
}

var errBadCompositeKey = errors.New("malformed composite partition key")

// SplitCompositeKey is the inverse of CompositeKey for a key of n columns.
// The returned slices alias key.
func SplitCompositeKey(key []byte, n int) ([][]byte, error) {
	if n == 1 {
		return [][]byte{key}, nil
	}
	out := make([][]byte, 0, n)
	for i := 0; i < n; i++ {
		if len(key) < 2 {
			return nil, errBadCompositeKey
		}
		l := int(key[0])<<8 | int(key[1])
		// Cassandra writes end-of-component 0x00 for stored keys.
		if len(key) < 3+l || key[2+l] != 0 {
			return nil, errBadCompositeKey
		}
		out = append(out, key[2:2+l:2+l])
		key = key[3+l:]
	}
	if len(key) != 0 {
		return nil, errBadCompositeKey
	}
	return out, nil
}
