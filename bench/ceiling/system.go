package ceiling

import (
	"encoding/binary"
	"regexp"
	"sort"
	"strings"

	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/query"
	"github.com/cqld/cqld/internal/types"
)

// The system tables below are the minimum gocql v2 needs to connect and to
// route by token (shared/FACTS.md "What drivers send at connect"): a live
// system.local row with rack, schema_version, tokens and partitioner, an
// empty system.peers, and system_schema.keyspaces rows for the keyspaces
// created here. Other system_schema tables answer with no rows.

var (
	hostID        = []byte{0x5c, 0x2a, 0x3b, 0x4d, 0x11, 0x22, 0x43, 0x44, 0x85, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc}
	schemaVersion = []byte{0x1c, 0x2a, 0x3b, 0x4d, 0x11, 0x22, 0x13, 0x44, 0x85, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcd}
	setOfText     = types.SetOf(types.TextType, false)
	mapOfText     = types.MapOf(types.TextType, types.TextType, false)
)

func sysCols(ks, table string, namesAndTypes ...any) []query.ColumnSpec {
	var out []query.ColumnSpec
	for i := 0; i < len(namesAndTypes); i += 2 {
		out = append(out, query.ColumnSpec{Keyspace: ks, Table: table, Name: namesAndTypes[i].(string),
			Type: namesAndTypes[i+1].(*types.Type)})
	}
	return out
}

var (
	localCols = sysCols("system", "local", "key", types.TextType, "bootstrapped", types.TextType,
		"broadcast_address", types.InetType, "cluster_name", types.TextType, "cql_version", types.TextType,
		"data_center", types.TextType, "host_id", types.UUIDType, "listen_address", types.InetType,
		"native_protocol_version", types.TextType, "partitioner", types.TextType, "rack", types.TextType,
		"release_version", types.TextType, "rpc_address", types.InetType, "rpc_port", types.IntType,
		"schema_version", types.UUIDType, "tokens", setOfText)
	peerCols = sysCols("system", "peers", "peer", types.InetType, "data_center", types.TextType,
		"host_id", types.UUIDType, "preferred_ip", types.InetType, "rack", types.TextType,
		"release_version", types.TextType, "rpc_address", types.InetType, "schema_version", types.UUIDType,
		"tokens", setOfText)
	keyspaceCols = sysCols("system_schema", "keyspaces", "keyspace_name", types.TextType,
		"durable_writes", types.BooleanType, "replication", mapOfText)
)

func textSet(elems ...string) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(len(elems)))
	for _, e := range elems {
		b = binary.BigEndian.AppendUint32(b, uint32(len(e)))
		b = append(b, e...)
	}
	return b
}

func (h *handler) localRow() [][]byte {
	ip := h.localIP.To4()
	if ip == nil {
		ip = h.localIP.To16()
	}
	return [][]byte{[]byte("local"), []byte("COMPLETED"), ip, []byte("cqld-bench-ceiling"), []byte("3.4.7"),
		[]byte("datacenter1"), hostID, ip, []byte("5"), []byte("org.apache.cassandra.dht.Murmur3Partitioner"),
		[]byte("rack1"), []byte("5.0.0"), ip, types.EncodeInt(9042), schemaVersion, textSet("0")}
}

var (
	reSysSelect = regexp.MustCompile(`(?is)^\s*select\s+(.*?)\s+from\s+[\w."]+(?:\s+where\s+(.*?))?\s*;?\s*$`)
	reSysWhere  = regexp.MustCompile(`(?is)(\w+)\s*=\s*(\?|'([^']*)')`)
)

// system answers a SELECT on a system table; values fill its markers.
func (h *handler) system(st *stmt, values []query.Value) (*query.Result, error) {
	m := reSysSelect.FindStringSubmatch(st.text)
	if m == nil {
		return nil, unsupported(st.text)
	}
	var cols []query.ColumnSpec
	var rows [][][]byte
	switch st.ks + "." + st.name {
	case "system.local":
		cols, rows = localCols, [][][]byte{h.localRow()}
	case "system.peers":
		cols = peerCols
	case "system.peers_v2":
		return nil, cqlerr.Invalidf("unconfigured table peers_v2")
	case "system_schema.keyspaces":
		cols = keyspaceCols
		h.mu.RLock()
		names := []string{"system", "system_schema"}
		for ks := range h.keyspaces {
			names = append(names, ks)
		}
		h.mu.RUnlock()
		sort.Strings(names)
		for _, ks := range names {
			class := "org.apache.cassandra.locator.LocalStrategy"
			var keys, vals [][]byte
			keys = append(keys, []byte("class"))
			if !isSystemKeyspace(ks) {
				class = "org.apache.cassandra.locator.SimpleStrategy"
				keys = append(keys, []byte("replication_factor"))
				vals = append(vals, []byte(class), []byte("1"))
			} else {
				vals = append(vals, []byte(class))
			}
			rows = append(rows, [][]byte{[]byte(ks), {1}, types.EncodeMap(types.TextType, keys, vals)})
		}
	default:
		if st.ks == "system_schema" || st.ks == "system" {
			break // no rows; columns are whatever was asked for
		}
		return nil, cqlerr.Invalidf("Keyspace %s does not exist", st.ks)
	}

	// WHERE name = ? / 'literal' filters (only on columns we have).
	if m[2] != "" {
		vi := 0
		for _, w := range reSysWhere.FindAllStringSubmatch(m[2], -1) {
			want := w[3]
			if w[2] == "?" {
				if vi < len(values) {
					want = string(values[vi].B)
				}
				vi++
				if values == nil {
					continue
				}
			}
			ci := colIndex(cols, strings.ToLower(w[1]))
			if ci < 0 {
				rows = nil
				continue
			}
			var kept [][][]byte
			for _, r := range rows {
				if string(r[ci]) == want {
					kept = append(kept, r)
				}
			}
			rows = kept
		}
	}
	// Projection.
	sel := strings.TrimSpace(m[1])
	if sel == "*" {
		if cols == nil {
			cols = sysCols(st.ks, st.name, "keyspace_name", types.TextType)
		}
		return &query.Result{Kind: query.RowsResult, Columns: cols, Rows: rows}, nil
	}
	var outCols []query.ColumnSpec
	var idx []int
	for _, name := range strings.Split(sel, ",") {
		name = strings.ToLower(strings.Trim(strings.TrimSpace(name), `"`))
		ci := colIndex(cols, name)
		idx = append(idx, ci)
		if ci >= 0 {
			outCols = append(outCols, cols[ci])
		} else {
			outCols = append(outCols, query.ColumnSpec{Keyspace: st.ks, Table: st.name, Name: name, Type: types.TextType})
		}
	}
	out := make([][][]byte, len(rows))
	for i, r := range rows {
		pr := make([][]byte, len(idx))
		for j, ci := range idx {
			if ci >= 0 {
				pr[j] = r[ci]
			}
		}
		out[i] = pr
	}
	return &query.Result{Kind: query.RowsResult, Columns: outCols, Rows: out}, nil
}

func colIndex(cols []query.ColumnSpec, name string) int {
	for i, c := range cols {
		if c.Name == name {
			return i
		}
	}
	return -1
}
