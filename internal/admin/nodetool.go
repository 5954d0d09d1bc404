package admin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cqld/cqld/internal/types"
)

// DefaultPort is nodetool's default port (Cassandra's JMX port, which is
// cqld's admin port).
const DefaultPort = 7199

// usage is the text of `nodetool help`.
const usage = `usage: nodetool [(-h <host> | --host <host>)] [(-p <port> | --port <port>)] <command> [<args>]

The most commonly used nodetool commands are:
    clearsnapshot        Remove the snapshot with the given name from the given keyspaces
    compact              Force a (major) compaction on one or more tables
    describecluster      Print the name, snitch, partitioner and schema version of a cluster
    describering         Shows the token ranges info of a given keyspace
    drain                Drain the node (stop accepting writes and flush all tables)
    flush                Flush one or more tables
    garbagecollect       Remove deleted data from one or more tables
    getendpoints         Print the end points that owns the key
    gettraceprobability  Print the current trace probability value
    help                 Display help information
    import               Import new SSTables to the system
    info                 Print node information (uptime, load, ...)
    listsnapshots        Lists all the snapshots along with the size on disk and true size. True size is the total size of all SSTables which are not backed up to disk. Size on disk is total size of the snapshot on disk. Total TrueDiskSpaceUsed does not make any SSTable deduplication.
    ring                 Print information about the token ring
    settraceprobability  Sets the probability for tracing any given request to value. 0 disables, 1 enables for all requests, 0 is the default
    snapshot             Take a snapshot of specified keyspaces or a snapshot of the specified table
    status               Print cluster information (state, load, IDs, ...)
    tablehistograms      Print statistic histograms for a given table
    tablestats           Print statistics on tables
    version              Print cassandra version

See 'nodetool help <command>' for more information on a specific command.
`

// errUsage marks errors that print the help hint.
type errUsage struct{ msg string }

func (e errUsage) Error() string { return e.msg }

// Nodetool runs `nodetool args...` against a node's admin port, writing the
// command's output to stdout and errors to stderr as Cassandra's nodetool
// does, and returns the process exit code.
func Nodetool(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if err := nodetool(ctx, args, stdout, stderr); err != nil {
		if err == errSilent {
			return 1
		}
		fmt.Fprintf(stderr, "nodetool: %s\n", err)
		var eu errUsage
		if errors.As(err, &eu) {
			fmt.Fprintln(stderr, "See 'nodetool help' or 'nodetool help <command>'.")
		}
		return 1
	}
	return 0
}

