// Package db is the tracker's database layer: the sqlc queries in queries/
// with their generated Go code, the statements sqlc cannot hold because
// they name a table at run time (partitions.go), the connection pool,
// migrations and transactions. Nothing above this package writes SQL.
package db

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// defaultMaxConns is the pool size when the address does not set one.
const defaultMaxConns = 24

// An Option changes how Open sets up the pool's connections.
type Option func(*pgxpool.Config)

// StatementTimeout makes PostgreSQL cancel any statement of the pool that
// runs longer than d: for the pool of web requests, where one slow
// statement must not hold a connection every other request waits for.
// Jobs and imports, whose work may take long, use a pool without it.
func StatementTimeout(d time.Duration) Option {
	return func(cfg *pgxpool.Config) {
		cfg.ConnConfig.RuntimeParams["statement_timeout"] = fmt.Sprint(d.Milliseconds())
	}
}

// MaxConns sets the pool's size, whatever the address says: for a pool
// whose size is a limit of its own (the public read routes').
func MaxConns(n int32) Option {
	return func(cfg *pgxpool.Config) { cfg.MaxConns = n }
}

// ApplicationName names the pool's connections in pg_stat_activity.
func ApplicationName(name string) Option {
	return func(cfg *pgxpool.Config) { cfg.ConnConfig.RuntimeParams["application_name"] = name }
}

// Open connects a pool to the database named by dsn (a URL or a key=value
// connection string) and checks that it answers.
func Open(ctx context.Context, dsn string, opts ...Option) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("database address: %w", err)
	}
	rt := cfg.ConnConfig.RuntimeParams
	if rt["application_name"] == "" {
		rt["application_name"] = "tracker"
	}
	// A transaction left open by a stuck request stops vacuum, and claims
	// slow down with every dead row vacuum cannot remove.
	if rt["idle_in_transaction_session_timeout"] == "" {
		rt["idle_in_transaction_session_timeout"] = "60000"
	}
	// Every statement of the tracker reaches its rows through an index. A
	// table ANALYZE last saw empty (claims, between two busy spells) makes a
	// sequential scan look cheapest, and a generic plan made then stays
	// cached while the table grows to millions of rows: keep the planner
	// on the indexes. Where no index fits, a sequential scan still runs.
	if rt["enable_seqscan"] == "" {
		rt["enable_seqscan"] = "off"
	}
	// Fail fast while the database is away instead of stacking up requests.
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = 5 * time.Second
	}
	// pgxpool's default is max(4, cores): fewer than the engine's batches in
	// flight (claims and completions, each several at once) plus the pages
	// and the jobs. pool_max_conns in the address still decides.
	if !strings.Contains(dsn, "pool_max_conns") {
		cfg.MaxConns = defaultMaxConns
	}
	cfg.AfterConnect = registerBatchTypes
	for _, o := range opts {
		o(cfg)
	}
	// Every pool on this address drops what the server left behind when
	// any of them finds it gone (server_watch.go).
	watchFor(dsn).install(cfg)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := pool.Ping(pingCtx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("connect to the database: %w", err)
	}
	return pool, nil
}

// TxStarter begins transactions: a pool, a connection, or a transaction
// (whose "transaction" is a savepoint).
type TxStarter interface {
	Begin(context.Context) (pgx.Tx, error)
}

// WithTx runs fn in a transaction, committed when fn returns nil and rolled
// back otherwise.
func WithTx(ctx context.Context, pool TxStarter, fn func(q *Queries) error) error {
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error { return fn(Of(tx)) })
}
