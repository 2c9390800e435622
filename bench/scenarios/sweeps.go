package scenarios

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"tracker/bench/load"
	"tracker/bench/report"
)

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
