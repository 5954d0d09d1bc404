package admin

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestRingCommands: ring, describering, describecluster and getendpoints
// on a cluster of one, with Cassandra 5.0's layout, ownership notes and
// messages.
func TestRingCommands(t *testing.T) {
	n, opts := startNode(t)

	// No user keyspace: ownership is system_traces'.
	out, _ := run(t, opts, false, "ring")
	wantLines(t, out, `\A\nDatacenter: datacenter1\n==========\n`,
		`^Address         Rack        Status State   Load            Owns                Token {39}$`,
		`^ {79}-?\d+ +$`,
		`^127\.0\.0\.1       rack1       Up     Normal  [0-9.]+ (bytes|KiB|MiB) +100\.00% +-?\d+ +$`,
		`^  Warning: "nodetool ring" is used to output all the tokens of a node\.$`,
		`instead\.\n\n\n  \z`)
	if rows := strings.Count(out, "127.0.0.1 "); rows != 16 {
		t.Errorf("ring: %d token rows, want 16:\n%s", rows, out)
	}
	// The line above the rows carries the last token; rows ascend.
	var tokens []int64
	for _, m := range regexp.MustCompile(`(?m)(-?\d+) +$`).FindAllStringSubmatch(out, -1) {
		v, _ := strconv.ParseInt(m[1], 10, 64)
		tokens = append(tokens, v)
	}
	if len(tokens) != 17 || tokens[0] != tokens[16] || !slices.IsSorted(tokens[1:]) {
		t.Errorf("ring tokens %v: want the last token, then 16 ascending", tokens)
	}

	cql(t, n,
		"CREATE KEYSPACE ks WITH replication = {'class': 'NetworkTopologyStrategy', 'datacenter1': 1}",
		"CREATE KEYSPACE none WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 0}",
		"CREATE TABLE ks.t (a text, b int, c int, PRIMARY KEY ((a, b), c))",
		"CREATE TABLE ks.u (k int PRIMARY KEY)",
		"CREATE TABLE none.t (k int PRIMARY KEY)")
	out, _ = run(t, opts, false, "ring", "ks")
	wantLines(t, out, ` 100\.00% `)
	out, _ = run(t, opts, false, "ring", "none")
	wantLines(t, out, ` 0\.00% `)
	out, _ = run(t, opts, false, "ring")
	wantLines(t, out, `^127\.0\.0\.1 +rack1 +Up +Normal +\S+ \S+ +\? +-?\d+ +$`,
		`\n  Note: `+differentReplicationNote+`\n\z`)
	out, _ = run(t, opts, false, "status")
	wantLines(t, out, `^--  Address +Load +Tokens +Owns +Host ID +Rack$`, `^UN  127\.0\.0\.1 .* \? `,
		`\n\nNote: `+differentReplicationNote+`\n\z`)
	out, _ = run(t, opts, false, "status", "-r", "-s", "ip", "--order", "asc", "none")
	wantLines(t, out, `^--  Address +Load +Tokens +Owns \(effective\) +Host ID +Rack$`, `^UN  127\.0\.0\.1 .* 0\.0% `)
	out, _ = run(t, opts, true, "status", "nosuch")
	if out != "\nError: The keyspace nosuch, does not exist\n" {
		t.Errorf("status nosuch: %q", out)
	}
	out, _ = run(t, opts, false, "ring", "system")
	wantLines(t, out, `\n  Note: Ownership values for keyspaces with LocalStrategy are meaningless\n\z`)
	out, _ = run(t, opts, true, "ring", "nosuch")
	if out != "\nError: The keyspace nosuch, does not exist\n" {
		t.Errorf("ring nosuch: %q", out)
	}

	out, _ = run(t, opts, false, "describering", "ks")
	wantLines(t, out, `\ASchema Version:[0-9a-f-]{36}\nTokenRange: \n`,
		`^\tTokenRange\(start_token:-?\d+, end_token:-?\d+, endpoints:\[127\.0\.0\.1\], rpc_endpoints:\[127\.0\.0\.1\], endpoint_details:\[EndpointDetails\(host:127\.0\.0\.1, datacenter:datacenter1, rack:rack1\)\]\)$`)
	// The ranges chain, each starting where the previous ended, the
	// first one wrapping from the last token.
	ranges := regexp.MustCompile(`start_token:(-?\d+), end_token:(-?\d+)`).FindAllStringSubmatch(out, -1)
	if len(ranges) != 16 {
		t.Errorf("describering: %d ranges, want 16", len(ranges))
	}
	for i, r := range ranges {
		if prev := ranges[(i+len(ranges)-1)%len(ranges)]; r[1] != prev[2] {
			t.Errorf("describering: range %d starts at %s, the previous ends at %s", i, r[1], prev[2])
		}
	}
	out, _ = run(t, opts, false, "describering", "none")
	wantLines(t, out, `^\tTokenRange\(start_token:-?\d+, end_token:-?\d+, endpoints:\[\], rpc_endpoints:\[\], endpoint_details:\[\]\)$`)
	_, errOut := run(t, opts, true, "describering", "system")
	wantLines(t, errOut, `^nodetool: There is no ring for the keyspace: system$`)
	_, errOut = run(t, opts, true, "describering", "nosuch")
	wantLines(t, errOut, `^nodetool: No such keyspace: nosuch$`)
	_, errOut = run(t, opts, true, "describering")
	wantLines(t, errOut, `^nodetool: Required parameters are missing: keyspace$`)

	out, _ = run(t, opts, false, "describecluster")
	wantLines(t, out, `\ACluster Information:\n\tName: Test Cluster\n\tSnitch: org\.apache\.cassandra\.locator\.SimpleSnitch\n`+
		`\tDynamicEndPointSnitch: enabled\n\tPartitioner: org\.apache\.cassandra\.dht\.Murmur3Partitioner\n`+
		`\tSchema versions:\n\t\t`+n.Schema().Current().Version.String()+`: \[127\.0\.0\.1\]\n\n`+
		`Stats for all nodes:\n\tLive: 1\n\tJoining: 0\n\tMoving: 0\n\tLeaving: 0\n\tUnreachable: 0\n\n`+
		`Data Centers: \n\tdatacenter1 #Nodes: 1 #Down: 0\n\nDatabase versions:\n\t5\.0\.\d+: \[127\.0\.0\.1:7000\]\n\n`+
		`Keyspaces:\n\tsystem_schema -> Replication class: LocalStrategy \{\}\n\tsystem -> Replication class: LocalStrategy \{\}\n`,
		`^\tks -> Replication class: NetworkTopologyStrategy \{datacenter1=1\}$`,
		`^\tnone -> Replication class: SimpleStrategy \{replication_factor=0\}$`,
		`^\tsystem_traces -> Replication class: SimpleStrategy \{replication_factor=2\}$`,
		`\n\nNote: `+differentReplicationNote+`\n\z`)

	out, _ = run(t, opts, false, "getendpoints", "ks", "u", "7")
	if out != "127.0.0.1\n" {
		t.Errorf("getendpoints ks u 7: %q", out)
	}
	out, _ = run(t, opts, false, "getendpoints", "ks", "t", `x\:y:3`)
	if out != "127.0.0.1\n" {
		t.Errorf("getendpoints of a composite key: %q", out)
	}
	for _, key := range []string{"", "x:1:!", `x!!:1`} {
		if out, _ = run(t, opts, false, "getendpoints", "ks", "t", key); out != "127.0.0.1\n" {
			t.Errorf("getendpoints ks t %q: %q", key, out)
		}
	}
	out, _ = run(t, opts, false, "getendpoints", "none", "t", "7")
	if out != "" {
		t.Errorf("getendpoints without replicas: %q", out)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"ks", "u"}, `^nodetool: getendpoints requires keyspace, table and partition key arguments$`},
		{[]string{"nosuch", "u", "1"}, `^nodetool: Unknown keyspace 'nosuch'$`},
		{[]string{"ks", "nosuch", "1"}, `^nodetool: Unknown table 'nosuch' in keyspace 'ks'$`},
		{[]string{"ks", "u", "x"}, `^nodetool: Unable to make int from 'x'$`},
		{[]string{"ks", "t", "x:y"}, `^nodetool: Unable to make int from 'y'$`},
		{[]string{"ks", "t", "x:1:2"}, `^nodetool: Index 2 out of bounds for length 2$`},
		{[]string{"ks", "t", "x:y:2"}, `^nodetool: Unable to make int from 'y'$`},
		{[]string{"system_views", "clients", "1"}, `^nodetool: Cannot initialize Keyspace with virtual metadata system_views$`},
	} {
		_, errOut := run(t, opts, true, append([]string{"getendpoints"}, c.args...)...)
		wantLines(t, errOut, c.want)
	}
}

func TestSplitComposite(t *testing.T) {
	for in, want := range map[string]string{
		`a:b`:      "a|b",
		`a\:b:c`:   `a\:b|c`,
		`a!:b!!`:   "a!|b!!",
		`:`:        "|",
		`no colon`: "no colon",
	} {
		if got := strings.Join(splitComposite(in), "|"); got != want {
			t.Errorf("splitComposite(%q) = %q, want %q", in, got, want)
		}
	}
}
