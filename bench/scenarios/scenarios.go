package scenarios

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
	"tracker/bench/load"
	"tracker/bench/nodes"
	"tracker/bench/report"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"tracker/db"
	"tracker/items"
)

// scenario runs one named scenario and, for warrior scenarios, its floor
// and yardstick. A name may end in :N, N clients instead of its default
// (single:8).
func (b *bench) scenario(ctx context.Context, name string) error {
	name, fixed, err := splitName(name)
	if err != nil {
		return err
	}
	clients := func(def int) int { return pickClients(fixed, b.o.Clients, def) }
	switch name {
	case "single":
		n := clients(64)
		return b.warriors(ctx, name, n, 1, 40_000)
	case "multi":
		n := clients(16)
		return b.warriors(ctx, name, n, b.o.Multi, 150_000)
	case "single-lifecycle":
		return b.lifecycle(ctx, name, clients(64), 1, 40_000, false)
	case "multi-lifecycle":
		return b.lifecycle(ctx, name, clients(16), b.o.Multi, 150_000, false)
	case "multi-documents":
		return b.lifecycle(ctx, name, clients(16), b.o.Multi, 150_000, true)
	case "recurring":
		return b.recurring(ctx, clients(32))
	case "multi-repeat":
		// Not in the default run: what a repeated done costs, against
		// multi's.
		n := clients(16)
		if err := b.refill(ctx, 150_000); err != nil {
			return err
		}
		b.measure(ctx, name, n, func(ctx context.Context, l *load.Load) []func() {
			l.Repeat = true
			var fs []func()
			for i := range n {
				fs = append(fs, func() { l.Warrior(ctx, fmt.Sprintf("w%d", i), b.o.Multi) })
			}
			return fs
		}, "multi, each done sent again once acknowledged (as seesaw does when the answer was lost); items/s counts the first")
		return nil
	case "backfeed":
		n := clients(8)
		r := b.measure(ctx, name, n, func(ctx context.Context, l *load.Load) []func() {
			var fs []func()
			for i := range n {
				fs = append(fs, func() { l.GrabScript(ctx, i) })
			}
			return fs
		}, "names deduplicated and queued per second; half of each post seen before; the yardstick inserts the same posts into a table keyed like the dedup records")
		if !b.o.Floor || ctx.Err() != nil {
			return nil
		}
		var err error
		r.Yardstick, err = b.insertYardstick(ctx, n)
		return err
	case "mixed":
		n := clients(64)
		if err := b.refill(ctx, 60_000); err != nil {
			return err
		}
		b.measure(ctx, name, n, func(ctx context.Context, l *load.Load) []func() {
			var fs []func()
			for i := range n {
				switch i % 4 {
				case 0:
					fs = append(fs, func() { l.Warrior(ctx, fmt.Sprintf("m%d", i), b.o.Multi) })
				case 1:
					fs = append(fs, func() { l.GrabScript(ctx, 1000+i) })
				default:
					fs = append(fs, func() { l.Warrior(ctx, fmt.Sprintf("s%d", i), 1) })
				}
			}
			return fs
		}, "a quarter multi warriors, a quarter grab scripts, half single warriors; items/s counts completions and backfed names")
		return nil
	case "lookup":
		n := clients(32)
		if err := b.refill(ctx, 40_000); err != nil {
			return err
		}
		b.measure(ctx, name, n+8, func(ctx context.Context, l *load.Load) []func() {
			var fs []func()
			for i := range n {
				fs = append(fs, func() { l.Warrior(ctx, fmt.Sprintf("w%d", i), 1) })
			}
			for range 8 {
				fs = append(fs, func() { l.Reader(ctx) })
			}
			return fs
		}, fmt.Sprintf("%d single warriors, 8 readers of item status and the project list", n))
		return nil
	case "readers":
		return b.readers(ctx, name, clients(32), 8, false)
	case "readers-200":
		return b.readers(ctx, name, clients(32), 200, true)
	case "connection-hog":
		return b.connectionHog(ctx, name, clients(32))
	case "admin-search":
		// 30 admins searching, as many as once took every connection of
		// the web pool.
		return b.adminSearch(ctx, name, clients(32), 30)
	case "viewers":
		return b.viewersScenario(ctx, name, clients(32), b.o.Viewers)
	case "pages":
		return b.pages(ctx)
	case "disk":
		return b.disk(ctx, b.o.DiskItems)
	case "frontier":
		return b.frontier(ctx, clients(80))
	case "field":
		return b.field(ctx)
	case "dedup":
		// The sweep's dedup part alone: its import of -dedup-seen names
		// takes the longest of all.
		return b.dedupSweep(ctx, b.o.DedupSeen)
	}
	return fmt.Errorf("unknown scenario %q", name)
}

