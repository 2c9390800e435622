package scenarios

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"tracker/bench/load"
	"tracker/bench/nodes"
	"tracker/bench/report"
)

// measure runs a scenario's clients for the run's duration and records a row.
func (b *bench) measure(ctx context.Context, name string, clients int, workers func(context.Context, *load.Load) []func(), note string) *report.Row {
	return b.measureOn(ctx, b.project, b.key, name, clients, workers, note)
}

// measureOn is measure on another project than the bench's own.
func (b *bench) measureOn(ctx context.Context, project, key, name string, clients int, workers func(context.Context, *load.Load) []func(), note string) *report.Row {
	l := &load.Load{Base: b.url, Project: project, BackfeedKey: key, Stats: load.NewStats()}
	b.pool.Exec(ctx, "SELECT pg_stat_statements_reset()")
	cpu0, pg0, load0 := nodes.CPUSeconds(b.serve.PID()), b.postgresCPU(), nodes.CPUSeconds(os.Getpid())
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
		TrackerS:  (nodes.CPUSeconds(b.serve.PID()) - cpu0) / secs,
		PostgresS: (b.postgresCPU() - pg0) / secs,
		LoadS:     (nodes.CPUSeconds(os.Getpid()) - load0) / secs,
		RSSMB:     float64(nodes.PeakRSS(b.serve.PID())) / (1 << 20),
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
