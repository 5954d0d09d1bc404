package admin

import (
	"context"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/cqld/cqld/internal/cluster/ring"
	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/query"
	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/types"
)

// The token ring: nodetool ring, describering, describecluster and
// getendpoints, with Cassandra 5.0's output. The node is a cluster of
// one: it owns every token range, and a keyspace's replicas are this node
// when its replication places any in the node's datacenter, none
// otherwise (a replication factor of 0).

// snitchClass is the endpoint snitch nodetool names (cassandra.yaml's
// default).
const snitchClass = "org.apache.cassandra.locator.SimpleSnitch"

// Cassandra's ownership notes (StorageService.effectiveOwnership).
const (
	differentReplicationNote = "Non-system keyspaces don't have the same replication settings, effective ownership information is meaningless"
	localStrategyNote        = "Ownership values for keyspaces with LocalStrategy are meaningless"
)

// Ring is GET /nodetool/v1/ring: what the ring commands print besides Info.
type Ring struct {
	SchemaVersion string `json:"schema_version"`
	// Keyspaces are in the order nodetool lists them: the node's local
	// keyspaces, then the others by the token of their name, as
	// Cassandra's schema loads them from system_schema.keyspaces.
	Keyspaces []KeyspaceReplication `json:"keyspaces"`
}

// KeyspaceReplication is the replication of one keyspace.
type KeyspaceReplication struct {
	Name string `json:"name"`
	// Strategy is the replication class's simple name; Options are its
	// options without the class.
	Strategy string            `json:"strategy"`
	Options  map[string]string `json:"options"`
	// Local is set for LocalStrategy, each node's own copy.
	Local bool `json:"local"`
	// Replicated is set when the keyspace has a replica on this node.
	Replicated bool `json:"replicated"`
}

// Endpoints is GET /nodetool/v1/endpoints.
type Endpoints struct {
	Endpoints []string `json:"endpoints"`
}

// ---------------------------------------------------------------------------
// Server.

func (s *server) ring(*http.Request) (any, error) {
	sc := s.n.Schema().Current()
	dc := s.n.Local().DataCenter
	out := &Ring{SchemaVersion: sc.Version.String()}
	for _, name := range sc.KeyspaceNames() {
		ks := sc.Keyspace(name)
		if ks.Virtual {
			continue
		}
		kr := KeyspaceReplication{Name: name, Strategy: ks.StrategyName(), Options: maps.Clone(ks.Replication),
			Local: ks.IsLocal(), Replicated: ks.ReplicationFactor(dc) > 0}
		delete(kr.Options, "class")
		out.Keyspaces = append(out.Keyspaces, kr)
	}
	rank := func(k KeyspaceReplication) int {
		switch {
		case k.Name == schema.SystemSchemaKeyspace:
			return 0
		case k.Local:
			return 1
		}
		return 2
	}
	sort.SliceStable(out.Keyspaces, func(i, j int) bool {
		a, b := out.Keyspaces[i], out.Keyspaces[j]
		if ra, rb := rank(a), rank(b); ra != rb {
			return ra < rb
		}
		return ring.Token([]byte(a.Name)) < ring.Token([]byte(b.Name))
	})
	return out, nil
}

// endpoints answers getendpoints: the replicas of the partition whose key
// is key (keyspace, table; StorageService.getNaturalEndpoints).
func (s *server) endpoints(r *http.Request) (any, error) {
	q := r.URL.Query()
	ksName, table := q.Get("keyspace"), q.Get("table")
	ks := s.n.Schema().Current().Keyspace(ksName)
	if ks == nil {
		return nil, badRequest("Unknown keyspace '%s'", ksName)
	}
	if ks.Virtual {
		// Keyspace.open's refusal.
		return nil, badRequest("Cannot initialize Keyspace with virtual metadata %s", ksName)
	}
	t := ks.Table(table)
	if t == nil {
		return nil, badRequest("Unknown table '%s' in keyspace '%s'", table, ksName)
	}
	if err := checkPartitionKey(t, q.Get("key")); err != nil {
		if ce := cqlerr.As(err); ce != nil {
			return nil, badRequest("%s", ce.Message) // MarshalException's
		}
		return nil, badRequest("%s", err)
	}
	out := &Endpoints{Endpoints: []string{}}
	if local := s.n.Local(); ks.ReplicationFactor(local.DataCenter) > 0 {
		out.Endpoints = append(out.Endpoints, types.JavaHostAddress(local.ListenAddress))
	}
	return out, nil
}

