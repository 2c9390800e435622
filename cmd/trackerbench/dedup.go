package main

import (
	"bufio"
	"context"
	"fmt"
	"log"
	"maps"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// dedupSweep measures how backfeed holds up as a project's dedup records
// grow: the backfeed load (8 grab scripts posting 400 names, half of them
// seen) into a project that has seen 1,000,000 names, then into the same
// project once it has seen large. The first 1,000,000 are imported; the
// rest too, or, with -dedup-fill sql, written by fillByBlocks. Before each
// measurement the item tables are vacuumed and checkpointed, so neither
// measures what the fill left to do. Each row notes what a post cost in
// the database, the bytes a queued name takes on each node, and what each
// node read.
func (b *bench) dedupSweep(ctx context.Context, large int) error {
	const small = 1_000_000
	const project = "dedup"
	key, err := b.createProject(project, "Dedup at scale")
	if err != nil {
		return err
	}
	var projectID int32
	if err := b.pool.QueryRow(ctx, "SELECT id FROM projects WHERE slug = $1", project).Scan(&projectID); err != nil {
		return err
	}
	prefix := fmt.Sprintf("dedup:%d:", time.Now().UnixNano())
	imported := 0
	how := "imported"
	seen := func(n int) (time.Duration, error) {
		from := imported
		imported = n
		if n == from {
			return 0, nil
		}
		if b.o.dedupFill == "sql" && from > 0 {
			how = "written by SQL as an import writes them (fillByBlocks)"
			start := time.Now()
			err := fillByBlocks(ctx, b.pool, projectID, prefix, from, n-from)
			return time.Since(start), err
		}
		return b.fillLines(project, n-from, func(w *bufio.Writer, i int) {
			w.WriteString(prefix)
			w.WriteString(strconv.Itoa(from + i))
			w.WriteByte('\n')
		})
	}
	backfeed := func(name string, names int) (*row, error) {
		start := time.Now()
		if err := b.settle(ctx); err != nil {
			return nil, err
		}
		log.Printf("%s: vacuumed and checkpointed in %.0f s", name, time.Since(start).Seconds())
		sizes, err := b.itemBytes(ctx)
		if err != nil {
			return nil, err
		}
		load0 := loadAverage()
		before := b.nodeStats(ctx)
		if b.nodes != nil {
			b.nodes.resetPeaks()
		}
		r := b.measureOn(ctx, project, key, name, 8, func(ctx context.Context, l *load) []func() {
			var fs []func()
			for i := range 8 {
				fs = append(fs, func() { l.grabScript(ctx, i) })
			}
			return fs
		}, "")
		after := b.nodeStats(ctx)
		perPost, err := b.addUnseenPerPost(ctx, r)
		if err != nil {
			return nil, err
		}
		r.note = fmt.Sprintf("%s per post; bytes per queued name, of the %d the project has seen: %s; each node during the run: %s; the machine's load average %s before the run, %s after",
			perPost, names, bytesPerName(sizes, names), readsDuring(before, after, r.secs), load0, loadAverage())
		return r, nil
	}
	if _, err := seen(small); err != nil {
		return err
	}
	smallRow, err := backfeed("backfeed-1M-seen", small)
	if err != nil {
		return err
	}
	if err := b.roomFor(large - small); err != nil {
		return err
	}
	start := time.Now()
	if _, err := seen(large); err != nil {
		return err
	}
	filled := time.Since(start)
	log.Printf("the %d more names %s in %.0f s", large-small, how, filled.Seconds())
	largeRow, err := backfeed(fmt.Sprintf("backfeed-%s-seen", short(large)), large)
	if err != nil {
		return err
	}
	setup := "the tracker's embedded cluster"
	if b.nodes != nil {
		setup = b.nodes.describe()
	}
	ratio := largeRow.itemsPerS / smallRow.itemsPerS
	smallRow.note = fmt.Sprintf("backfeed (8 grab scripts, 400 names a post, half seen) into a project that has seen 1,000,000 names, on %s: %s",
		setup, smallRow.note)
	largeRow.note = fmt.Sprintf("the same once it has seen %d names: %.2f × with 1,000,000 (the %d more %s in %.0f s): %s",
		large, ratio, large-small, how, filled.Seconds(), largeRow.note)
	b.goals = append(b.goals, goal{
		name:     fmt.Sprintf("backfeed with %d names seen ≥ 0.7 × with 1,000,000, on %s", large, setup),
		measured: fmt.Sprintf("%.2f × (%.0f against %.0f names/s)", ratio, largeRow.itemsPerS, smallRow.itemsPerS),
		status:   met(ratio >= 0.7),
	})
	return nil
}

// roomFor refuses to queue n more names when the disk holding the
// bench's data has no room for them: some 285 bytes a name (see "Scale by
// adding workers" in docs/BENCHMARKS.md), 350 with the sort that builds
// the keys again, and the write-ahead log PostgreSQL keeps (max_wal_size,
// 4 GB).
func (b *bench) roomFor(n int) error {
	var fs syscall.Statfs_t
	if err := syscall.Statfs(b.dir, &fs); err != nil {
		return err
	}
	free := int64(fs.Bavail) * fs.Bsize
	need := int64(n)*350 + 4<<30
	if free < need {
		return fmt.Errorf("%d more names need about %.1f GiB on disk, and %s has %.1f GiB free", n, float64(need)/(1<<30), b.dir, float64(free)/(1<<30))
	}
	return nil
}

// settle vacuums the item tables and checkpoints every node: what an
// import or a fill leaves for vacuum (the visibility map of every page
// written) would otherwise be done during the measurement.
func (b *bench) settle(ctx context.Context) error {
	if _, err := b.pool.Exec(ctx, "VACUUM (ANALYZE) seen, todo"); err != nil {
		return err
	}
	if b.nodes != nil {
		return b.nodes.checkpoint(ctx)
	}
	_, err := b.pool.Exec(ctx, "CHECKPOINT")
	return err
}

// tableBytes are the bytes of a table on a node, with its indexes and
// TOAST, and of its indexes alone.
type tableBytes struct{ total, indexes int64 }

// itemBytes are the bytes of seen and todo on each node that holds them
// (on Citus, of their shards there).
func (b *bench) itemBytes(ctx context.Context) (map[string][2]tableBytes, error) {
	sizes := map[string][2]tableBytes{}
	if b.nodes == nil || b.nodes.citus == nil {
		var s, t tableBytes
		err := b.pool.QueryRow(ctx, `SELECT pg_total_relation_size('seen'), pg_indexes_size('seen'),
			pg_total_relation_size('todo'), pg_indexes_size('todo')`).Scan(&s.total, &s.indexes, &t.total, &t.indexes)
		sizes["node"] = [2]tableBytes{s, t}
		return sizes, err
	}
	for i, table := range []string{"seen", "todo"} {
		rows, err := b.pool.Query(ctx, `
			SELECT s.nodename, sum(s.shard_size)::bigint, sum(i.result::bigint)::bigint
			FROM citus_shards s
			JOIN run_command_on_shards($1, 'SELECT pg_indexes_size(''%s'')') i ON i.shardid = s.shardid AND i.success
			WHERE s.table_name = $1::regclass
			GROUP BY s.nodename`, table)
		if err != nil {
			return nil, err
		}
		var node string
		var size tableBytes
		_, err = pgx.ForEachRow(rows, []any{&node, &size.total, &size.indexes}, func() error {
			name := b.nodes.nameOf(node)
			both := sizes[name]
			both[i] = size
			sizes[name] = both
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return sizes, nil
}

// bytesPerName writes each node's bytes of seen and todo per name.
func bytesPerName(sizes map[string][2]tableBytes, names int) string {
	per := func(n int64) float64 { return float64(n) / float64(names) }
	var parts []string
	for _, node := range slices.Sorted(maps.Keys(sizes)) {
		s, t := sizes[node][0], sizes[node][1]
		parts = append(parts, fmt.Sprintf("%s %.0f B (seen %.0f, of it indexes %.0f; todo %.0f, of it indexes %.0f; %.2f GiB)", node,
			per(s.total+t.total), per(s.total), per(s.indexes), per(t.total), per(t.indexes), float64(s.total+t.total)/(1<<30)))
	}
	return strings.Join(parts, ", ")
}

// addUnseenPerPost is what the database spent per backfeed post of the
// run just measured on the statements that deduplicate and queue its
// names: TodoAddUnseen, and on Citus the statements that write its keys
// to seen on every worker first (SeenAddBatch, SeenOfBatch).
func (b *bench) addUnseenPerPost(ctx context.Context, r *row) (string, error) {
	var queue, keys float64
	var calls int64
	err := b.pool.QueryRow(ctx, `
		SELECT coalesce(sum(total_exec_time) FILTER (WHERE query LIKE '-- name: TodoAddUnseen %'), 0),
		       coalesce(sum(calls) FILTER (WHERE query LIKE '-- name: TodoAddUnseen %'), 0)::bigint,
		       coalesce(sum(total_exec_time) FILTER (WHERE query LIKE '-- name: Seen%Batch (Citus)%'), 0)
		FROM pg_stat_statements`).Scan(&queue, &calls, &keys)
	if err != nil {
		return "", err
	}
	posts := r.reqPerS * r.secs
	if posts == 0 {
		return "no post", nil
	}
	s := fmt.Sprintf("TodoAddUnseen %.1f ms", (queue+keys)/posts)
	if keys > 0 {
		s += fmt.Sprintf(" (its keys in seen, over the workers, %.1f; the queue, on the project's worker, %.1f)", keys/posts, queue/posts)
	}
	// Noted when they differ by more than the posts in flight at either
	// end of the run.
	if d := float64(calls) - posts; d > posts/50 || -d > posts/50 {
		s += fmt.Sprintf(" (%d statements for %.0f posts)", calls, posts)
	}
	return s, nil
}

// nodeStats reads the counters of the nodes the bench started (none
// otherwise).
func (b *bench) nodeStats(ctx context.Context) []nodeStat {
	if b.nodes == nil {
		return nil
	}
	return b.nodes.stats(ctx)
}

// readsDuring writes what each node read during a run: blocks a second
// (from the page cache or the disk) and the time spent reading them; its
// write-ahead log flushes and what each took; and its cgroup's peak
// memory during the run.
func readsDuring(before, after []nodeStat, secs float64) string {
	if len(after) == 0 {
		return "not measured (the tracker's embedded cluster)"
	}
	var parts []string
	for i, a := range after {
		s := fmt.Sprintf("%s %.0f blocks/s, %.0f ms of reads a second", a.name,
			float64(a.blocksRead-before[i].blocksRead)/secs, (a.readMS-before[i].readMS)/secs)
		if syncs := a.walSyncs - before[i].walSyncs; syncs > 0 {
			s += fmt.Sprintf(", %.0f log flushes a second of %.1f ms", float64(syncs)/secs, (a.walSyncMS-before[i].walSyncMS)/float64(syncs))
		}
		if a.peakMemory > 0 {
			s += fmt.Sprintf(", peak memory %.2f GiB (page cache %.2f GiB at the end)", float64(a.peakMemory)/(1<<30), float64(a.cacheMemory)/(1<<30))
		}
		if a.oomKills > 0 {
			s += fmt.Sprintf(", %d processes killed for the memory limit so far", a.oomKills)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}
