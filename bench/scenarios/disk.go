package scenarios

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"sync"
	"time"
	"tracker/bench/load"
	"tracker/bench/report"
)

// disk measures the bytes on disk an item costs in each of its states:
// queued (its queue row and its dedup record), done (its completion and its
// dedup record) and seen only (the dedup record, all that stays once its
// completion is archived), with 40-byte names, from the growth of the
// tables and their indexes after VACUUM and CHECKPOINT. Run it first, on
// the fresh cluster: space freed by earlier scenarios would hide growth.
func (b *bench) disk(ctx context.Context, n int) error {
	const project = "disk"
	if _, err := b.cli("", "project", "create", project, "--title", "Bytes on disk"); err != nil {
		return err
	}
	before, err := b.tableBytes(ctx)
	if err != nil {
		return err
	}
	if _, err := b.fillLines(project, n, func(w *bufio.Writer, i int) {
		fmt.Fprintf(w, "disk:%035d\n", i) // 40 bytes
	}); err != nil {
		return err
	}
	queued, err := b.tableBytes(ctx)
	if err != nil {
		return err
	}

	// Every item through multi warriors: claimed, then done.
	start := time.Now()
	l := &load.Load{Base: b.url, Project: project, Stats: load.NewStats()}
	runCtx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() { defer wg.Done(); l.Warrior(runCtx, fmt.Sprintf("d%d", i), b.o.Multi) }()
	}
	for l.Items.Load() < int64(n) && ctx.Err() == nil {
		time.Sleep(100 * time.Millisecond)
	}
	cancel()
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "disk: %d items queued and done in %.1f s\n", n, time.Since(start).Seconds())
	done, err := b.tableBytes(ctx)
	if err != nil {
		return err
	}

	per := func(after, before map[string]int64, tables ...string) float64 {
		var sum int64
		for _, t := range tables {
			sum += after[t] - before[t]
		}
		return float64(sum) / float64(n)
	}
	queuedB := per(queued, before, "todo", "seen")
	b.goals = append(b.goals,
		report.Goal{Name: "bytes on disk per queued item, 40-byte names, with its dedup record: ≤ 160 B",
			Measured: fmt.Sprintf("%.0f B (queue row and its index %.0f, dedup record %.0f)", queuedB, per(queued, before, "todo"), per(queued, before, "seen")),
			Status:   report.Met(queuedB <= 160)},
		report.Goal{Name: "bytes on disk per done item, with its dedup record (reported)",
			Measured: fmt.Sprintf("%.0f B (completion %.0f, dedup record %.0f)", per(done, before, "done", "seen"), per(done, before, "done"), per(done, before, "seen")),
			Status:   "reported"},
		report.Goal{Name: "bytes on disk per item once its completion is archived: the dedup record (reported)",
			Measured: fmt.Sprintf("%.0f B", per(done, before, "seen")), Status: "reported"})
	return nil
}

// tableBytes returns the bytes on disk of the item tables (with their
// partitions, indexes and TOAST) after VACUUM and a checkpoint.
func (b *bench) tableBytes(ctx context.Context) (map[string]int64, error) {
	for _, s := range []string{"VACUUM todo, claims, seen, done", "CHECKPOINT"} {
		if _, err := b.pool.Exec(ctx, s); err != nil {
			return nil, err
		}
	}
	rows, err := b.pool.Query(ctx, `
		SELECT t.name, sum(pg_total_relation_size(coalesce(p.relid, t.name::regclass)))::bigint
		FROM unnest(ARRAY['todo', 'claims', 'seen', 'done']) t (name)
		LEFT JOIN LATERAL pg_partition_tree(t.name::regclass) p ON true -- none for a table not partitioned
		GROUP BY t.name`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	bytes := map[string]int64{}
	for rows.Next() {
		var name string
		var n int64
		if err := rows.Scan(&name, &n); err != nil {
			return nil, err
		}
		bytes[name] = n
	}
	return bytes, rows.Err()
}