func nodetool(ctx context.Context, args []string, out, stderr io.Writer) error {
	c := &Client{Host: "127.0.0.1", Port: DefaultPort}
	// Global options come before the command (airline's layout).
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		opt := args[0]
		val, hasVal := "", false
		if i := strings.IndexByte(opt, '='); i > 0 && strings.HasPrefix(opt, "--") {
			opt, val, hasVal = opt[:i], opt[i+1:], true
		}
		needVal := func() (string, error) {
			if hasVal {
				return val, nil
			}
			if len(args) < 2 {
				return "", errUsage{fmt.Sprintf("Required values for option '%s' not provided", opt)}
			}
			args = args[1:]
			return args[0], nil
		}
		switch opt {
		case "-h", "--host":
			v, err := needVal()
			if err != nil {
				return err
			}
			c.Host = v
		case "-p", "--port":
			v, err := needVal()
			if err != nil {
				return err
			}
			p, err := strconv.Atoi(v)
			if err != nil || p <= 0 || p > 65535 {
				return errUsage{fmt.Sprintf("Invalid port %q", v)}
			}
			c.Port = p
		case "-u", "--username", "-pw", "--password", "-pwf", "--password-file":
			// No authentication on the admin port: accepted and ignored.
			if _, err := needVal(); err != nil {
				return err
			}
		case "--help":
			_, err := io.WriteString(out, usage)
			return err
		default:
			return errUsage{fmt.Sprintf("Found unexpected parameters: [%s]", opt)}
		}
		args = args[1:]
	}
	if len(args) == 0 {
		_, err := io.WriteString(out, usage)
		return err
	}
	cmd, args := args[0], args[1:]
	switch cmd {
	case "help":
		_, err := io.WriteString(out, usage)
		return err
	case "version":
		if err := noArgs(cmd, args); err != nil {
			return err
		}
		info, err := c.Info(ctx)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(out, "ReleaseVersion: %s\n", info.ReleaseVersion)
		return err
	case "status":
		return status(ctx, c, args, out)
	case "info":
		return info(ctx, c, args, out)
	case "flush", "compact", "garbagecollect":
		ks, tables, err := keyspaceTables(cmd, args)
		if err != nil {
			return err
		}
		switch cmd {
		case "flush":
			return c.Flush(ctx, ks, tables...)
		case "compact":
			return c.Compact(ctx, ks, tables...)
		}
		return c.GarbageCollect(ctx, ks, tables...)
	case "drain":
		if err := noArgs(cmd, args); err != nil {
			return err
		}
		return c.Drain(ctx)
	case "gettraceprobability":
		if err := noArgs(cmd, args); err != nil {
			return err
		}
		p, err := c.TraceProbability(ctx)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(out, "Current trace probability: %s\n", types.JavaDouble(p, 64))
		return err
	case "settraceprobability":
		if len(args) == 0 {
			return errUsage{"Required parameters are missing: trace_probability"}
		}
		if err := noArgs(cmd, args[1:]); err != nil {
			return err
		}
		p, err := strconv.ParseFloat(args[0], 64)
		if err != nil {
			return errUsage{"trace_probability: can not convert \"" + args[0] + "\" to a Double"}
		}
		if !(p >= 0 && p <= 1) {
			// checkArgument: nodetool's badUse, with the help hint.
			return errUsage{"Trace probability must be between 0 and 1"}
		}
		return c.SetTraceProbability(ctx, p)
	case "tablestats", "cfstats":
		return tablestats(ctx, c, args, out)
	case "tablehistograms", "cfhistograms":
		return tablehistograms(ctx, c, args, out)
	case "snapshot":
		return snapshotCmd(ctx, c, args, out, time.Now())
	case "listsnapshots":
		return listSnapshotsCmd(ctx, c, args, out)
	case "clearsnapshot":
		return clearSnapshotCmd(ctx, c, args, out, time.Now())
	case "import":
		return importCmd(ctx, c, args, out, stderr)
	case "ring":
		return ringCmd(ctx, c, args, out)
	case "describering":
		return describeRingCmd(ctx, c, args, out)
	case "describecluster":
		return describeClusterCmd(ctx, c, args, out)
	case "getendpoints":
		return getEndpointsCmd(ctx, c, args, out)
	}
	return errUsage{fmt.Sprintf("Found unexpected parameters: [%s]", strings.Join(append([]string{cmd}, args...), ", "))}
}

func noArgs(cmd string, args []string) error {
	if len(args) > 0 {
		return errUsage{fmt.Sprintf("Found unexpected parameters: [%s]", strings.Join(args, ", "))}
	}
	return nil
}

// keyspaceTables parses `[keyspace [tables...]]`, skipping the options
// nodetool accepts for these commands.
func keyspaceTables(cmd string, args []string) (string, []string, error) {
	var pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a, "-") {
			switch a {
			case "-s", "--split-output", "--user-defined":
				// compact options without a value: whole-range
				// compaction already.
			case "-g", "--granularity", "-j", "--jobs", "-st", "--start-token", "-et", "--end-token":
				i++ // their value
			default:
				return "", nil, errUsage{fmt.Sprintf("Found unexpected parameters: [%s]", a)}
			}
			continue
		}
		pos = append(pos, a)
	}
	if len(pos) == 0 {
		return "", nil, nil
	}
	return pos[0], pos[1:], nil
}