// checkPartitionKey parses key s as the partition key type's fromString
// does: one column's text, or for a composite key the columns' texts
// separated by ':' (a literal ':' written "\:", a trailing '!' dropped; a
// part "!" or "_" ends the key), as AbstractCompositeType.fromString.
// The empty text is the empty key.
func checkPartitionKey(t *schema.Table, s string) error {
	if s == "" {
		return nil
	}
	if len(t.PartitionKey) == 1 {
		_, err := types.ParseString(t.PartitionKey[0].Type, s)
		return err
	}
	for i, p := range splitComposite(s) {
		if p == "!" || p == "_" {
			return nil
		}
		if i >= len(t.PartitionKey) {
			return fmt.Errorf("Index %d out of bounds for length %d", i, len(t.PartitionKey))
		}
		p = strings.TrimSuffix(strings.ReplaceAll(p, `\:`, ":"), "!")
		if _, err := types.ParseString(t.PartitionKey[i].Type, p); err != nil {
			return err
		}
	}
	return nil
}

// splitComposite splits on the ':' not preceded by '\'.
func splitComposite(s string) []string {
	var parts []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == ':' && (i == 0 || s[i-1] != '\\') {
			parts = append(parts, s[start:i])
			start = i + 1
		}
	}
	return append(parts, s[start:])
}

// ---------------------------------------------------------------------------
// Client.

// Ring returns the ring's keyspaces and schema version.
func (c *Client) Ring(ctx context.Context) (*Ring, error) {
	var r Ring
	return &r, c.call(ctx, http.MethodGet, "ring", nil, &r)
}

// Endpoints returns the replicas of the partition of keyspace.table whose
// key is key, in nodetool's text form.
func (c *Client) Endpoints(ctx context.Context, keyspace, table, key string) ([]string, error) {
	var e Endpoints
	q := url.Values{"keyspace": {keyspace}, "table": {table}, "key": {key}}
	return e.Endpoints, c.call(ctx, http.MethodGet, "endpoints", q, &e)
}

// keyspace returns the named keyspace's replication, or nil.
func (r *Ring) keyspace(name string) *KeyspaceReplication {
	for i := range r.Keyspaces {
		if r.Keyspaces[i].Name == name {
			return &r.Keyspaces[i]
		}
	}
	return nil
}

// storageEndpoint is the node's address with its storage port, as
// InetAddressAndPort prints it.
func (i *Info) storageEndpoint() string {
	return net.JoinHostPort(i.Address, strconv.Itoa(i.StoragePort))
}

// ringInfo fetches the node's Info and Ring.
func ringInfo(ctx context.Context, c *Client) (*Info, *Ring, error) {
	info, err := c.Info(ctx)
	if err != nil {
		return nil, nil, err
	}
	r, err := c.Ring(ctx)
	return info, r, err
}

// nodeOwnership parses the arguments of ring or status, `[options]
// [keyspace]` with the command's options, and fetches the node's Info and
// its ownership for the keyspace as they print it (ownsDecimals decimals,
// "?" when a note says it is meaningless); a missing keyspace is printed
// as nodetool prints it (errSilent). The options change nothing on one
// node: addresses are printed as configured (-r), one row needs no
// sorting (status' -s and -o).
func nodeOwnership(ctx context.Context, c *Client, cmd string, args []string, ownsDecimals int, out io.Writer, options ...option) (info *Info, owns, note string, err error) {
	_, pos, err := commandOptions(args, options...)
	if err != nil {
		return nil, "", "", err
	}
	ks := ""
	if len(pos) > 0 {
		if err := noArgs(cmd, pos[1:]); err != nil {
			return nil, "", "", err
		}
		ks = pos[0]
	}
	info, r, err := ringInfo(ctx, c)
	if err != nil {
		return nil, "", "", err
	}
	f, note, err := ownership(r, ks)
	if err != nil {
		fmt.Fprintf(out, "\nError: %s\n", err)
		return nil, "", "", errSilent
	}
	// DecimalFormat("##0.00%") in ring, "##0.0%" in status.
	owns = strconv.FormatFloat(f*100, 'f', ownsDecimals, 64) + "%"
	if note != "" {
		owns = "?"
	}
	return info, owns, note, nil
}