// splitName splits a scenario's name from the clients it asks for, as in
// single:8; fixed is 0 when the name gives none.
func splitName(name string) (base string, fixed int, err error) {
	base, n, ok := strings.Cut(name, ":")
	if !ok {
		return name, 0, nil
	}
	if fixed, err = strconv.Atoi(n); err != nil || fixed <= 0 {
		return "", 0, fmt.Errorf("scenario %q: clients must be a positive number", name)
	}
	return base, fixed, nil
}

// pickClients is a run's clients: the name's (single:8) over -clients over
// the scenario's own default, so one scenario can be run at another size
// beside the others in one command line.
func pickClients(fixed, flag, def int) int {
	if fixed > 0 {
		return fixed
	}
	if flag > 0 {
		return flag
	}
	return def
}

// refill empties the queues and queues enough items for a run at perSecond.
func (b *bench) refill(ctx context.Context, perSecond int) error {
	if err := b.drain(ctx); err != nil {
		return err
	}
	n := b.o.Queue
	if n == 0 {
		n = perSecond * int(b.o.Duration/time.Second+1)
	}
	_, err := b.fill(n, fmt.Sprintf("item:%d:", time.Now().UnixNano()))
	return err
}

// warriors runs request → done loops with n items a request, then the raw
// SQL floor of the same statements.
func (b *bench) warriors(ctx context.Context, name string, clients, n, perSecond int) error {
	if err := b.refill(ctx, perSecond); err != nil {
		return err
	}
	r := b.measure(ctx, name, clients, func(ctx context.Context, l *load.Load) []func() {
		var fs []func()
		for i := range clients {
			fs = append(fs, func() { l.Warrior(ctx, fmt.Sprintf("w%d", i), n) })
		}
		return fs
	}, "")
	if !b.o.Floor || ctx.Err() != nil {
		return nil
	}
	if err := b.refill(ctx, perSecond); err != nil {
		return err
	}
	floor, err := b.floor(ctx, clients, n)
	if err != nil {
		return err
	}
	r.Floor = floor
	if r.Yardstick, err = b.cycleYardstick(ctx, clients, n, perSecond); err != nil || !b.o.River {
		return err
	}
	r.River, err = b.riverYardstick(ctx, clients*n, perSecond)
	return err
}

// measure runs a scenario's clients for the run's duration and records a row.
func (b *bench) measure(ctx context.Context, name string, clients int, workers func(context.Context, *load.Load) []func(), note string) *report.Row {
	return b.measureOn(ctx, b.project, b.key, name, clients, workers, note)
}