// humanBytes is Cassandra's FileUtils.stringifyFileSize ("#.##" and binary
// units).
func humanBytes(v float64) string {
	units := []struct {
		size float64
		name string
	}{{1 << 40, "TiB"}, {1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}}
	for _, u := range units {
		if v >= u.size {
			return decimal2(v/u.size) + " " + u.name
		}
	}
	return decimal2(v) + " bytes"
}

// decimal2 formats like Java's DecimalFormat("#.##").
func decimal2(v float64) string {
	s := strconv.FormatFloat(v, 'f', 2, 64)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// table prints rows of cells left-aligned in columns separated by two
// spaces (nodetool's TableBuilder).
func table(out io.Writer, rows [][]string) { tableBuilder(out, rows, "  ", false) }

// tableBuilder prints rows of cells left-aligned in columns separated by
// sep, the last column padded too when padLast (Cassandra's TableBuilder
// pads every column).
func tableBuilder(out io.Writer, rows [][]string, sep string, padLast bool) {
	var widths []int
	for _, r := range rows {
		for i, c := range r {
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], len(c))
		}
	}
	for _, r := range rows {
		var b strings.Builder
		for i, c := range r {
			b.WriteString(c)
			if i < len(r)-1 || padLast {
				b.WriteString(strings.Repeat(" ", widths[i]-len(c)))
			}
			if i < len(r)-1 {
				b.WriteString(sep)
			}
		}
		fmt.Fprintln(out, b.String())
	}
}

func status(ctx context.Context, c *Client, args []string, out io.Writer) error {
	i, ownsText, note, err := nodeOwnership(ctx, c, "status", args, 1, out,
		flag("-r", "--resolve-ip"), valued("-s", "--sort"), valued("-o", "--order"))
	if err != nil {
		return err
	}
	ownsHeader := "Owns (effective)"
	if note != "" {
		ownsHeader = "Owns"
	}
	dc := "Datacenter: " + i.DataCenter
	fmt.Fprintln(out, dc)
	fmt.Fprintln(out, strings.Repeat("=", len(dc)))
	fmt.Fprintln(out, "Status=Up/Down")
	fmt.Fprintln(out, "|/ State=Normal/Leaving/Joining/Moving")
	state := "UN"
	table(out, [][]string{
		{"--", "Address", "Load", "Tokens", ownsHeader, "Host ID", "Rack"},
		{state, i.Address, humanBytes(float64(i.LoadBytes)), strconv.Itoa(len(i.Tokens)), ownsText, i.HostID, i.Rack},
	})
	fmt.Fprintln(out)
	if note != "" {
		fmt.Fprintf(out, "Note: %s\n", note)
	}
	return nil
}

