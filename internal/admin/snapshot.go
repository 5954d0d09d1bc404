package admin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/cqld/cqld/internal/node"
	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/storage/snapshot"
	"github.com/google/uuid"
)

// Snapshots: nodetool snapshot, listsnapshots, clearsnapshot and import,
// with Cassandra 5.0's options, messages and output.

// minSnapshotTTL is cassandra.snapshot.min_allowed_ttl_seconds.
const minSnapshotTTL = 60 * time.Second

// ---------------------------------------------------------------------------
// Server.

// takeSnapshot takes a snapshot: tag, and either keyspace (repeated; none:
// every keyspace) with an optional table, or kt (repeated keyspace.table);
// ttl (a duration, as typed) and skip_flush.
func (s *server) takeSnapshot(r *http.Request) (any, error) {
	q := r.URL.Query()
	tag := q.Get("tag")
	if err := snapshot.CheckTag(tag); err != nil {
		return nil, badRequest("%s", err)
	}
	var ttl time.Duration
	if v := q.Get("ttl"); v != "" {
		// The server reads it as whole seconds (DurationSpec.IntSecondsBound).
		d, err := node.ParseDurationSpec(v, time.Second)
		if err == nil && d > math.MaxInt32*time.Second {
			err = fmt.Errorf("Invalid duration: %s Accepted units:[SECONDS, MINUTES, HOURS, DAYS] where case matters and only non-negative values.", v)
		}
		if err != nil {
			return nil, badRequest("%s", err)
		}
		if d < minSnapshotTTL {
			return nil, badRequest("ttl for snapshot must be at least %d seconds", int(minSnapshotTTL/time.Second))
		}
		ttl = d
	}
	tables, err := s.snapshotTables(q)
	if err != nil {
		return nil, err
	}
	err = s.n.Snapshots().Take(r.Context(), snapshot.Request{Tag: tag, Tables: tables, TTL: ttl, SkipFlush: q.Get("skip_flush") == "true"})
	if exists := (*snapshot.ExistsError)(nil); errors.As(err, &exists) {
		return nil, badRequest("%s", err)
	}
	return nil, err
}

// snapshotTables resolves what a snapshot covers as StorageService's
// takeSnapshot and takeMultipleTableSnapshot do (nodetool's -cf table of
// one keyspace comes as kt keyspace.table): stored tables and views only.
// Tables cqld serves from its own state (system.local, system_schema.*)
// have no data to snapshot and are left out.
func (s *server) snapshotTables(q url.Values) ([]snapshot.Table, error) {
	sc := s.n.Schema().Current()
	var out []snapshot.Table
	add := func(ks *schema.Keyspace, t *schema.Table) {
		if !t.Virtual {
			out = append(out, snapshot.Table{Keyspace: ks, Table: t})
		}
	}
	keyspace := func(name string) (*schema.Keyspace, error) {
		ks := sc.Keyspace(name)
		if ks == nil {
			return nil, badRequest("Keyspace %s does not exist", name)
		}
		if ks.Virtual {
			return nil, badRequest("Cannot perform any operations against virtual keyspace %s", name)
		}
		return ks, nil
	}
	if kts := q["kt"]; len(kts) > 0 {
		for _, kt := range kts {
			parts := strings.Split(kt, ".")
			if len(parts) != 2 {
				return nil, badRequest("Cannot take a snapshot on secondary index or invalid column family name. You must supply a column family name in the form of keyspace.columnfamily")
			}
			ks, err := keyspace(parts[0])
			if err != nil {
				return nil, err
			}
			t := ks.Table(parts[1])
			if t == nil {
				return nil, badRequest("Unknown keyspace/cf pair (%s.%s)", parts[0], parts[1])
			}
			add(ks, t)
		}
		return out, nil
	}
	names := q["keyspace"]
	all := len(names) == 0
	if all {
		names = sc.KeyspaceNames()
	}
	for _, name := range names {
		if all && sc.Keyspace(name).Virtual {
			continue
		}
		ks, err := keyspace(name)
		if err != nil {
			return nil, err
		}
		for _, tn := range ks.TableNames() {
			add(ks, ks.Tables[tn])
		}
	}
	return out, nil
}

