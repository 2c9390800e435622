package scenarios

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"tracker/db"
)

// The yardsticks: the simplest durable work PostgreSQL can do for what a
// scenario asks of the tracker, on the bench's own cluster, in scratch
// tables, from as many connections as the scenario has clients, each
// statement its own transaction, with no HTTP and no batching. The
// tracker's goal is to beat them: its batches should make an item cheaper
// than the simplest statement can.

// cycleYardstick claims n items a cycle from a queue (one statement: a
// SKIP LOCKED delete from the queue inserting into a claims table) and
// reports them done (one statement: a delete from the claims inserting into
// a done table), and returns items per second.
func (b *bench) cycleYardstick(ctx context.Context, clients, n, perSecond int) (float64, error) {
	queued := perSecond * int(b.o.Duration/time.Second+1)
	setup := []string{
		"DROP TABLE IF EXISTS yardstick_todo, yardstick_claims, yardstick_done",
		"CREATE TABLE yardstick_todo (id bigint PRIMARY KEY, name text NOT NULL)",
		"CREATE TABLE yardstick_claims (id bigint PRIMARY KEY, name text NOT NULL, downloader text NOT NULL, claimed_at timestamptz NOT NULL)",
		"CREATE TABLE yardstick_done (id bigint NOT NULL, name text NOT NULL, downloader text NOT NULL, bytes bigint NOT NULL, done_at timestamptz NOT NULL)",
		fmt.Sprintf("INSERT INTO yardstick_todo SELECT g, 'item:' || g FROM generate_series(1, %d) g", queued),
		"VACUUM ANALYZE yardstick_todo",
	}
	for _, s := range setup {
		if _, err := b.pool.Exec(ctx, s); err != nil {
			return 0, err
		}
	}
	defer b.pool.Exec(context.Background(), "DROP TABLE yardstick_todo, yardstick_claims, yardstick_done")

	const claim = `
		WITH c AS (DELETE FROM yardstick_todo WHERE id IN (SELECT id FROM yardstick_todo ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED) RETURNING id, name),
		     i AS (INSERT INTO yardstick_claims SELECT id, name, $2, now() FROM c RETURNING id)
		SELECT coalesce(array_agg(id), '{}') FROM i`
	const done = `
		WITH d AS (DELETE FROM yardstick_claims WHERE id = ANY($1) RETURNING id, name, downloader)
		INSERT INTO yardstick_done SELECT id, name, downloader, 1048576, now() FROM d`
	return b.yardstick(ctx, clients, func(ctx context.Context, pool *pgxpool.Pool, client int) (int, error) {
		var ids []int64
		if err := pool.QueryRow(ctx, claim, n, fmt.Sprintf("w%d", client)).Scan(&ids); err != nil || len(ids) == 0 {
			return 0, err
		}
		_, err := pool.Exec(ctx, done, ids)
		return len(ids), err
	})
}

// insertYardstick inserts the names of the backfeed scenario's posts (200
// new and 200 seen before each) into a table keyed like the tracker's
// dedup records, a hash of the name per project, with INSERT … ON CONFLICT
// DO NOTHING, and returns names per second.
func (b *bench) insertYardstick(ctx context.Context, clients int) (float64, error) {
	setup := []string{
		"DROP TABLE IF EXISTS yardstick_seen",
		"CREATE TABLE yardstick_seen (project_id integer NOT NULL, hash bytea NOT NULL, id bigint NOT NULL, PRIMARY KEY (project_id, hash))",
	}
	for _, s := range setup {
		if _, err := b.pool.Exec(ctx, s); err != nil {
			return 0, err
		}
	}
	defer b.pool.Exec(context.Background(), "DROP TABLE yardstick_seen")

	const insert = `
		INSERT INTO yardstick_seen
		SELECT 1, substring(sha256(convert_to(n.name, 'UTF8')) FROM 1 FOR 16), $2 + n.ord
		FROM unnest($1::text[]) WITH ORDINALITY AS n (name, ord)
		ON CONFLICT DO NOTHING`
	var ids atomic.Int64
	posts := make([]int, clients)
	return b.yardstick(ctx, clients, func(ctx context.Context, pool *pgxpool.Pool, client int) (int, error) {
		i := posts[client]
		posts[client]++
		names := make([]string, 0, 400)
		for j := range 200 {
			names = append(names, fmt.Sprintf("url:https://example.org/%d/%d/%d", client, i, j))
		}
		for j := range 200 { // the post before: seen
			names = append(names, fmt.Sprintf("url:https://example.org/%d/%d/%d", client, max(0, i-1), j))
		}
		_, err := pool.Exec(ctx, insert, names, ids.Add(400))
		return len(names), err
	})
}

// yardstick runs cycle from each of clients connections for the run's
// duration and returns the units of work done per second.
func (b *bench) yardstick(ctx context.Context, clients int, cycle func(ctx context.Context, pool *pgxpool.Pool, client int) (int, error)) (float64, error) {
	pool, err := db.Open(ctx, fmt.Sprintf("%s pool_max_conns=%d pool_min_conns=%d", b.dsn, clients, clients))
	if err != nil {
		return 0, err
	}
	defer pool.Close()
	runCtx, cancel := context.WithTimeout(ctx, b.o.Duration)
	defer cancel()
	var total atomic.Int64
	var failed error
	var once sync.Once
	start := time.Now()
	var wg sync.WaitGroup
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for runCtx.Err() == nil {
				n, err := cycle(runCtx, pool, i)
				if err != nil {
					if runCtx.Err() == nil {
						once.Do(func() { failed = err })
						cancel()
					}
					return
				}
				total.Add(int64(n))
			}
		}()
	}
	wg.Wait()
	if failed != nil {
		return 0, failed
	}
	return float64(total.Load()) / time.Since(start).Seconds(), nil
}

// copyYardstick copies n names, as fill writes them, into an unindexed
// table with COPY and returns how long it took.
func (b *bench) copyYardstick(ctx context.Context, n int, prefix string) (time.Duration, error) {
	if _, err := b.pool.Exec(ctx, "CREATE TABLE yardstick_names (name text NOT NULL)"); err != nil {
		return 0, err
	}
	defer b.pool.Exec(context.Background(), "DROP TABLE yardstick_names")
	i := 0
	start := time.Now()
	_, err := b.pool.CopyFrom(ctx, pgx.Identifier{"yardstick_names"}, []string{"name"}, pgx.CopyFromFunc(func() ([]any, error) {
		if i == n {
			return nil, nil
		}
		i++
		return []any{prefix + strconv.Itoa(i-1)}, nil
	}))
	return time.Since(start), err
}
