package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"tracker/db"
	"tracker/pgcluster"
)

// database is an open, migrated database: $DATABASE_URL's, or the embedded
// cluster in the data directory.
type database struct {
	pool    *pgxpool.Pool
	dsn     string
	cluster *pgcluster.Cluster // nil with $DATABASE_URL
}

// openDatabase connects to the tracker's database and brings its schema up
// to date. With no $DATABASE_URL it starts (or joins) the embedded cluster.
func (a *app) openDatabase(ctx context.Context) (*database, error) {
	d := &database{}
	dsn := a.cfg.DatabaseURL
	if dsn == "" {
		c, err := pgcluster.Acquire(ctx, a.cfg.DataDir, pgcluster.Options{Logger: a.log})
		if err != nil {
			return nil, err
		}
		d.cluster, dsn = c, c.DSN()
	}
	pool, err := db.Open(ctx, dsn)
	if err != nil {
		d.close(a)
		return nil, err
	}
	d.pool, d.dsn = pool, dsn
	changed, err := db.MigrateUp(pool)
	if errors.Is(err, db.ErrSchemaNewer) {
		// A rolling upgrade under way: the newer release's migrations
		// leave the schema usable by this one.
		a.log.Warn("a newer release has migrated the database; running on it", "err", err)
		err = nil
	}
	if err != nil {
		d.close(a)
		return nil, err
	}
	if changed {
		v, _, _ := db.SchemaVersion(pool)
		a.log.Info("database schema migrated", "version", v)
	}
	return d, nil
}

// close closes the pool, then leaves the embedded cluster (stopping it when
// no other tracker process uses it).
func (d *database) close(a *app) {
	if d.pool != nil {
		d.pool.Close()
	}
	if d.cluster != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		if err := d.cluster.Release(ctx); err != nil {
			a.log.Error("stopping embedded PostgreSQL", "err", err)
		}
	}
}

// withDatabase runs fn with an open database and closes it afterwards.
func (a *app) withDatabase(ctx context.Context, fn func(*database) error) error {
	d, err := a.openDatabase(ctx)
	if err != nil {
		return err
	}
	defer d.close(a)
	if err := fn(d); err != nil {
		return err
	}
	return nil
}

func printf(a *app, format string, args ...any) { fmt.Fprintf(a.io.out, format, args...) }
