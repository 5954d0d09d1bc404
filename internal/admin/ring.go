package admin

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/cqld/cqld/internal/cluster/ring"
	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/mutation"
	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/types"
)

// The token ring: nodetool ring, describering, describecluster and
// getendpoints, with Cassandra 5.0's output. The node is a cluster of
// one: it owns every token range, and a keyspace's replicas are this node
// when its replication places any in the node's datacenter, none
// otherwise (a replication factor of 0).

const (
	partitionerClass = "org.apache.cassandra.dht.Murmur3Partitioner"
	snitchClass      = "org.apache.cassandra.locator.SimpleSnitch"
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
	// User is false for the system keyspaces.
	User bool `json:"user"`
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
		kr := KeyspaceReplication{Name: name, Strategy: ks.StrategyName(), Options: map[string]string{},
			User: !schema.IsSystemKeyspace(name), Replicated: ks.ReplicationFactor(dc) > 0}
		for k, v := range ks.Replication {
			if k != "class" {
				kr.Options[k] = v
			}
		}
		out.Keyspaces = append(out.Keyspaces, kr)
	}
	rank := func(k KeyspaceReplication) int {
		switch {
		case k.Name == schema.SystemSchemaKeyspace:
			return 0
		case k.Strategy == "LocalStrategy":
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
	t := ks.Table(table)
	if t == nil {
		return nil, badRequest("Unknown table '%s' in keyspace '%s'", table, ksName)
	}
	if _, err := partitionKeyFromString(t, q.Get("key")); err != nil {
		if ce := cqlerr.As(err); ce != nil {
			return nil, badRequest("%s", ce.Message) // MarshalException's
		}
		return nil, badRequest("%s", err)
	}
	out := &Endpoints{Endpoints: []string{}}
	if ks.ReplicationFactor(s.n.Local().DataCenter) > 0 {
		out.Endpoints = append(out.Endpoints, s.n.Config().ListenAddress)
	}
	return out, nil
}

// partitionKeyFromString is the partition key type's fromString: one
// column's text, or for a composite key the columns' texts separated by
// ':' (a literal ':' written "\:", a trailing '!' dropped, as
// AbstractCompositeType.fromString unescapes them).
func partitionKeyFromString(t *schema.Table, s string) ([]byte, error) {
	if len(t.PartitionKey) == 1 {
		return types.ParseString(t.PartitionKey[0].Type, s)
	}
	parts := splitComposite(s)
	if len(parts) > len(t.PartitionKey) {
		return nil, fmt.Errorf("Index %d out of bounds for length %d", len(t.PartitionKey), len(t.PartitionKey))
	}
	comps := make([][]byte, len(parts))
	for i, p := range parts {
		b, err := types.ParseString(t.PartitionKey[i].Type, p)
		if err != nil {
			return nil, err
		}
		comps[i] = b
	}
	return mutation.CompositeKey(comps), nil
}

// splitComposite splits on the ':' not preceded by '\' and unescapes each
// part.
func splitComposite(s string) []string {
	var parts []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == ':' && (i == 0 || s[i-1] != '\\') {
			parts = append(parts, s[start:i])
			start = i + 1
		}
	}
	parts = append(parts, s[start:])
	for i, p := range parts {
		p = strings.ReplaceAll(p, `\:`, ":")
		parts[i] = strings.TrimSuffix(p, "!")
	}
	return parts
}

// ---------------------------------------------------------------------------
// Client.

// Ring returns the ring's keyspaces and schema version.
func (c *Client) Ring(ctx context.Context) (*Ring, error) {
	var r Ring
	return &r, c.call(ctx, "GET", "ring", nil, &r)
}

