package snapshot

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/storage"
	"github.com/google/uuid"
)

// Engine is what snapshots need of the storage engine (storage.Pebble).
type Engine interface {
	Checkpoint(dir string, flush bool, id uuid.UUID) error
	Import(ctx context.Context, dir string, from, to *schema.Table) (storage.ImportStats, error)
}

// Options configure a Manager.
type Options struct {
	// DataDir is the storage engine's directory: snapshots go in its
	// subdirectory "snapshots", and its sstables are the live ones.
	DataDir string
	Engine  Engine
	// SchemaCQL returns the statements of a snapshot's schema.cql.
	SchemaCQL func(ks *schema.Keyspace, t *schema.Table) []string
	Now       func() time.Time
	Logger    *slog.Logger
}

// Manager takes, lists, clears and imports snapshots.
type Manager struct {
	dir, dataDir string
	engine       Engine
	schemaCQL    func(ks *schema.Keyspace, t *schema.Table) []string
	now          func() time.Time
	log          *slog.Logger
	// mu serializes Take and the removals, so that a tag checked to be
	// free is still free when it is taken; it guards importing.
	mu sync.Mutex
	// importing counts the imports reading each snapshot directory: the
	// removals leave those alone.
	importing map[string]int
}

// Layout names.
const (
	dirName      = "snapshots"
	dataName     = "data"
	manifestName = "manifest.json"
	schemaName   = "schema.cql"
	tableName    = "table.json"
	tmpPrefix    = ".tmp-"
)

// New returns the manager of the snapshots of the engine in opts.DataDir,
// and removes what a crash left of snapshots being taken.
func New(opts Options) *Manager {
	// Absolute, as Import's paths are: the removals compare them.
	dataDir, err := filepath.Abs(opts.DataDir)
	if err != nil {
		dataDir = opts.DataDir
	}
	m := &Manager{dir: filepath.Join(dataDir, dirName), dataDir: dataDir, engine: opts.Engine,
		schemaCQL: opts.SchemaCQL, now: opts.Now, log: opts.Logger, importing: map[string]int{}}
	if m.now == nil {
		m.now = time.Now
	}
	if m.log == nil {
		m.log = slog.Default()
	}
	for _, tdir := range m.tableDirs() {
		entries, _ := os.ReadDir(tdir)
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), tmpPrefix) {
				if err := os.RemoveAll(filepath.Join(tdir, e.Name())); err != nil {
					m.log.Warn("snapshot: removing an unfinished snapshot", "dir", e.Name(), "err", err)
				}
			}
		}
	}
	return m
}

// tableDirs returns the directories of the tables that have snapshots.
func (m *Manager) tableDirs() []string {
	var out []string
	kss, _ := os.ReadDir(m.dir)
	for _, ks := range kss {
		tables, _ := os.ReadDir(filepath.Join(m.dir, ks.Name()))
		for _, t := range tables {
			if t.IsDir() {
				out = append(out, filepath.Join(m.dir, ks.Name(), t.Name()))
			}
		}
	}
	return out
}

// Table is a table to snapshot, with its keyspace (whose user types go
// into schema.cql and table.json).
type Table struct {
	Keyspace *schema.Keyspace
	Table    *schema.Table
}

// Request is a snapshot to take.
type Request struct {
	Tag    string
	Tables []Table
	// TTL, when positive, is how long the snapshot lives.
	TTL time.Duration
	// SkipFlush does not flush the memtables first (the snapshot still
	// holds their data, from the copied write-ahead log).
	SkipFlush bool
}

// Info describes one snapshot of one table.
type Info struct {
	Tag, Keyspace, Table string
	TableID              uuid.UUID
	// Dir is the snapshot's directory (the one Import takes).
	Dir       string
	CreatedAt time.Time
	// ExpiresAt is when the snapshot expires; zero when it does not.
	ExpiresAt time.Time
	Ephemeral bool
	// SizeOnDisk counts every file, TrueSize those that are not live
	// sstables of the engine, DeadSSTables the sstables that are not live
	// (Cassandra's trueSnapshotsSize counts those).
	SizeOnDisk, TrueSize, DeadSSTables int64
}

// manifest is manifest.json (Cassandra's SnapshotManifest).
type manifest struct {
	Files     []string `json:"files"`
	CreatedAt string   `json:"created_at"`
	ExpiresAt *string  `json:"expires_at"`
	Ephemeral bool     `json:"ephemeral"`
}