// listSnapshots lists the snapshots; no_ttl leaves out those with a TTL,
// ephemeral includes ephemeral ones.
func (s *server) listSnapshots(r *http.Request) (any, error) {
	q := r.URL.Query()
	infos := s.n.Snapshots().List()
	out := &Snapshots{Snapshots: []SnapshotInfo{}}
	for _, in := range infos {
		if q.Get("no_ttl") == "true" && !in.ExpiresAt.IsZero() || q.Get("ephemeral") != "true" && in.Ephemeral {
			continue
		}
		si := SnapshotInfo{Tag: in.Tag, Keyspace: in.Keyspace, Table: in.Table, TrueSize: in.TrueSize, SizeOnDisk: in.SizeOnDisk,
			CreatedAt: in.CreatedAt.UnixMilli(), Ephemeral: in.Ephemeral}
		if !in.ExpiresAt.IsZero() {
			si.ExpiresAt = in.ExpiresAt.UnixMilli()
		}
		out.Snapshots = append(out.Snapshots, si)
	}
	// The total counts the snapshots of existing tables, other than
	// those of the node-local system keyspace
	// (StorageService.trueSnapshotsSize), whatever the filters.
	live := map[uuid.UUID]bool{}
	for _, t := range s.n.Schema().Current().Tables(false) {
		if !t.Virtual && t.Keyspace != schema.SystemKeyspace {
			live[t.ID] = true
		}
	}
	for _, in := range infos {
		if live[in.TableID] {
			out.TrueDiskSpaceUsed += in.DeadSSTables
		}
	}
	return out, nil
}

// clearSnapshot removes snapshots: tag ("" with all=true: every one),
// keyspace (repeated; none: every keyspace), older_than_ms (a cutoff in
// milliseconds since the epoch; 0: none).
func (s *server) clearSnapshot(r *http.Request) (any, error) {
	q := r.URL.Query()
	var cutoff time.Time
	if v := q.Get("older_than_ms"); v != "" {
		ms, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, badRequest("invalid older_than_ms %q", v)
		}
		cutoff = time.UnixMilli(ms)
	}
	tag := q.Get("tag")
	if tag == "" && q.Get("all") != "true" {
		return nil, badRequest("Specify snapshot name or --all")
	}
	_, err := s.n.Snapshots().Clear(tag, q["keyspace"], cutoff)
	return nil, err
}

