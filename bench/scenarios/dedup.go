package scenarios

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
	"tracker/bench/load"
	"tracker/bench/nodes"
	"tracker/bench/report"

	"github.com/jackc/pgx/v5"
)

// dedupSweep measures how backfeed holds up as a project's dedup records
// grow: the backfeed load (8 grab scripts posting 400 names, half of them
// seen) into a project that has seen 1,000,000 names, and into one that
// has seen large, on the same database. The first 1,000,000 names of each
// are imported; the large one's others too, or, with -dedup-fill sql,
// written by fillByBlocks. The item tables are then vacuumed and
// checkpointed, so no measurement pays for what the fill left to do, and
// the two projects are measured in turn, -dedup-rounds times each: a
// machine shared with others then slows both alike. Each row notes what a
// post cost in the database and what each node read and flushed; the
// first, the bytes a queued name takes on each node.
func (b *bench) dedupSweep(ctx context.Context, large int) error {
	const small = 1_000_000
	smallP, err := b.dedupProject("dedup-1m", "Dedup at 1,000,000")
	if err != nil {
		return err
	}
	largeP, err := b.dedupProject("dedup", "Dedup at scale")
	if err != nil {
		return err
	}
	for _, p := range []*dedupProject{smallP, largeP} {
		if err := b.dedupFill(ctx, p, small); err != nil {
			return err
		}
	}
	if err := b.roomFor(large - small); err != nil {
		return err
	}
	start := time.Now()
	if err := b.dedupFill(ctx, largeP, large); err != nil {
		return err
	}
	filled := time.Since(start)
	how := "imported"
	if b.o.DedupFill == "sql" && large > small {
		how = "written by SQL as an import writes them (fillByBlocks)"
	}
	log.Printf("the %d more names %s in %.0f s", large-small, how, filled.Seconds())
	start = time.Now()
	if err := b.settle(ctx); err != nil {
		return err
	}
	log.Printf("vacuumed and checkpointed in %.0f s", time.Since(start).Seconds())
	sizes, err := b.itemBytes(ctx)
	if err != nil {
		return err
	}

	backfeed := func(p *dedupProject, name string) (*report.Row, error) {
		load0 := nodes.LoadAverage()
		before := b.nodeStats(ctx)
		if b.nodes != nil {
			b.nodes.ResetPeaks()
		}
		r := b.measureOn(ctx, p.slug, p.key, name, 8, func(ctx context.Context, l *load.Load) []func() {
			var fs []func()
			for i := range 8 {
				fs = append(fs, func() { l.GrabScript(ctx, i) })
			}
			return fs
		}, "")
		after := b.nodeStats(ctx)
		perPost, err := b.addUnseenPerPost(ctx, r)
		if err != nil {
			return nil, err
		}
		r.Note = fmt.Sprintf("%s per post; each node during the run: %s; the machine's load average %s before the run, %s after",
			perPost, readsDuring(before, after, r.Secs), load0, nodes.LoadAverage())
		return r, nil
	}
	var smallRows, largeRows []*report.Row
	for round := 1; round <= max(1, b.o.DedupRounds); round++ {
		suffix := ""
		if round > 1 {
			suffix = fmt.Sprintf("-r%d", round)
		}
		r, err := backfeed(smallP, "backfeed-1M-seen"+suffix)
		if err != nil {
			return err
		}
		smallRows = append(smallRows, r)
		if r, err = backfeed(largeP, fmt.Sprintf("backfeed-%s-seen%s", report.Short(large), suffix)); err != nil {
			return err
		}
		largeRows = append(largeRows, r)
	}

	setup := "the tracker's embedded cluster"
	if b.nodes != nil {
		setup = b.nodes.Describe()
	}
	rate := func(rows []*report.Row) float64 {
		var names, secs float64
		for _, r := range rows {
			names += r.ItemsPerS * r.Secs
			secs += r.Secs
		}
		return names / secs
	}
	smallRate, largeRate := rate(smallRows), rate(largeRows)
	ratio := largeRate / smallRate
	smallRows[0].Note = fmt.Sprintf("backfeed (8 grab scripts, 400 names a post, half seen) into a project that has seen 1,000,000 names, on %s; "+
		"bytes per queued name, of the %d the two projects have seen, on each node: %s: %s",
		setup, large+small, bytesPerName(sizes, large+small), smallRows[0].Note)
	largeRows[0].Note = fmt.Sprintf("the same into a project that has seen %d names, measured in turn with the first (the %d after the first million %s in %.0f s): %s",
		large, large-small, how, filled.Seconds(), largeRows[0].Note)
	largeRows[len(largeRows)-1].Note += fmt.Sprintf("; over the %d rounds %.0f against %.0f names/s: %.2f ×", len(largeRows), largeRate, smallRate, ratio)
	b.goals = append(b.goals, report.Goal{
		Name:     fmt.Sprintf("backfeed with %d names seen ≥ 0.7 × with 1,000,000, on %s", large, setup),
		Measured: fmt.Sprintf("%.2f × (%.0f against %.0f names/s, %d rounds)", ratio, largeRate, smallRate, len(largeRows)),
		Status:   report.Met(ratio >= 0.7),
	})
	return nil
}