// ownership is the node's effective ownership for keyspace ks ("" for the
// user keyspaces, which must all be replicated alike), as
// StorageService.effectiveOwnership computes it on one node: 100% when
// the keyspace has a replica here, 0% otherwise. A note replaces it when
// it is meaningless; err is Cassandra's IllegalArgumentException.
func ownership(r *Ring, ks string) (owns float64, note string, err error) {
	var k *KeyspaceReplication
	if ks != "" {
		if k = r.keyspace(ks); k == nil {
			return 0, "", fmt.Errorf("The keyspace %s, does not exist", ks)
		}
	} else {
		for i := range r.Keyspaces {
			u := &r.Keyspaces[i]
			if schema.IsSystemKeyspace(u.Name) {
				continue
			}
			if k != nil && (k.Strategy != u.Strategy || !maps.Equal(k.Options, u.Options)) {
				return 0, differentReplicationNote, nil
			}
			k = u
		}
		if k == nil {
			k = r.keyspace(schema.SystemTracesKeyspace)
		}
		if k == nil {
			return 0, "The node does not have system_traces yet, probably still bootstrapping. Effective ownership information is meaningless.", nil
		}
	}
	if k.Local {
		return 0, localStrategyNote, nil
	}
	if k.Replicated {
		return 1, "", nil
	}
	return 0, "", nil
}

// ringCmd is nodetool ring [-r] [keyspace].
func ringCmd(ctx context.Context, c *Client, args []string, out io.Writer) error {
	info, ownsText, note, err := nodeOwnership(ctx, c, "ring", args, 2, out, flag("-r", "--resolve-ip"))
	if err != nil {
		return err
	}
	// The address column is as wide as the address with its port.
	width := len(info.storageEndpoint())
	format := "%-" + strconv.Itoa(width) + "s  %-12s%-7s%-8s%-16s%-20s%-44s\n"
	fmt.Fprintln(out)
	fmt.Fprintln(out, "Datacenter: "+info.DataCenter)
	fmt.Fprintln(out, "==========")
	fmt.Fprintf(out, format, "Address", "Rack", "Status", "State", "Load", "Owns", "Token")
	tokens := info.Tokens
	if len(tokens) > 1 {
		fmt.Fprintf(out, format, "", "", "", "", "", "", strconv.FormatInt(tokens[len(tokens)-1], 10))
	} else {
		fmt.Fprintln(out)
	}
	load := humanBytes(float64(info.LoadBytes))
	for _, t := range tokens {
		fmt.Fprintf(out, format, info.Address, info.Rack, "Up", "Normal", load, ownsText, strconv.FormatInt(t, 10))
	}
	fmt.Fprintln(out)
	if len(tokens) > 1 {
		fmt.Fprintln(out, `  Warning: "nodetool ring" is used to output all the tokens of a node.`)
		fmt.Fprintln(out, `  To view status related info of a node use "nodetool status" instead.`)
		fmt.Fprintln(out)
	}
	fmt.Fprint(out, "\n  ")
	if note != "" {
		fmt.Fprintf(out, "Note: %s\n", note)
	}
	return nil
}