// ExistsError is the error of a tag already taken.
type ExistsError struct{ Tag string }

func (e *ExistsError) Error() string { return "Snapshot " + e.Tag + " already exists." }

// CheckTag checks a snapshot name: not empty, and usable as a directory
// name (Cassandra refuses the path separator; "." and ".." would name
// other directories).
func CheckTag(tag string) error {
	switch {
	case tag == "":
		return errors.New("You must supply a snapshot name.")
	case strings.ContainsRune(tag, filepath.Separator):
		return fmt.Errorf("Snapshot name cannot contain %c", filepath.Separator)
	case tag == "." || tag == ".." || strings.HasPrefix(tag, tmpPrefix) || strings.IndexByte(tag, 0) >= 0:
		return fmt.Errorf("Invalid snapshot name %q", tag)
	}
	return nil
}

// Take takes a snapshot of each table under req.Tag, all with one
// creation time. It fails without taking any if the tag is taken for one
// of the tables (ExistsError).
func (m *Manager) Take(ctx context.Context, req Request) error {
	if err := CheckTag(req.Tag); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, tb := range req.Tables {
		if _, err := os.Stat(filepath.Join(m.tableDir(tb.Table), req.Tag)); err == nil {
			return &ExistsError{Tag: req.Tag}
		}
	}
	created := m.now().UTC().Truncate(time.Millisecond)
	flush := !req.SkipFlush
	for _, tb := range req.Tables {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := m.takeOne(tb, req.Tag, created, req.TTL, flush); err != nil {
			return fmt.Errorf("snapshot %s of %s.%s: %w", req.Tag, tb.Table.Keyspace, tb.Table.Name, err)
		}
		flush = false // one flush serves every table
	}
	return nil
}

func (m *Manager) tableDir(t *schema.Table) string {
	return filepath.Join(m.dir, t.Keyspace, t.Name+"-"+hex.EncodeToString(t.ID[:]))
}

func (m *Manager) takeOne(tb Table, tag string, created time.Time, ttl time.Duration, flush bool) (err error) {
	t := tb.Table
	tdir := m.tableDir(t)
	if err := mkdirAllSynced(tdir); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(tdir, tmpPrefix)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = os.RemoveAll(tmp)
		}
	}()
	if err := m.engine.Checkpoint(filepath.Join(tmp, dataName), flush, t.ID); err != nil {
		return err
	}
	mf := manifest{Files: []string{}, CreatedAt: Instant(created)}
	ssts, err := filepath.Glob(filepath.Join(tmp, dataName, "*.sst"))
	if err != nil {
		return err
	}
	for _, f := range ssts {
		mf.Files = append(mf.Files, dataName+"/"+filepath.Base(f))
	}
	if ttl > 0 {
		s := Instant(created.Add(ttl))
		mf.ExpiresAt = &s
	}
	b, err := json.MarshalIndent(&mf, "", "  ")
	if err != nil {
		return err
	}
	if err := writeFile(filepath.Join(tmp, manifestName), append(b, '\n')); err != nil {
		return err
	}
	if !schema.IsSystemKeyspace(t.Keyspace) && m.schemaCQL != nil {
		var cql strings.Builder
		for _, s := range m.schemaCQL(tb.Keyspace, t) {
			cql.WriteString(s + "\n")
		}
		if err := writeFile(filepath.Join(tmp, schemaName), []byte(cql.String())); err != nil {
			return err
		}
	}
	def, err := schema.MarshalTable(tb.Keyspace, t)
	if err != nil {
		return err
	}
	if err := writeFile(filepath.Join(tmp, tableName), append(def, '\n')); err != nil {
		return err
	}
	if err := syncDir(tmp); err != nil {
		return err
	}
	if err := os.Rename(tmp, filepath.Join(tdir, tag)); err != nil {
		return err
	}
	return syncDir(tdir)
}

// Instant formats t as Java's Instant.toString at millisecond precision
// (manifest.json, nodetool listsnapshots).
func Instant(t time.Time) string {
	if t.Nanosecond() == 0 {
		return t.UTC().Format("2006-01-02T15:04:05Z")
	}
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}