// measureOn is measure on another project than the bench's own.
func (b *bench) measureOn(ctx context.Context, project, key, name string, clients int, workers func(context.Context, *load.Load) []func(), note string) *report.Row {
	l := &load.Load{Base: b.url, Project: project, BackfeedKey: key, Stats: load.NewStats()}
	b.pool.Exec(ctx, "SELECT pg_stat_statements_reset()")
	cpu0, pg0, load0 := nodes.CPUSeconds(b.serve.Process.Pid), b.postgresCPU(), nodes.CPUSeconds(os.Getpid())
	runCtx, cancel := context.WithTimeout(ctx, b.o.Duration)
	defer cancel()
	start := time.Now()
	var wg sync.WaitGroup
	for _, f := range workers(runCtx, l) {
		wg.Add(1)
		go func() { defer wg.Done(); f() }()
	}
	wg.Wait()
	secs := time.Since(start).Seconds()

	r := &report.Row{
		Name: name, Clients: clients, Note: note, Secs: secs,
		ItemsPerS: float64(l.Items.Load()) / secs,
		ReqPerS:   float64(l.Stats.Total()) / secs,
		Latency:   map[string][3]time.Duration{},
		Errors:    l.Stats.Errors(),
		TrackerS:  (nodes.CPUSeconds(b.serve.Process.Pid) - cpu0) / secs,
		PostgresS: (b.postgresCPU() - pg0) / secs,
		LoadS:     (nodes.CPUSeconds(os.Getpid()) - load0) / secs,
		RSSMB:     float64(nodes.PeakRSS(b.serve.Process.Pid)) / (1 << 20),
	}
	for _, e := range l.Stats.Endpoints() {
		p50, p90, p99 := l.Stats.Percentiles(e)
		r.Latency[e] = [3]time.Duration{p50, p90, p99}
	}
	r.Top = b.topStatements(ctx, secs)
	b.rows = append(b.rows, r)
	fmt.Fprintf(os.Stderr, "%-10s %9.0f items/s %9.0f req/s  %s\n", name, r.ItemsPerS, r.ReqPerS, r.Errors)
	return r
}

// floor runs the claim and completion statements the tracker runs for a
// request and a done, straight on the database, one transaction each, from
// as many connections as the scenario has clients: what the tracker costs
// without HTTP, JSON and batching.
func (b *bench) floor(ctx context.Context, clients, n int) (float64, error) {
	var project int32
	if err := b.pool.QueryRow(ctx, "SELECT id FROM projects WHERE slug = $1", b.project).Scan(&project); err != nil {
		return 0, err
	}
	takes := make([]db.ClaimsTakeSlotsParams, clients)
	for i := range takes {
		takes[i] = db.ClaimsTakeSlotsParams{ProjectID: project, Queue: "todo", Max: int32(n), Budget: items.MaxAnswerBytes}
		for range n {
			t := &takes[i]
			t.Nicks, t.Versions, t.Ips = append(t.Nicks, "floor"+strconv.Itoa(i)), append(t.Versions, "1"), append(t.Ips, "")
			t.Requests, t.Carried = append(t.Requests, 0), append(t.Carried, 0)
		}
	}
	// A statement that fails (a deadlock between two claims) counts
	// nothing and the client goes on.
	return b.yardstick(ctx, clients, func(ctx context.Context, pool *pgxpool.Pool, client int) (int, error) {
		q, take := db.New(pool), &takes[client]
		rows, err := q.ClaimsTakeSlots(ctx, *take)
		if err != nil || len(rows) == 0 {
			take.AfterID = 0
			return 0, nil
		}
		req := db.DoneRequest{Downloader: take.Nicks[0], Version: "1", Bytes: int64(1000 * len(rows)), Domains: []byte(`{"data":1000}`)}
		for _, r := range rows {
			req.Names = append(req.Names, r.Name)
			take.AfterID = max(take.AfterID, r.ID)
		}
		done := db.DoneRecordBatchParams{ProjectID: project, Requests: []db.DoneRequest{req}}
		if _, err := q.DoneRecordBatch(ctx, done); err != nil {
			return 0, nil
		}
		return len(rows), nil
	})
}

// topStatements lists the statements that took most of PostgreSQL's time
// during a run, per second of run.
func (b *bench) topStatements(ctx context.Context, secs float64) []string {
	rows, err := b.pool.Query(ctx, `
		SELECT left(regexp_replace(query, '\s+', ' ', 'g'), 70), calls, total_exec_time, total_exec_time / calls
		FROM pg_stat_statements
		WHERE query NOT LIKE '%pg_stat_statements%'
		ORDER BY total_exec_time DESC LIMIT 6`)
	if err != nil {
		return nil
	}
	defer rows.Close()
	var top []string
	for rows.Next() {
		var q string
		var calls int64
		var total, mean float64
		if rows.Scan(&q, &calls, &total, &mean) == nil {
			top = append(top, fmt.Sprintf("%.0f ms/s in %.0f calls/s of %.3f ms: `%s`", total/secs, float64(calls)/secs, mean, q))
		}
	}
	return top
}