// importSnapshot merges the snapshots in the directories dir (repeated)
// into keyspace.table, then builds the table's indexes over what it
// merged. Directories that fail are answered in Failed (and logged).
func (s *server) importSnapshot(r *http.Request) (any, error) {
	q := r.URL.Query()
	ksName, tName := q.Get("keyspace"), q.Get("table")
	ks := s.n.Schema().Current().Keyspace(ksName)
	var t *schema.Table
	if ks != nil {
		t = ks.Table(tName)
	}
	if t == nil || t.Virtual {
		return nil, badRequest("ColumnFamilyStore for %s/%s not found.", ksName, tName)
	}
	out := &ImportResult{Failed: []string{}}
	for _, dir := range q["dir"] {
		if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
			return nil, badRequest("Directory %s does not exist", dir)
		} else if err != nil {
			return nil, err
		}
	}
	// Once entries are merged, the indexes are built over them whatever
	// happens next (a directory that fails part way, the client leaving).
	ctx := context.WithoutCancel(r.Context())
	imported := false
	for _, dir := range q["dir"] {
		st, err := s.n.Snapshots().Import(ctx, dir, t)
		imported = imported || st.Entries > 0
		if err != nil {
			s.n.Logger().Error(fmt.Sprintf("Failed importing %s into %s.%s", dir, ksName, tName), "err", err, "entries_merged", st.Entries)
			out.Failed = append(out.Failed, dir)
			continue
		}
		s.n.Logger().Info(fmt.Sprintf("Imported %s into %s.%s", dir, ksName, tName), "entries", st.Entries, "skipped_cells", st.Skipped)
	}
	if imported && len(t.Indexes) > 0 {
		if err := s.n.Executor().BuildIndexes(ctx, t); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// ---------------------------------------------------------------------------
// Client.

// TakeSnapshot takes a snapshot (see the server's takeSnapshot for q).
func (c *Client) TakeSnapshot(ctx context.Context, q url.Values) error {
	return c.call(ctx, http.MethodPost, "snapshot", q, nil)
}

// ListSnapshots lists the snapshots.
func (c *Client) ListSnapshots(ctx context.Context, noTTL, ephemeral bool) (*Snapshots, error) {
	var s Snapshots
	q := url.Values{"no_ttl": {strconv.FormatBool(noTTL)}, "ephemeral": {strconv.FormatBool(ephemeral)}}
	return &s, c.call(ctx, http.MethodGet, "snapshots", q, &s)
}

// ClearSnapshot removes snapshots (see the server's clearSnapshot for q).
func (c *Client) ClearSnapshot(ctx context.Context, q url.Values) error {
	return c.call(ctx, http.MethodPost, "clearsnapshot", q, nil)
}

// Import merges snapshots into a table and returns the directories that
// failed.
func (c *Client) Import(ctx context.Context, keyspace, table string, dirs []string) ([]string, error) {
	var res ImportResult
	q := url.Values{"keyspace": {keyspace}, "table": {table}, "dir": dirs}
	err := c.call(ctx, http.MethodPost, "import", q, &res)
	return res.Failed, err
}

// ---------------------------------------------------------------------------
// Command line.

// option is one option of a command: its spellings, the first of which
// names it in commandOptions' result, and whether it takes a value.
type option struct {
	names  []string
	valued bool
}

// commandOptions parses a command's options as airline does: options
// (with a value when valued, also as --name=value) anywhere before "--",
// the rest positional. Options are keyed by their first spelling; a flag's
// value is "true".
func commandOptions(args []string, options ...option) (opts map[string]string, pos []string, err error) {
	spelled := map[string]*option{}
	for i := range options {
		for _, n := range options[i].names {
			spelled[n] = &options[i]
		}
	}
	opts = map[string]string{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return opts, append(pos, args[i+1:]...), nil
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			pos = append(pos, a)
			continue
		}
		name, val, hasVal := strings.Cut(a, "=")
		o := spelled[name]
		switch {
		case o != nil && o.valued:
			if !hasVal {
				if i+1 >= len(args) {
					return nil, nil, errUsage{fmt.Sprintf("Required values for option '%s' not provided", name)}
				}
				i++
				val = args[i]
			}
			opts[o.names[0]] = val
		case o != nil && !hasVal:
			opts[o.names[0]] = "true"
		default:
			return nil, nil, errUsage{fmt.Sprintf("Found unexpected parameters: [%s]", a)}
		}
	}
	return opts, pos, nil
}

// keyspacesText is how nodetool's snapshot messages name the keyspaces.
func keyspacesText(keyspaces []string) string {
	if len(keyspaces) == 0 {
		return "all keyspaces"
	}
	return strings.Join(keyspaces, ", ")
}

func flag(names ...string) option   { return option{names: names} }
func valued(names ...string) option { return option{names: names, valued: true} }