func writeFile(name string, b []byte) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// mkdirAllSynced creates dir and its missing parents, and syncs the
// directories that got a new entry, so that the snapshot's directory
// outlives a power loss as the DROP or TRUNCATE after it does.
func mkdirAllSynced(dir string) error {
	if _, err := os.Stat(dir); err == nil {
		return nil
	}
	parent := filepath.Dir(dir)
	if parent != dir {
		if err := mkdirAllSynced(parent); err != nil {
			return err
		}
	}
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return syncDir(parent)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// List returns every snapshot on disk, of existing and dropped tables,
// ordered by tag, keyspace and table. Directories that are not snapshots
// are skipped.
func (m *Manager) List() []Info { return m.scan(true) }

// scan lists the snapshots, with their sizes when withSizes (which reads
// the metadata of every file).
func (m *Manager) scan(withSizes bool) []Info {
	var out []Info
	for _, tdir := range m.tableDirs() {
		tags, err := os.ReadDir(tdir)
		if err != nil {
			continue
		}
		for _, tag := range tags {
			if !tag.IsDir() || strings.HasPrefix(tag.Name(), tmpPrefix) {
				continue
			}
			info, err := m.read(filepath.Join(tdir, tag.Name()))
			if err != nil {
				m.log.Debug("snapshot: skipping a directory", "dir", filepath.Join(tdir, tag.Name()), "err", err)
				continue
			}
			if withSizes {
				info.SizeOnDisk, info.TrueSize, info.DeadSSTables = m.sizes(info.Dir)
			}
			out = append(out, info)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := &out[i], &out[j]
		if a.Tag != b.Tag {
			return a.Tag < b.Tag
		}
		if a.Keyspace != b.Keyspace {
			return a.Keyspace < b.Keyspace
		}
		return a.Table < b.Table
	})
	return out
}

// read reads the snapshot in dir (<ks>/<table>-<id>/<tag>). A snapshot
// whose manifest.json is missing or unreadable is listed (so that it can
// be cleared) as created when its directory was last modified, without a
// TTL, as Cassandra lists a snapshot without a manifest.
func (m *Manager) read(dir string) (Info, error) {
	tdir := filepath.Dir(dir)
	base := filepath.Base(tdir)
	i := strings.LastIndexByte(base, '-')
	if i < 0 {
		return Info{}, fmt.Errorf("not a table directory: %s", base)
	}
	raw, err := hex.DecodeString(base[i+1:])
	if err != nil || len(raw) != 16 {
		return Info{}, fmt.Errorf("not a table directory: %s", base)
	}
	info := Info{Tag: filepath.Base(dir), Keyspace: filepath.Base(filepath.Dir(tdir)), Table: base[:i],
		TableID: uuid.UUID(raw), Dir: dir}
	mf, err := readManifest(dir)
	if err != nil {
		m.log.Debug("snapshot: unreadable manifest", "dir", dir, "err", err)
		fi, err := os.Stat(dir)
		if err != nil {
			return Info{}, err
		}
		info.CreatedAt = fi.ModTime().UTC().Truncate(time.Millisecond)
		return info, nil
	}
	info.CreatedAt, info.ExpiresAt, info.Ephemeral = mf.createdAt, mf.expiresAt, mf.Ephemeral
	return info, nil
}

// parsedManifest is a manifest.json with its times parsed.
type parsedManifest struct {
	manifest
	createdAt, expiresAt time.Time
}

func readManifest(dir string) (*parsedManifest, error) {
	b, err := os.ReadFile(filepath.Join(dir, manifestName))
	if err != nil {
		return nil, err
	}
	var mf parsedManifest
	if err := json.Unmarshal(b, &mf.manifest); err != nil {
		return nil, fmt.Errorf("%s: %w", manifestName, err)
	}
	if mf.createdAt, err = time.Parse(time.RFC3339Nano, mf.CreatedAt); err != nil {
		return nil, fmt.Errorf("%s: created_at: %w", manifestName, err)
	}
	if mf.ExpiresAt != nil {
		if mf.expiresAt, err = time.Parse(time.RFC3339Nano, *mf.ExpiresAt); err != nil {
			return nil, fmt.Errorf("%s: expires_at: %w", manifestName, err)
		}
	}
	return &mf, nil
}

// sizes returns the size of every file under dir, of those that are not
// live sstables, and of the sstables that are not live.
func (m *Manager) sizes(dir string) (onDisk, trueSize, deadSSTables int64) {
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		onDisk += fi.Size()
		sst := strings.HasSuffix(path, ".sst") && filepath.Base(filepath.Dir(path)) == dataName
		if sst && m.isLive(fi) {
			return nil
		}
		trueSize += fi.Size()
		if sst {
			deadSSTables += fi.Size()
		}
		return nil
	})
	return onDisk, trueSize, deadSSTables
}