func info(ctx context.Context, c *Client, args []string, out io.Writer) error {
	tokens := false
	for _, a := range args {
		switch a {
		case "-T", "--tokens":
			tokens = true
		default:
			return errUsage{fmt.Sprintf("Found unexpected parameters: [%s]", a)}
		}
	}
	i, err := c.Info(ctx)
	if err != nil {
		return err
	}
	line := func(k, v string) { fmt.Fprintf(out, "%-23s: %s\n", k, v) }
	line("ID", i.HostID)
	line("Gossip active", "true")
	line("Native Transport active", strconv.FormatBool(i.NativeTransportActive))
	line("Load", humanBytes(float64(i.LoadBytes)))
	line("Generation No", strconv.Itoa(int(i.Generation)))
	line("Uptime (seconds)", strconv.FormatInt(i.UptimeSeconds, 10))
	line("Heap Memory (MB)", fmt.Sprintf("%.2f / %.2f", i.HeapUsedMB, i.HeapTotalMB))
	line("Off Heap Memory (MB)", fmt.Sprintf("%.2f", i.OffHeapMB))
	line("Data Center", i.DataCenter)
	line("Rack", i.Rack)
	line("Exceptions", "0")
	hitRate := func(hits, requests int64) float64 {
		if requests == 0 {
			return math.NaN()
		}
		return float64(hits) / float64(requests)
	}
	rows := i.RowCacheHits + i.RowCacheMisses
	line("Row Cache", fmt.Sprintf("entries %d, size %s, capacity %s, %d hits, %d requests, %.3f recent hit rate, 0 save period in seconds",
		i.RowCacheEntries, humanBytes(float64(i.RowCacheBytes)), humanBytes(float64(i.RowCacheCapacity)), i.RowCacheHits, rows, hitRate(i.RowCacheHits, rows)))
	requests := i.BlockCacheHits + i.BlockCacheMisses
	rate := hitRate(i.BlockCacheHits, requests)
	line("Chunk Cache", fmt.Sprintf("entries -, size %s, capacity -, %d misses, %d requests, %.3f recent hit rate, NaN microseconds miss latency",
		humanBytes(float64(i.BlockCacheBytes)), i.BlockCacheMisses, requests, rate))
	line("Percent Repaired", "100.0%")
	if tokens {
		for _, t := range i.Tokens {
			line("Token", strconv.FormatInt(t, 10))
		}
	} else {
		line("Token", fmt.Sprintf("(invoke with -T/--tokens to see all %d tokens)", len(i.Tokens)))
	}
	return nil
}

// splitKeyspaceTable parses "ks", "ks.table" or "ks table".
func splitKeyspaceTable(args []string) (string, string, bool) {
	switch len(args) {
	case 1:
		if ks, t, ok := strings.Cut(args[0], "."); ok {
			return ks, t, true
		}
		return args[0], "", true
	case 2:
		return args[0], args[1], true
	}
	return "", "", false
}

func tablestats(ctx context.Context, c *Client, args []string, out io.Writer) error {
	human := false
	var names []string
	for _, a := range args {
		switch a {
		case "-H", "--human-readable":
			human = true
		case "-i":
		default:
			if strings.HasPrefix(a, "-") {
				return errUsage{fmt.Sprintf("Found unexpected parameters: [%s]", a)}
			}
			names = append(names, a)
		}
	}
	// Each argument is a keyspace or keyspace.table.
	var all []TableStats
	if len(names) == 0 {
		ts, err := c.TableStats(ctx, "")
		if err != nil {
			return err
		}
		all = ts
	}
	for _, n := range names {
		ks, t, _ := strings.Cut(n, ".")
		var tables []string
		if t != "" {
			tables = []string{t}
		}
		ts, err := c.TableStats(ctx, ks, tables...)
		if err != nil {
			return err
		}
		all = append(all, ts...)
	}
	printTableStats(out, all, human)
	return nil
}

