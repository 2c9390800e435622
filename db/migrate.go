package db

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/golang-migrate/migrate/v4"
	"github.com/golang-migrate/migrate/v4/database/pgx/v5"
	"github.com/golang-migrate/migrate/v4/source/iofs"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"

	"tracker/migrations"
)

// MigrateUp brings the schema to the newest migration, then, on a Citus
// coordinator, lays it out over the workers (CitusLayout). It reports
// whether anything changed; an up-to-date schema is not an error. The
// pool's connections are made anew afterwards: one opened before the
// schema had the batch types (registerBatchTypes), here or while another
// process was migrating, could not pass batches.
func MigrateUp(pool *pgxpool.Pool) (changed bool, err error) {
	err = withMigrate(pool, func(m *migrate.Migrate) error {
		newest, err := newestMigration()
		if err != nil {
			return err
		}
		// A newer release has migrated the database while this one still
		// runs (a rolling upgrade, see docs/OPERATIONS.md): its migrations
		// keep the schema usable by the release before, so this process
		// starts on it rather than refuse, as golang-migrate would, not
		// knowing the version.
		if v, dirty, err := m.Version(); err == nil && !dirty && v > newest {
			return fmt.Errorf("%w: version %d, this release knows up to %d", ErrSchemaNewer, v, newest)
		}
		return m.Up()
	})
	if errors.Is(err, ErrSchemaNewer) {
		return false, err
	}
	if err != nil && !errors.Is(err, migrate.ErrNoChange) {
		return false, err
	}
	changed = err == nil
	pool.Reset()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	laid, err := CitusLayout(ctx, pool)
	return changed || laid, err
}

// ErrSchemaNewer is MigrateUp's answer when the database is at a version
// newer than this release's migrations: nothing was migrated, and the
// schema may be used as it is.
var ErrSchemaNewer = errors.New("the database schema is newer than this release")

// newestMigration is the version of the newest embedded migration.
func newestMigration() (uint, error) {
	src, err := iofs.New(migrations.FS, ".")
	if err != nil {
		return 0, err
	}
	defer src.Close()
	v, err := src.First()
	for err == nil {
		var next uint
		if next, err = src.Next(v); err == nil {
			v = next
		}
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return 0, err
	}
	return v, nil
}

// MigrateDown undoes every migration.
func MigrateDown(pool *pgxpool.Pool) error {
	err := withMigrate(pool, func(m *migrate.Migrate) error { return m.Down() })
	if errors.Is(err, migrate.ErrNoChange) {
		return nil
	}
	return err
}

// MigrateTo moves the schema up or down to version: what a test of one
// migration's data starts from. The pool's connections are made anew, as
// after MigrateUp.
func MigrateTo(pool *pgxpool.Pool, version uint) error {
	err := withMigrate(pool, func(m *migrate.Migrate) error { return m.Migrate(version) })
	pool.Reset()
	if errors.Is(err, migrate.ErrNoChange) {
		return nil
	}
	return err
}

// SchemaVersion returns the applied migration and whether a failed migration
// left the schema dirty.
func SchemaVersion(pool *pgxpool.Pool) (version uint, dirty bool, err error) {
	err = withMigrate(pool, func(m *migrate.Migrate) error {
		version, dirty, err = m.Version()
		if errors.Is(err, migrate.ErrNilVersion) {
			return nil
		}
		return err
	})
	return version, dirty, err
}

// withMigrate runs fn with a migrator over the embedded migrations on a
// connection of pool. golang-migrate serialises concurrent runs with an
// advisory lock, so several tracker processes may start at once.
func withMigrate(pool *pgxpool.Pool, fn func(*migrate.Migrate) error) error {
	src, err := iofs.New(migrations.FS, ".")
	if err != nil {
		return err
	}
	sqlDB := stdlib.OpenDBFromPool(pool)
	defer sqlDB.Close()
	driver, err := pgx.WithInstance(sqlDB, &pgx.Config{})
	if err != nil {
		return fmt.Errorf("migrations: %w", err)
	}
	m, err := migrate.NewWithInstance("iofs", src, "pgx5", driver)
	if err != nil {
		return fmt.Errorf("migrations: %w", err)
	}
	defer m.Close()
	if err := fn(m); err != nil {
		if errors.Is(err, migrate.ErrNoChange) {
			return err
		}
		return fmt.Errorf("migrations: %w", err)
	}
	return nil
}
