// Package nodes starts and watches the processes the bench measures: the
// tracker's (serve, and its commands), the PostgreSQL or Citus nodes it
// starts itself, each in a memory cgroup when asked, and what /proc says
// of any process (CPU time, resident memory, connections, limits). It is apart from the scenarios so that what is
// read from the kernel is read one way for every one of them.
package nodes

import (
	"context"
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
		what, gib(n.memory), gib(n.memory/4))
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