func printTableStats(out io.Writer, all []TableStats, human bool) {
	size := func(v uint64) string {
		if human {
			return humanBytes(float64(v))
		}
		return strconv.FormatUint(v, 10)
	}
	latency := func(micros, n int64) string {
		if n == 0 {
			return "NaN ms"
		}
		return fmt.Sprintf("%.3f ms", float64(micros)/float64(n)/1000)
	}
	ratio := func(a, b int64) string {
		if b == 0 {
			return "NaN"
		}
		return types.JavaDouble(float64(a)/float64(b), 64)
	}
	byKS := map[string][]TableStats{}
	var kss []string
	for _, t := range all {
		if _, ok := byKS[t.Keyspace]; !ok {
			kss = append(kss, t.Keyspace)
		}
		byKS[t.Keyspace] = append(byKS[t.Keyspace], t)
	}
	sort.Strings(kss)
	fmt.Fprintf(out, "Total number of tables: %d\n", len(all))
	fmt.Fprintln(out, "----------------")
	for _, ks := range kss {
		ts := byKS[ks]
		var reads, readUS, writes, writeUS int64
		for _, t := range ts {
			reads += t.ReadCount
			readUS += t.ReadMicros
			writes += t.WriteCount
			writeUS += t.WriteMicros
		}
		fmt.Fprintf(out, "Keyspace : %s\n", ks)
		fmt.Fprintf(out, "\tRead Count: %d\n", reads)
		fmt.Fprintf(out, "\tRead Latency: %s\n", latency(readUS, reads))
		fmt.Fprintf(out, "\tWrite Count: %d\n", writes)
		fmt.Fprintf(out, "\tWrite Latency: %s\n", latency(writeUS, writes))
		fmt.Fprintf(out, "\tPending Flushes: 0\n")
		for _, t := range ts {
			p := func(k, v string) { fmt.Fprintf(out, "\t\t%s: %s\n", k, v) }
			p("Table", t.Table)
			p("SSTable count", strconv.Itoa(t.SSTables))
			p("Old SSTable count", "0")
			p("Max SSTable size", humanBytes(float64(t.MaxSSTableBytes)))
			p("Space used (live)", size(t.SpaceUsedLive))
			p("Space used (total)", size(t.SpaceUsedLive))
			p("Space used by snapshots (total)", size(uint64(t.SnapshotsBytes)))
			p("Off heap memory used (total)", size(t.BloomFilterBytes))
			p("SSTable Compression Ratio", types.JavaDouble(t.CompressionRatio, 64))
			p("Number of partitions (estimate)", strconv.FormatInt(t.Partitions, 10))
			p("Local read count", strconv.FormatInt(t.ReadCount, 10))
			p("Local read latency", latency(t.ReadMicros, t.ReadCount))
			p("Local write count", strconv.FormatInt(t.WriteCount, 10))
			p("Local write latency", latency(t.WriteMicros, t.WriteCount))
			p("Pending flushes", "0")
			p("Percent repaired", "0.0")
			p("Bloom filter space used", size(t.BloomFilterBytes))
			p("Compacted partition minimum bytes", strconv.FormatInt(t.MinPartitionBytes, 10))
			p("Compacted partition maximum bytes", strconv.FormatInt(t.MaxPartitionBytes, 10))
			p("Compacted partition mean bytes", strconv.FormatInt(t.MeanPartitionBytes, 10))
			p("Average live cells per slice (last five minutes)", ratio(t.LiveCells, t.SliceReads))
			p("Maximum live cells per slice (last five minutes)", strconv.FormatInt(t.MaxLiveCells, 10))
			p("Average tombstones per slice (last five minutes)", ratio(t.Tombstones, t.SliceReads))
			p("Maximum tombstones per slice (last five minutes)", strconv.FormatInt(t.MaxTombstone, 10))
			p("Droppable tombstone ratio", fmt.Sprintf("%.5f", t.DroppableTombstoneRat))
			fmt.Fprintln(out)
		}
		fmt.Fprintln(out, "----------------")
	}
}

func tablehistograms(ctx context.Context, c *Client, args []string, out io.Writer) error {
	ks, t, ok := splitKeyspaceTable(args)
	if !ok || t == "" {
		return errUsage{"tablehistograms requires keyspace and table name arguments"}
	}
	h, err := c.TableHistograms(ctx, ks, t)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%s/%s histograms\n", h.Keyspace, h.Table)
	fmt.Fprintf(out, "%-10s%18s%18s%18s%18s%18s\n", "Percentile", "Read Latency", "Write Latency", "SSTables", "Partition Size", "Cell Count")
	fmt.Fprintf(out, "%-10s%18s%18s%18s%18s%18s\n", "", "(micros)", "(micros)", "", "(bytes)", "")
	for _, r := range h.Rows {
		fmt.Fprintf(out, "%-10s%18.2f%18.2f%18.2f%18d%18d\n", r.Percentile, r.ReadLatency, r.WriteLatency, r.SSTables, r.PartitionSize, r.CellCount)
	}
	fmt.Fprintln(out)
	return nil
}

// Timeout is the default deadline of one nodetool command (compactions of
// large tables take long).
const Timeout = 24 * time.Hour