// describeRingCmd is nodetool describering <keyspace>.
func describeRingCmd(ctx context.Context, c *Client, args []string, out io.Writer) error {
	if len(args) == 0 {
		return errUsage{"Required parameters are missing: keyspace"}
	}
	if err := noArgs("describering", args[1:]); err != nil {
		return err
	}
	info, r, err := ringInfo(ctx, c)
	if err != nil {
		return err
	}
	fmt.Fprintln(out, "Schema Version:"+r.SchemaVersion)
	fmt.Fprintln(out, "TokenRange: ")
	k := r.keyspace(args[0])
	switch {
	case k == nil:
		return fmt.Errorf("No such keyspace: %s", args[0])
	case k.Local:
		return fmt.Errorf("There is no ring for the keyspace: %s", args[0])
	}
	var hosts, rpcs, details []string
	if k.Replicated {
		hosts, rpcs = []string{info.Address}, []string{info.RPCAddress}
		details = []string{fmt.Sprintf("EndpointDetails(host:%s, datacenter:%s, rack:%s)", info.Address, info.DataCenter, info.Rack)}
	}
	list := func(s []string) string { return "[" + strings.Join(s, ", ") + "]" }
	// Ranges (previous token, token], the last one wrapping around; in
	// ring order (Cassandra's come out of a hash map).
	tokens := info.Tokens
	for i := range tokens {
		start := tokens[(i+len(tokens)-1)%len(tokens)]
		fmt.Fprintf(out, "\tTokenRange(start_token:%d, end_token:%d, endpoints:%s, rpc_endpoints:%s, endpoint_details:%s)\n",
			start, tokens[i], list(hosts), list(rpcs), list(details))
	}
	return nil
}

// describeClusterCmd is nodetool describecluster.
func describeClusterCmd(ctx context.Context, c *Client, args []string, out io.Writer) error {
	if err := noArgs("describecluster", args); err != nil {
		return err
	}
	info, r, err := ringInfo(ctx, c)
	if err != nil {
		return err
	}
	fmt.Fprintln(out, "Cluster Information:")
	fmt.Fprintln(out, "\tName: "+info.ClusterName)
	fmt.Fprintln(out, "\tSnitch: "+snitchClass)
	fmt.Fprintln(out, "\tDynamicEndPointSnitch: enabled")
	fmt.Fprintln(out, "\tPartitioner: "+query.PartitionerClass)
	fmt.Fprintln(out, "\tSchema versions:")
	fmt.Fprintf(out, "\t\t%s: [%s]\n\n", r.SchemaVersion, info.Address)
	fmt.Fprintln(out, "Stats for all nodes:")
	fmt.Fprintln(out, "\tLive: 1")
	fmt.Fprintln(out, "\tJoining: 0")
	fmt.Fprintln(out, "\tMoving: 0")
	fmt.Fprintln(out, "\tLeaving: 0")
	fmt.Fprintln(out, "\tUnreachable: 0")
	fmt.Fprintln(out, "\nData Centers: ")
	fmt.Fprintf(out, "\t%s #Nodes: 1 #Down: 0\n", info.DataCenter)
	fmt.Fprintln(out, "\nDatabase versions:")
	fmt.Fprintf(out, "\t%s: [%s]\n\n", info.ReleaseVersion, info.storageEndpoint())
	fmt.Fprintln(out, "Keyspaces:")
	for _, k := range r.Keyspaces {
		var opts []string
		for _, o := range slices.Sorted(maps.Keys(k.Options)) {
			opts = append(opts, o+"="+k.Options[o])
		}
		fmt.Fprintf(out, "\t%s -> Replication class: %s {%s}\n", k.Name, k.Strategy, strings.Join(opts, ", "))
	}
	if _, note, _ := ownership(r, ""); note != "" {
		fmt.Fprintf(out, "\nNote: %s\n", note)
	}
	return nil
}

// getEndpointsCmd is nodetool getendpoints <keyspace> <table> <key>.
func getEndpointsCmd(ctx context.Context, c *Client, args []string, out io.Writer) error {
	if len(args) != 3 {
		return errUsage{"getendpoints requires keyspace, table and partition key arguments"}
	}
	eps, err := c.Endpoints(ctx, args[0], args[1], args[2])
	if err != nil {
		return err
	}
	for _, e := range eps {
		fmt.Fprintln(out, e)
	}
	return nil
}