// snapshotCmd is nodetool snapshot.
func snapshotCmd(ctx context.Context, c *Client, args []string, out io.Writer, now time.Time) error {
	opts, keyspaces, err := commandOptions(args, valued("-t", "--tag"), valued("-cf", "--column-family", "--table"),
		valued("-kt", "--kt-list", "-kc", "--kc.list"), valued("--ttl"), flag("-sf", "--skip-flush"))
	if err != nil {
		return err
	}
	tag, ok := opts["-t"]
	if !ok {
		tag = strconv.FormatInt(now.UnixMilli(), 10)
	}
	table, kt := opts["-cf"], opts["-kt"]
	skipFlush := opts["-sf"] == "true"
	options := "{skipFlush=" + strconv.FormatBool(skipFlush)
	q := url.Values{"tag": {tag}, "skip_flush": {strconv.FormatBool(skipFlush)}}
	if ttl, ok := opts["--ttl"]; ok {
		if _, err := node.ParseDurationSpec(ttl, time.Nanosecond); err != nil {
			return errUsage{err.Error()}
		}
		options += ", ttl=" + ttl
		q.Set("ttl", ttl)
	}
	options += "}"
	if tag != "" && strings.ContainsRune(tag, '/') {
		return errors.New("Snapshot name cannot contain /")
	}
	if kt = strings.ReplaceAll(kt, " ", ""); kt != "" {
		if len(keyspaces) > 0 || table != "" {
			return errors.New("When specifying the Keyspace table list (using -kt,--kt-list,-kc,--kc.list), you must not also specify keyspaces to snapshot")
		}
		fmt.Fprintf(out, "Requested creating snapshot(s) for [%s] with snapshot name [%s] and options %s\n", kt, tag, options)
		// Java's String.split: trailing empty entries are dropped.
		entries := strings.Split(strings.TrimRight(kt, ","), ",")
		if strings.Contains(entries[0], ".") {
			q["kt"] = entries
		} else {
			// Cassandra decides by the first entry alone: a keyspace.
			q["keyspace"] = entries
		}
	} else {
		line := "Requested creating snapshot(s) for [" + keyspacesText(keyspaces) + "]"
		if tag != "" {
			line += " with snapshot name [" + tag + "]"
		}
		fmt.Fprintln(out, line+" and options "+options)
		if table != "" {
			if len(keyspaces) != 1 {
				return errors.New("When specifying the table for a snapshot, you must specify one and only one keyspace")
			}
			// NodeProbe names the table keyspace.table, as -kt does.
			q["kt"] = []string{keyspaces[0] + "." + table}
		} else {
			q["keyspace"] = keyspaces
		}
	}
	if err := c.TakeSnapshot(ctx, q); err != nil {
		return err
	}
	_, err = fmt.Fprintf(out, "Snapshot directory: %s\n", tag)
	return err
}

// listSnapshotsCmd is nodetool listsnapshots.
func listSnapshotsCmd(ctx context.Context, c *Client, args []string, out io.Writer) error {
	opts, pos, err := commandOptions(args, flag("-nt", "--no-ttl"), flag("-e", "--ephemeral"))
	if err != nil {
		return err
	}
	if err := noArgs("listsnapshots", pos); err != nil {
		return err
	}
	ephemeral := opts["-e"] == "true"
	s, err := c.ListSnapshots(ctx, opts["-nt"] == "true", ephemeral)
	if err != nil {
		return err
	}
	fmt.Fprintln(out, "Snapshot Details: ")
	if len(s.Snapshots) == 0 {
		_, err := fmt.Fprintln(out, "There are no snapshots")
		return err
	}
	rows := [][]string{{"Snapshot name", "Keyspace name", "Column family name", "True size", "Size on disk", "Creation time", "Expiration time", "Ephemeral"}}
	for _, sn := range s.Snapshots {
		expires := ""
		if sn.ExpiresAt != 0 {
			expires = snapshot.Instant(time.UnixMilli(sn.ExpiresAt))
		}
		rows = append(rows, []string{sn.Tag, sn.Keyspace, sn.Table, humanBytes(float64(sn.TrueSize)), humanBytes(float64(sn.SizeOnDisk)),
			snapshot.Instant(time.UnixMilli(sn.CreatedAt)), expires, strconv.FormatBool(sn.Ephemeral)})
	}
	if !ephemeral {
		for i := range rows {
			rows[i] = rows[i][:7]
		}
	}
	tableBuilder(out, rows, " ", true)
	_, err = fmt.Fprintf(out, "\nTotal TrueDiskSpaceUsed: %s\n\n", humanBytes(float64(s.TrueDiskSpaceUsed)))
	return err
}