// Endpoints returns the replicas of the partition of keyspace.table whose
// key is key, in nodetool's text form.
func (c *Client) Endpoints(ctx context.Context, keyspace, table, key string) ([]string, error) {
	var e Endpoints
	q := url.Values{"keyspace": {keyspace}, "table": {table}, "key": {key}}
	return e.Endpoints, c.call(ctx, "GET", "endpoints", q, &e)
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

// ringInfo fetches the node's Info and Ring.
func ringInfo(ctx context.Context, c *Client) (*Info, *Ring, error) {
	info, err := c.Info(ctx)
	if err != nil {
		return nil, nil, err
	}
	r, err := c.Ring(ctx)
	return info, r, err
}

// nodeOwnership fetches the node's Info and its ownership for keyspace ks
// as ring and status print it: a missing keyspace is printed as nodetool
// prints it (errSilent).
func nodeOwnership(ctx context.Context, c *Client, ks string, out io.Writer) (info *Info, owns float64, note string, err error) {
	info, r, err := ringInfo(ctx, c)
	if err != nil {
		return nil, 0, "", err
	}
	owns, note, err = ownership(r, ks)
	if err != nil {
		fmt.Fprintf(out, "\nError: %s\n", err)
		return nil, 0, "", errSilent
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
			if !u.User {
				continue
			}
			if k != nil && !sameReplication(k, u) {
				return 0, "Non-system keyspaces don't have the same replication settings, effective ownership information is meaningless", nil
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
	if k.Strategy == "LocalStrategy" {
		return 0, "Ownership values for keyspaces with LocalStrategy are meaningless", nil
	}
	if k.Replicated {
		return 1, "", nil
	}
	return 0, "", nil
}

func sameReplication(a, b *KeyspaceReplication) bool {
	if a.Strategy != b.Strategy || len(a.Options) != len(b.Options) {
		return false
	}
	for k, v := range a.Options {
		if b.Options[k] != v {
			return false
		}
	}
	return true
}

// percent is Java's DecimalFormat("##0.00%").
func percent(f float64) string { return strconv.FormatFloat(f*100, 'f', 2, 64) + "%" }

// ringCmd is nodetool ring [-r] [keyspace].
func ringCmd(ctx context.Context, c *Client, args []string, out io.Writer) error {
	var pos []string
	for _, a := range args {
		switch a {
		case "-r", "--resolve-ip":
			// Addresses are printed as configured.
		default:
			if strings.HasPrefix(a, "-") {
				return errUsage{fmt.Sprintf("Found unexpected parameters: [%s]", a)}
			}
			pos = append(pos, a)
		}
	}
	if len(pos) > 1 {
		return errUsage{fmt.Sprintf("Found unexpected parameters: [%s]", strings.Join(pos[1:], ", "))}
	}
	ks := ""
	if len(pos) == 1 {
		ks = pos[0]
	}
	info, owns, note, err := nodeOwnership(ctx, c, ks, out)
	if err != nil {
		return err
	}
	ownsText := percent(owns)
	if note != "" {
		ownsText = "?"
	}
	// The address column is as wide as the address with its port.
	width := len(info.Address) + 1 + len(strconv.Itoa(info.StoragePort))
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
	case k.Strategy == "LocalStrategy":
		return fmt.Errorf("There is no ring for the keyspace: %s", args[0])
	}
	var hosts, rpcs, details []string
	if k.Replicated {
		native, _, err := net.SplitHostPort(info.NativeAddress)
		if err != nil {
			return err
		}
		hosts, rpcs = []string{info.Address}, []string{native}
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
	fmt.Fprintln(out, "\tPartitioner: "+partitionerClass)
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
	fmt.Fprintf(out, "\t%s: [%s:%d]\n\n", info.ReleaseVersion, info.Address, info.StoragePort)
	fmt.Fprintln(out, "Keyspaces:")
	for _, k := range r.Keyspaces {
		keys := make([]string, 0, len(k.Options))
		for o := range k.Options {
			keys = append(keys, o)
		}
		sort.Strings(keys)
		opts := make([]string, len(keys))
		for i, o := range keys {
			opts[i] = o + "=" + k.Options[o]
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
