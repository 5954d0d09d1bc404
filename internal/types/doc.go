// Package types implements every CQL type of Apache Cassandra 5.0: the wire
// codec of values, their validation, comparison, literal conversion,
// formatting (cqlsh and CQL literal), JSON, type strings and the
// order-preserving key encoding used by storage.
//
// Values are always handled in their native-protocol serialized form
// (protocol v3+): a []byte where nil is null and a non-nil zero-length slice
// is the "empty" value, which Cassandra accepts for most types and sorts
// before every other value. Type descriptors live in type.go.
//
// Files, by concept:
//
//	type.go        Type, Kind, native singletons, String
//	typestring.go  ParseTypeString / ParseTypeStringWith (inverse of String)
//	codec.go       Encode*/Decode* constructors, collections, tuples
//	vint.go        Cassandra's vint (duration, vector element lengths)
//	validate.go    Validate (TypeSerializer.validate messages), Normalize, vectors
//	compare.go     Compare (identical to Cassandra's comparators)
//	keyenc.go      AppendKey / DecodeKey / CheckKeyType; layouts in keyencoding.md
//	literal.go     From* (Constants.Literal: assignment test + fromString), ParseString
//	timeparse.go   timestamp/date/time/duration literal parsing
//	format.go      Format (cqlsh) and FormatCQL (round-tripping literals)
//	json.go        ToJSON (Cassandra's toJSONString)
//	errors.go      ColumnError / WithColumn
//
// Errors. Everything returned to clients is a *cqlerr.Error carrying
// Cassandra's message. When Cassandra's message names the column the value
// is assigned to (e.g. `Invalid STRING constant (x) for "c" of type blob`,
// `duration type is not supported for PRIMARY KEY column 'c'`), this package
// returns a *ColumnError instead, and callers use WithColumn(err, name),
// which handles both kinds.
//
// Tests: keyenc_test.go and roundtrip_test.go are the property tests (key
// order agrees with Compare for random values of every key type, nested
// frozen collections, UDTs, vectors, DESC and random composites; wire and
// CQL-literal round trips); edge_test.go prints the per-type edge-value
// table to testdata/edge_values (cqlsh, CQL literal and JSON forms);
// fuzz_test.go fuzzes every decoder of untrusted bytes. Driver round trips
// through the server live in internal/node/types_driver_test.go and
// tests/drivers/python/smoke.py.
//
// Invariants:
//   - Compare(t, a, b) == sign(bytes.Compare(AppendKey(nil, t, a, false),
//     AppendKey(nil, t, b, false))) for every valid a, b of a key type
//     (CheckKeyType(t) == nil), and desc inverts the order; property- and
//     fuzz-tested in keyenc_test.go.
//   - Set elements and map keys are stored sorted by their comparator
//     and deduplicated (EncodeSet, EncodeMap, Normalize).
//   - No function panics on arbitrary input bytes (fuzzed).
package types