// clearSnapshotCmd is nodetool clearsnapshot.
func clearSnapshotCmd(ctx context.Context, c *Client, args []string, out io.Writer, now time.Time) error {
	opts, keyspaces, err := commandOptions(args, valued("-t"), valued("--older-than"), valued("--older-than-timestamp"), flag("--all"))
	if err != nil {
		return err
	}
	tag := opts["-t"]
	hasTag := tag != "" // -t "" is no name, as ClearSnapshot's default
	all := opts["--all"] == "true"
	olderThan, hasOlder := opts["--older-than"]
	olderTS, hasOlderTS := opts["--older-than-timestamp"]
	switch {
	case !hasTag && !all:
		return errUsage{"Specify snapshot name or --all"}
	case hasTag && all:
		return errUsage{"Specify only one of snapshot name or --all"}
	case hasOlder && hasOlderTS:
		return errUsage{"Specify only one of --older-than or --older-than-timestamp"}
	case hasTag && hasOlder:
		return errUsage{"Specifying snapshot name together with --older-than flag is not allowed"}
	case hasTag && hasOlderTS:
		return errUsage{"Specifying snapshot name together with --older-than-timestamp flag is not allowed"}
	}
	q := url.Values{"tag": {tag}, "all": {strconv.FormatBool(all)}, "keyspace": keyspaces}
	var suffix string
	if hasOlderTS {
		ts, err := time.Parse(time.RFC3339Nano, olderTS)
		if err != nil {
			return errUsage{"Parameter --older-than-timestamp has to be a valid instant in ISO format."}
		}
		q.Set("older_than_ms", strconv.FormatInt(ts.UnixMilli(), 10))
		suffix = " older than timestamp " + olderTS
	}
	if hasOlder {
		d, err := node.ParseDurationSpec(olderThan, time.Second)
		if err != nil {
			return errUsage{err.Error()}
		}
		q.Set("older_than_ms", strconv.FormatInt(now.Add(-d).UnixMilli(), 10))
		suffix = fmt.Sprintf(" older than %d seconds.", int64(d/time.Second))
	}
	what := keyspacesText(keyspaces)
	name := " with [all snapshots]"
	if hasTag {
		name = " with snapshot name [" + tag + "]"
	}
	fmt.Fprintln(out, "Requested clearing snapshot(s) for ["+what+"]"+name+suffix)
	return c.ClearSnapshot(ctx, q)
}

// importCmd is nodetool import. Its options are accepted and change
// nothing: cqld merges a snapshot's entries through the storage engine,
// which keeps caches coherent, checks every key and leaves the directory
// as it was (--copy-data).
func importCmd(ctx context.Context, c *Client, args []string, out, stderr io.Writer) error {
	opts, pos, err := commandOptions(args, flag("-l", "--keep-level"), flag("-r", "--keep-repaired"), flag("-v", "--no-verify"),
		flag("-t", "--no-tokens"), flag("-c", "--no-invalidate-caches"), flag("-q", "--quick"), flag("-e", "--extended-verify"),
		flag("-p", "-cd", "--copy-data"), flag("-ri", "--require-index-components"), flag("-niv", "--no-index-validation"))
	if err != nil {
		return err
	}
	if len(pos) < 3 {
		return errUsage{"import requires keyspace, table name and directories"}
	}
	if opts["-q"] == "true" {
		fmt.Fprintln(out, "Doing a quick import - skipping sstable verification and row cache invalidation")
	}
	failed, err := c.Import(ctx, pos[0], pos[1], pos[2:])
	if err != nil {
		return err
	}
	if len(failed) > 0 {
		fmt.Fprintln(stderr, "Some directories failed to import, check server logs for details:")
		for _, d := range failed {
			fmt.Fprintln(stderr, d)
		}
		return errSilent
	}
	return nil
}

// errSilent fails a command that printed its own error.
var errSilent = errors.New("")
