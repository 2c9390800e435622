// Package nodes starts and watches the processes the bench measures: the
// tracker's (serve, and its commands), the PostgreSQL or Citus nodes it
// starts itself, each in a memory cgroup when asked, and what /proc says
// of any process (CPU time, resident memory, connections, limits). It is apart from the scenarios so that what is
// read from the kernel is read one way for every one of them.
package nodes

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"

	"tracker/pgcluster"
)

// Nodes are the PostgreSQL servers the bench starts itself (with
// -dedup-workers or -node-memory) rather than leaving the tracker to start
// its embedded cluster: one node, in the tracker's data directory, which
// the tracker then joins; or a Citus coordinator with workers, which the
// tracker reaches through DATABASE_URL. With a memory limit each node's
// processes run in a cgroup of their own (cgroup v1's memory controller)
// limited to it; the tracker and the load generator run outside.
type Nodes struct {
	plain   *pgcluster.Cluster
	citus   *pgcluster.Citus
	shards  int      // on Citus, the shards of each distributed table
	memory  int64    // bytes each node may use, 0: no limit
	cgroups []string // a node's cgroup directory, in the order of all()
}

// Start starts one node in dir (workers 0), or a coordinator and
// workers under dir/citus, each limited to memory bytes (0: no limit),
// with shards shards a distributed table (0: one a worker).
func Start(ctx context.Context, dir string, workers, shards int, memory int64) (*Nodes, error) {
	if shards == 0 {
		shards = workers
	}
	n := &Nodes{memory: memory, shards: shards}
	count := 1
	if workers > 0 {
		count += workers
	}
	settings := nodeSettings(memory, count)
	if workers > 0 {
		settings["shared_preload_libraries"] = "'citus,pg_stat_statements'"
		settings["citus.shard_count"] = strconv.Itoa(shards)
		// A backfeed post writes its keys to every shard of seen that
		// they fall in, from a connection to a worker for each shard
		// there; connections beyond those Citus keeps (one a worker by
		// default) are opened for each post anew.
		settings["citus.max_cached_conns_per_worker"] = strconv.Itoa((shards + workers - 1) / workers)
	}
	var err error
	if workers > 0 {
		n.citus, err = pgcluster.StartCitus(ctx, filepath.Join(dir, "citus"), workers, pgcluster.Options{Settings: settings})
	} else {
		n.plain, err = pgcluster.Acquire(ctx, dir, pgcluster.Options{Settings: settings})
	}
	if err != nil {
		return nil, err
	}
	if memory > 0 {
		for i, node := range n.all() {
			cg, err := newMemoryCgroup(fmt.Sprintf("trackerbench-%d-%s", os.Getpid(), n.names()[i]), memory)
			if err != nil {
				n.Stop()
				return nil, err
			}
			n.cgroups = append(n.cgroups, cg)
			if err := moveServer(cg, PostmasterOf(node.Dir())); err != nil {
				n.Stop()
				return nil, fmt.Errorf("%s: %w", n.names()[i], err)
			}
		}
	}
	if n.citus != nil {
		if err := n.citus.Setup(ctx, pgcluster.Database); err != nil {
			n.Stop()
			return nil, err
		}
	}
	return n, nil
}

// nodeSettings are the tracker's embedded settings (pgcluster's) with the
// memory sized to the node's limit: shared_buffers a quarter of it, as
// PostgreSQL's guidance and the embedded cluster have it; without a limit,
// each of count nodes gets its share of the machine's quarter.
func nodeSettings(memory int64, count int) map[string]string {
	mb := func(n int64) string { return fmt.Sprintf("%dMB", n>>20) }
	// What a write-ahead log flush took, which a commit waits for (and,
	// on Citus, a post waits for on each worker and the coordinator).
	s := map[string]string{"track_wal_io_timing": "on"}
	if memory > 0 {
		s["shared_buffers"] = mb(memory / 4)
		s["effective_cache_size"] = mb(memory * 3 / 4)
		// An index built on a node (the fill's) sorts within its memory.
		s["maintenance_work_mem"] = mb(min(max(memory/16, 16<<20), 1<<30))
	} else if count > 1 {
		var info syscall.Sysinfo_t
		if syscall.Sysinfo(&info) == nil {
			s["shared_buffers"] = mb(int64(info.Totalram) * int64(info.Unit) / 4 / int64(count))
		}
	}
	return s
}

// IsCitus says whether the nodes are a Citus coordinator and workers,
// whose tables are spread over shards.
func (n *Nodes) IsCitus() bool { return n.citus != nil }

// all lists the nodes: the one, or the coordinator then the workers.
func (n *Nodes) all() []*pgcluster.Cluster {
	if n.citus != nil {
		return n.citus.Nodes()
	}
	return []*pgcluster.Cluster{n.plain}
}

