package scenarios

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"

	"tracker/db"
)

// The peer: River, the job queue a Go developer would pick instead of the
// tracker, on the same cluster, working no-op jobs in process (no HTTP, no
// JSON). It takes jobs with SKIP LOCKED and completes them in batches, so
// unlike the floor and the cycle yardstick it is not one commit an item:
// it is what batching on PostgreSQL reaches. Tuned as River's own
// benchmark tunes it (a 2 ms fetch cooldown, a 20 ms poll interval), its
// tables in a schema of their own, made and dropped by each run.

const riverSchema = "river_yardstick"

type riverArgs struct {
	N int `json:"n"`
}

func (riverArgs) Kind() string { return "noop" }

type riverWorker struct {
	river.WorkerDefaults[riverArgs]
}

func (riverWorker) Work(context.Context, *river.Job[riverArgs]) error { return nil }

// riverYardstick works jobs with as many River workers as the scenario
// holds items at once (clients × items a request) for the run's duration,
// counting completions as River reports them (after its completer has
// written them), and returns jobs per second.
func (b *bench) riverYardstick(ctx context.Context, workers, perSecond int) (float64, error) {
	pool, err := db.Open(ctx, b.dsn, db.ApplicationName("river-yardstick"))
	if err != nil {
		return 0, err
	}
	defer pool.Close()
	for _, s := range []string{"DROP SCHEMA IF EXISTS " + riverSchema + " CASCADE", "CREATE SCHEMA " + riverSchema} {
		if _, err := pool.Exec(ctx, s); err != nil {
			return 0, err
		}
	}
	defer b.pool.Exec(context.Background(), "DROP SCHEMA "+riverSchema+" CASCADE")
	driver := riverpgxv5.New(pool)
	quiet := slog.New(slog.DiscardHandler)
	migrator, err := rivermigrate.New(driver, &rivermigrate.Config{Schema: riverSchema, Logger: quiet})
	if err != nil {
		return 0, err
	}
	if _, err := migrator.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return 0, fmt.Errorf("River's migrations: %w", err)
	}

	w := river.NewWorkers()
	river.AddWorker(w, riverWorker{})
	client, err := river.NewClient(driver, &river.Config{
		FetchCooldown:     2 * time.Millisecond,
		FetchPollInterval: 20 * time.Millisecond,
		Logger:            quiet,
		Queues:            map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: workers}},
		Schema:            riverSchema,
		Workers:           w,
	})
	if err != nil {
		return 0, err
	}
	// As many jobs as the run could work, inserted before it starts.
	total := perSecond * int(b.o.Duration/time.Second+1)
	batch := make([]river.InsertManyParams, 0, 5000)
	for i := 0; i < total; i += cap(batch) {
		batch = batch[:0]
		for j := i; j < min(total, i+cap(batch)); j++ {
			batch = append(batch, river.InsertManyParams{Args: riverArgs{N: j}})
		}
		if _, err := client.InsertManyFast(ctx, batch); err != nil {
			return 0, fmt.Errorf("queueing River's jobs: %w", err)
		}
	}
	if _, err := pool.Exec(ctx, "VACUUM ANALYZE "+riverSchema+".river_job"); err != nil {
		return 0, err
	}

	events, cancelEvents := client.SubscribeConfig(&river.SubscribeConfig{ChanSize: total, Kinds: []river.EventKind{river.EventKindJobCompleted}})
	defer cancelEvents()
	var completed atomic.Int64
	runCtx, cancel := context.WithTimeout(ctx, b.o.Duration)
	defer cancel()
	go func() {
		for {
			select {
			case <-runCtx.Done():
				return
			case e := <-events:
				if e == nil {
					return
				}
				completed.Add(1)
			}
		}
	}()
	start := time.Now()
	if err := client.Start(ctx); err != nil {
		return 0, err
	}
	<-runCtx.Done()
	n, secs := completed.Load(), time.Since(start).Seconds()
	stopCtx, stop := context.WithTimeout(context.Background(), time.Minute)
	defer stop()
	if err := client.Stop(stopCtx); err != nil {
		return 0, err
	}
	return float64(n) / secs, nil
}