// isLive reports whether a snapshot's sstable is still one of the
// engine's (the same file: sstable names are never reused, and a live one
// is a hard link of it).
func (m *Manager) isLive(fi fs.FileInfo) bool {
	live, err := os.Stat(filepath.Join(m.dataDir, fi.Name()))
	return err == nil && os.SameFile(fi, live)
}

// TrueSnapshotsSize is the size of the sstables of table t's snapshots
// that are no longer live (Cassandra's trueSnapshotsSize: nodetool
// tablestats' "Space used by snapshots (total)").
func (m *Manager) TrueSnapshotsSize(t *schema.Table) int64 {
	_, _, n := m.sizes(m.tableDir(t))
	return n
}

// Clear removes the snapshots named tag (every snapshot when tag is "")
// of the given keyspaces (every keyspace when none) created before cutoff
// (any time when zero), and returns how many it removed. Ephemeral
// snapshots are kept, and a tag or keyspace without snapshots is no error
// (Cassandra's clearSnapshot).
func (m *Manager) Clear(tag string, keyspaces []string, cutoff time.Time) (int, error) {
	return m.remove(func(info *Info) bool {
		if tag != "" && info.Tag != tag || len(keyspaces) > 0 && !slices.Contains(keyspaces, info.Keyspace) {
			return false
		}
		if info.Ephemeral {
			if tag != "" {
				m.log.Info(fmt.Sprintf("Skipping deletion of ephemeral snapshot '%s' in keyspace %s. Ephemeral snapshots are not removable by a user.", info.Tag, info.Keyspace))
			}
			return false
		}
		return cutoff.IsZero() || info.CreatedAt.Before(cutoff)
	})
}

// ClearExpired removes the snapshots whose TTL has passed.
func (m *Manager) ClearExpired() (int, error) {
	now := m.now()
	return m.remove(func(info *Info) bool {
		return !info.ExpiresAt.IsZero() && !info.ExpiresAt.After(now)
	})
}

func (m *Manager) remove(match func(*Info) bool) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	var errs []error
	for _, info := range m.scan(false) {
		if !match(&info) {
			continue
		}
		if m.importing[info.Dir] > 0 {
			m.log.Warn("snapshot: not removing a snapshot being imported", "dir", info.Dir)
			continue
		}
		// Renamed out of sight first: a crash in RemoveAll leaves a
		// temporary directory, removed at the next start, not a snapshot
		// missing some of its files.
		tmp := filepath.Join(filepath.Dir(info.Dir), tmpPrefix+"rm-"+info.Tag)
		if err := os.Rename(info.Dir, tmp); err != nil {
			errs = append(errs, err)
			continue
		}
		if err := os.RemoveAll(tmp); err != nil {
			errs = append(errs, err)
			continue
		}
		n++
		// The table and keyspace directories go with their last snapshot.
		tdir := filepath.Dir(info.Dir)
		if os.Remove(tdir) == nil {
			_ = os.Remove(filepath.Dir(tdir))
		}
	}
	return n, errors.Join(errs...)
}

// Import merges the snapshot in dir (a snapshot's directory, as Info.Dir)
// into table to, matching columns by name (storage.Pebble.Import). The
// snapshot is not removed while it is read. On an error, the stats say
// what was merged before it.
func (m *Manager) Import(ctx context.Context, dir string, to *schema.Table) (storage.ImportStats, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return storage.ImportStats{}, err
	}
	m.mu.Lock()
	m.importing[abs]++
	m.mu.Unlock()
	defer func() {
		m.mu.Lock()
		if m.importing[abs]--; m.importing[abs] == 0 {
			delete(m.importing, abs)
		}
		m.mu.Unlock()
	}()
	b, err := os.ReadFile(filepath.Join(abs, tableName))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return storage.ImportStats{}, fmt.Errorf("%s is not a snapshot directory: it has no %s", dir, tableName)
		}
		return storage.ImportStats{}, err
	}
	from, err := schema.UnmarshalTable(b)
	if err != nil {
		return storage.ImportStats{}, err
	}
	return m.engine.Import(ctx, filepath.Join(abs, dataName), from, to)
}