// dedupProject is a project of the dedup sweep and the names it has seen:
// prefix followed by 0, 1, ... names-1.
type dedupProject struct {
	slug, key, prefix string
	id                int32
	names             int
}

func (b *bench) dedupProject(slug, title string) (*dedupProject, error) {
	p := &dedupProject{slug: slug, prefix: fmt.Sprintf("%s:%d:", slug, time.Now().UnixNano())}
	var err error
	if p.key, err = b.createProject(slug, title); err != nil {
		return nil, err
	}
	err = b.pool.QueryRow(context.Background(), "SELECT id FROM projects WHERE slug = $1", slug).Scan(&p.id)
	return p, err
}

// dedupFill brings the names a project has seen up to n: imported, or,
// with -dedup-fill sql, written by fillByBlocks past the first imported.
func (b *bench) dedupFill(ctx context.Context, p *dedupProject, n int) error {
	from := p.names
	if n <= from {
		return nil
	}
	p.names = n
	if b.o.DedupFill == "sql" && from > 0 {
		return fillByBlocks(ctx, b.pool, p.id, p.prefix, from, n-from)
	}
	_, err := b.fillLines(p.slug, n-from, func(w *bufio.Writer, i int) {
		w.WriteString(p.prefix)
		w.WriteString(strconv.Itoa(from + i))
		w.WriteByte('\n')
	})
	return err
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
		return b.nodes.Checkpoint(ctx)
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
	if b.nodes == nil || !b.nodes.IsCitus() {
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
			name := b.nodes.NameOf(node)
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
func (b *bench) addUnseenPerPost(ctx context.Context, r *report.Row) (string, error) {
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
	posts := r.ReqPerS * r.Secs
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
func (b *bench) nodeStats(ctx context.Context) []nodes.Stat {
	if b.nodes == nil {
		return nil
	}
	return b.nodes.Stats(ctx)
}

// readsDuring writes what each node read during a run: blocks a second
// (from the page cache or the disk) and the time spent reading them; its
// write-ahead log flushes and what each took; and its cgroup's peak
// memory during the run.
func readsDuring(before, after []nodes.Stat, secs float64) string {
	if len(after) == 0 {
		return "not measured (the tracker's embedded cluster)"
	}
	var parts []string
	for i, a := range after {
		s := fmt.Sprintf("%s %.0f blocks/s, %.0f ms of reads a second", a.Name,
			float64(a.BlocksRead-before[i].BlocksRead)/secs, (a.ReadMS-before[i].ReadMS)/secs)
		if syncs := a.WALSyncs - before[i].WALSyncs; syncs > 0 {
			s += fmt.Sprintf(", %.0f log flushes a second of %.1f ms", float64(syncs)/secs, (a.WALSyncMS-before[i].WALSyncMS)/float64(syncs))
		}
		if a.PeakMemory > 0 {
			s += fmt.Sprintf(", peak memory %.2f GiB (page cache %.2f GiB at the end)", float64(a.PeakMemory)/(1<<30), float64(a.CacheMemory)/(1<<30))
		}
		if a.OOMKills > 0 {
			s += fmt.Sprintf(", %d processes killed for the memory limit so far", a.OOMKills)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}