// names are the nodes' names, in the order of all().
func (n *Nodes) names() []string {
	if n.citus == nil {
		return []string{"node"}
	}
	names := []string{"coordinator"}
	for i := range n.citus.Workers {
		names = append(names, fmt.Sprintf("worker%d", i+1))
	}
	return names
}

// NameOf names the node whose PGDATA (Citus's nodename) is dir.
func (n *Nodes) NameOf(dir string) string {
	for i, node := range n.all() {
		if node.Dir() == dir {
			return n.names()[i]
		}
	}
	return dir
}

// DatabaseURL is what the tracker is given as DATABASE_URL: the
// coordinator's database; none for one node, which the tracker joins in
// its data directory as it would start it.
func (n *Nodes) DatabaseURL() string {
	if n.citus == nil {
		return ""
	}
	return n.citus.Coordinator.DSN()
}

// DSN is the tracker's database, on the node or the coordinator.
func (n *Nodes) DSN() string { return n.all()[0].DSN() }

// Describe says how the nodes were set up, for the result table's notes.
func (n *Nodes) Describe() string {
	what := "one PostgreSQL node"
	if n.citus != nil {
		what = fmt.Sprintf("a Citus coordinator and %d workers (%d shards a table)", len(n.citus.Workers), n.shards)
	}
	if n.memory == 0 {
		return what + ", no memory limit"
	}
	return fmt.Sprintf("%s, each node's processes in a cgroup v1 memory cgroup limited to %s (memory.limit_in_bytes: its processes' memory and the page cache they fill), shared_buffers %s",
		what, GiB(n.memory), GiB(n.memory/4))
}

// Stop stops the nodes and removes their cgroups.
func (n *Nodes) Stop() {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var err error
	if n.citus != nil {
		err = n.citus.Release(ctx)
	} else if n.plain != nil {
		err = n.plain.Release(ctx)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "trackerbench: stopping PostgreSQL:", err)
	}
	for _, cg := range n.cgroups {
		removeCgroup(cg)
	}
}

// Stat is what a node's counters say at one moment.
type Stat struct {
	Name        string
	BlocksRead  int64   // blocks PostgreSQL read (from the page cache or the disk)
	ReadMS      float64 // time spent reading them (track_io_timing)
	PeakMemory  int64   // the cgroup's peak usage (memory.max_usage_in_bytes)
	CacheMemory int64   // of it now, the page cache
	OOMKills    int64   // processes the kernel killed for the limit, so far
	WALSyncs    int64   // write-ahead log flushes to disk
	WALSyncMS   float64 // the time they took
}

// Stats reads every node's counters, in the order of all().
func (n *Nodes) Stats(ctx context.Context) []Stat {
	out := make([]Stat, len(n.all()))
	for i, node := range n.all() {
		out[i].Name = n.names()[i]
		conn, err := pgx.Connect(ctx, node.DSN())
		if err == nil {
			conn.QueryRow(ctx, `SELECT d.blks_read, d.blk_read_time, w.wal_sync, w.wal_sync_time
				FROM pg_stat_database d, pg_stat_wal w WHERE d.datname = current_database()`).
				Scan(&out[i].BlocksRead, &out[i].ReadMS, &out[i].WALSyncs, &out[i].WALSyncMS)
			conn.Close(ctx)
		}
		if i < len(n.cgroups) {
			out[i].PeakMemory = cgroupValue(n.cgroups[i], "memory.max_usage_in_bytes")
			out[i].CacheMemory = cgroupStat(n.cgroups[i], "total_cache")
			out[i].OOMKills = cgroupStat(n.cgroups[i], "oom_kill")
		}
	}
	return out
}

// ResetPeaks starts the cgroups' peak memory afresh.
func (n *Nodes) ResetPeaks() {
	for _, cg := range n.cgroups {
		os.WriteFile(filepath.Join(cg, "memory.max_usage_in_bytes"), []byte("0"), 0)
	}
}

// Checkpoint runs a checkpoint on every node.
func (n *Nodes) Checkpoint(ctx context.Context) error {
	for _, node := range n.all() {
		conn, err := pgx.Connect(ctx, node.AdminDSN())
		if err != nil {
			return err
		}
		_, err = conn.Exec(ctx, "CHECKPOINT")
		conn.Close(ctx)
		if err != nil {
			return err
		}
	}
	return nil
}

// Postmasters are the nodes' postmaster PIDs.
func (n *Nodes) Postmasters() []int {
	var pids []int
	for _, node := range n.all() {
		pids = append(pids, PostmasterOf(node.Dir()))
	}
	return pids
}

// PostmasterOf reads a server's PID from its PGDATA (0 when not running).
func PostmasterOf(pgdata string) int {
	data, err := os.ReadFile(filepath.Join(pgdata, "postmaster.pid"))
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.SplitN(string(data), "\n", 2)[0])
	return pid
}