// postgresCPU is the CPU time of the PostgreSQL servers: the embedded
// cluster's, or every node's the bench started.
func (b *bench) postgresCPU() float64 {
	if b.nodes == nil {
		return nodes.ClusterCPUSeconds(b.postmaster())
	}
	total := 0.0
	for _, pm := range b.nodes.Postmasters() {
		total += nodes.ClusterCPUSeconds(pm)
	}
	return total
}

// postmaster is the embedded server's PID.
func (b *bench) postmaster() int { return nodes.PostmasterOf(filepath.Join(b.dir, "pgdata")) }

// sweeps measures how throughput holds as the queue grows a hundredfold and
// while a long transaction keeps vacuum from cleaning up, and how long the
// import of 10,000,000 names takes.
func (b *bench) sweeps(ctx context.Context) error {
	const small = 100_000
	large := b.o.Large
	clients := 64
	if b.o.Clients > 0 {
		clients = b.o.Clients
	}
	run := func(name string, queue int, note string) (*report.Row, error) {
		if err := b.drain(ctx); err != nil {
			return nil, err
		}
		took, err := b.fill(queue, fmt.Sprintf("sweep:%d:", time.Now().UnixNano()))
		if err != nil {
			return nil, err
		}
		r := b.measure(ctx, name, clients, func(ctx context.Context, l *load.Load) []func() {
			var fs []func()
			for i := range clients {
				fs = append(fs, func() { l.Warrior(ctx, fmt.Sprintf("w%d", i), 1) })
			}
			return fs
		}, note)
		if queue == large {
			r.Note += fmt.Sprintf("; import of %d names took %.1f s (%.0f names/s), the importing command's peak RSS %d MB",
				queue, took.Seconds(), float64(queue)/took.Seconds(), b.cliPeakRSS>>20)
			copied, err := b.copyYardstick(ctx, queue, "sweep:copy:")
			if err != nil {
				return nil, err
			}
			r.Note += fmt.Sprintf("; a COPY of as many names into an unindexed table took %.1f s: the import ran at %.2f × COPY", copied.Seconds(), copied.Seconds()/took.Seconds())
		}
		return r, nil
	}
	smallRow, err := run("queue-100k", small, "single warriors on a 100,000-item queue")
	if err != nil {
		return err
	}
	largeRow, err := run(fmt.Sprintf("queue-%dk", large/1000), large, "")
	if err != nil {
		return err
	}
	largeRow.Note = fmt.Sprintf("single warriors on a %d-item queue: %.2f × the 100k queue", large, largeRow.ItemsPerS/smallRow.ItemsPerS) + largeRow.Note

	if err := b.longTxSweep(ctx, func(name string) (*report.Row, error) { return run(name, small, "") }); err != nil {
		return err
	}
	return b.dedupSweep(ctx, b.o.DedupSeen)
}

// longTxSweep runs the load of run for -long-tx, without and then with a
// REPEATABLE READ transaction held open elsewhere, which it ends on return.
func (b *bench) longTxSweep(ctx context.Context, run func(name string) (*report.Row, error)) error {
	saved := b.o.Duration
	b.o.Duration = b.o.LongTx
	defer func() { b.o.Duration = saved }()
	without, err := run("no-long-tx")
	if err != nil {
		return err
	}
	conn, err := b.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	tx, err := conn.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead})
	if err != nil {
		return err
	}
	defer tx.Rollback(context.Background())
	var n int
	if err := tx.QueryRow(ctx, "SELECT count(*) FROM projects").Scan(&n); err != nil { // takes the snapshot
		return err
	}
	with, err := run("long-tx")
	if err != nil {
		return err
	}
	without.Note = "single warriors, 100k queue, the baseline of long-tx"
	with.Note = fmt.Sprintf("the same with a REPEATABLE READ transaction open throughout: %.2f × without", with.ItemsPerS/without.ItemsPerS)
	return nil
}