// memoryRoot is where cgroup v1 mounts its memory controller.
const memoryRoot = "/sys/fs/cgroup/memory"

// newMemoryCgroup makes a memory cgroup named name below the one this
// process runs in (so whatever limits that one stay in force), limited to
// limit bytes, and returns its directory. What a process moved in had
// used before stays charged where it was (recent kernels refuse
// move_charge_at_immigrate): the server is moved in before it does
// anything of note.
func newMemoryCgroup(name string, limit int64) (string, error) {
	self, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", err
	}
	parent := ""
	for line := range strings.SplitSeq(string(self), "\n") {
		// hierarchy-ID:controllers:path
		if f := strings.SplitN(line, ":", 3); len(f) == 3 && hasController(f[1], "memory") {
			parent = filepath.Join(memoryRoot, f[2])
		}
	}
	if parent == "" {
		return "", errors.New("-node-memory needs cgroup v1's memory controller (/sys/fs/cgroup/memory), which this process is not under")
	}
	dir := filepath.Join(parent, name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return "", fmt.Errorf("-node-memory: making the memory cgroup (run as root): %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "memory.limit_in_bytes"), []byte(strconv.FormatInt(limit, 10)), 0); err != nil {
		os.Remove(dir)
		return "", fmt.Errorf("-node-memory: memory.limit_in_bytes: %w", err)
	}
	return dir, nil
}

func hasController(list, name string) bool {
	for c := range strings.SplitSeq(list, ",") {
		if c == name {
			return true
		}
	}
	return false
}

// moveServer moves a running PostgreSQL server into cgroup cg: its
// postmaster first, so every process it forks from then on (each backend)
// starts there, then the processes it had forked before.
func moveServer(cg string, postmaster int) error {
	if postmaster == 0 {
		return errors.New("no postmaster.pid")
	}
	procs := filepath.Join(cg, "cgroup.procs")
	if err := os.WriteFile(procs, []byte(strconv.Itoa(postmaster)), 0); err != nil {
		return fmt.Errorf("moving the postmaster into %s: %w", cg, err)
	}
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		pid, _ := strconv.Atoi(filepath.Base(d))
		if ppid, _, _, err := procTimes(pid); err == nil && ppid == postmaster {
			// A child that has exited meanwhile cannot be moved: no matter.
			os.WriteFile(procs, []byte(strconv.Itoa(pid)), 0)
		}
	}
	return nil
}

// removeCgroup removes a cgroup once its processes are gone.
func removeCgroup(cg string) {
	for range 50 {
		if err := os.Remove(cg); err == nil || errors.Is(err, os.ErrNotExist) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	fmt.Fprintln(os.Stderr, "trackerbench: could not remove cgroup", cg)
}

// cgroupValue reads a number from a cgroup's file (0 when unreadable).
func cgroupValue(cg, file string) int64 {
	b, err := os.ReadFile(filepath.Join(cg, file))
	if err != nil {
		return 0
	}
	v, _ := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	return v
}

// cgroupStat reads one line of a cgroup's memory.stat (or, for oom_kill,
// memory.oom_control).
func cgroupStat(cg, key string) int64 {
	file := "memory.stat"
	if key == "oom_kill" {
		file = "memory.oom_control"
	}
	b, err := os.ReadFile(filepath.Join(cg, file))
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, key+" "); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	return 0
}

// Bytes is a size given as 4GiB, 512MiB, 1G or a number of bytes.
type Bytes int64

// String writes the size as GiB(), "0" when none: the flag's default.
func (f *Bytes) String() string {
	if *f == 0 {
		return "0"
	}
	return GiB(int64(*f))
}

// Set reads a size with a binary unit (or none: bytes), as -node-memory
// takes it.
func (f *Bytes) Set(s string) error {
	units := []struct {
		suffix string
		shift  uint
	}{{"TiB", 40}, {"GiB", 30}, {"MiB", 20}, {"KiB", 10}, {"T", 40}, {"G", 30}, {"M", 20}, {"K", 10}, {"B", 0}}
	num, shift := s, uint(0)
	for _, u := range units {
		if v, ok := strings.CutSuffix(s, u.suffix); ok {
			num, shift = v, u.shift
			break
		}
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if err != nil || v < 0 {
		return fmt.Errorf("%q: a size such as 4GiB or 512MiB", s)
	}
	*f = Bytes(v * float64(int64(1)<<shift))
	return nil
}

// GiB writes a size in GiB, or MiB under one.
func GiB(n int64) string {
	if n >= 1<<30 {
		return fmt.Sprintf("%.4g GiB", float64(n)/(1<<30))
	}
	return fmt.Sprintf("%.4g MiB", float64(n)/(1<<20))
}
