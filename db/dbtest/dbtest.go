// Package dbtest gives tests real PostgreSQL databases. One throwaway
// cluster serves a whole `go test` run (every package's test binary joins
// it, the last one stops it), or the server $DATABASE_URL names when set.
// Each test gets a database of its own, cloned from a migrated template in a
// few milliseconds and dropped when the test ends.
//
// A package using it runs its tests through Main:
//
//	func TestMain(m *testing.M) { dbtest.Main(m) }
package dbtest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"tracker/db"
	"tracker/migrations"
	"tracker/pgcluster"
)

// Settings of the test cluster: durability is worth nothing in a throwaway
// cluster, speed is.
var testSettings = map[string]string{
	"fsync":              "off",
	"synchronous_commit": "off",
	"full_page_writes":   "off",
	"shared_buffers":     "256MB",
	"max_connections":    "400",
}

var (
	setupOnce sync.Once
	setupErr  error
	cluster   *pgcluster.Cluster
	server    string // DSN of the server's maintenance database
	admin     *pgxpool.Pool
	template  string
)

// Main runs the package's tests, then leaves the shared cluster.
func Main(m *testing.M) {
	code := m.Run()
	if admin != nil {
		admin.Close()
	}
	if cluster != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		if err := cluster.Release(ctx); err != nil {
			fmt.Fprintln(os.Stderr, "dbtest: stopping the test cluster:", err)
		}
		cancel()
	}
	os.Exit(code)
}

func setup() error {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if server = os.Getenv("DATABASE_URL"); server == "" {
		dir := os.Getenv("TRACKER_TEST_CLUSTER")
		if dir == "" {
			dir = filepath.Join(os.TempDir(), fmt.Sprintf("tracker-test-%d", os.Getuid()))
		}
		var err error
		cluster, err = pgcluster.Acquire(ctx, dir, pgcluster.Options{Settings: testSettings})
		if err != nil {
			return err
		}
		server = cluster.AdminDSN()
	}
	var err error
	if admin, err = db.Open(ctx, server); err != nil {
		return err
	}
	return buildTemplate(ctx)
}

// buildTemplate makes the migrated template database, named after a hash of
// the migrations so a changed schema gets a new one. Test binaries running
// side by side build it once between them.
func buildTemplate(ctx context.Context) error {
	sum := sha256.New()
	err := fs.WalkDir(migrations.FS, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(migrations.FS, path)
		sum.Write([]byte(path))
		sum.Write(b)
		return err
	})
	if err != nil {
		return err
	}
	template = "tracker_template_" + hex.EncodeToString(sum.Sum(nil))[:12]

	conn, err := admin.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock(hashtext('dbtest template'))"); err != nil {
		return err
	}
	defer conn.Exec(context.Background(), "SELECT pg_advisory_unlock(hashtext('dbtest template'))")
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", template).Scan(&exists); err != nil {
		return err
	}
	if exists {
		return nil
	}
	building := template + "_building"
	if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+ident(building)); err != nil {
		return err
	}
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+ident(building)); err != nil {
		return err
	}
	pool, err := db.Open(ctx, dsnFor(building))
	if err != nil {
		return err
	}
	_, err = db.MigrateUp(pool)
	pool.Close()
	if err != nil {
		return err
	}
	_, err = conn.Exec(ctx, fmt.Sprintf("ALTER DATABASE %s RENAME TO %s", ident(building), ident(template)))
	return err
}

func ready(t testing.TB) {
	t.Helper()
	setupOnce.Do(func() { setupErr = setup() })
	if setupErr != nil {
		t.Fatalf("test database: %v", setupErr)
	}
}

// NewDSN creates a fresh, migrated database for the test and returns its
// connection string. The database is dropped when the test ends.
func NewDSN(t testing.TB) string {
	ready(t)
	return create(t, "TEMPLATE "+ident(template))
}

// NewEmptyDSN creates a fresh database without any schema.
func NewEmptyDSN(t testing.TB) string {
	ready(t)
	return create(t, "")
}

// New returns a pool on a fresh, migrated database, closed and dropped when
// the test ends.
func New(t testing.TB) *pgxpool.Pool {
	t.Helper()
	dsn := NewDSN(t)
	pool, err := db.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	// Cleanups run last-in first-out: the pool closes before the drop.
	t.Cleanup(pool.Close)
	return pool
}

func create(t testing.TB, suffix string) string {
	t.Helper()
	b := make([]byte, 6)
	rand.Read(b)
	name := "test_" + hex.EncodeToString(b)
	ctx := context.Background()
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+ident(name)+" "+suffix); err != nil {
		t.Fatalf("create test database: %v", err)
	}
	t.Cleanup(func() {
		if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+ident(name)+" WITH (FORCE)"); err != nil {
			t.Errorf("drop test database: %v", err)
		}
	})
	return dsnFor(name)
}

// dsnFor is the server's connection string with another database name.
func dsnFor(name string) string {
	if strings.Contains(server, "://") {
		u, err := url.Parse(server)
		if err == nil {
			u.Path = "/" + name
			return u.String()
		}
	}
	return server + " dbname=" + name
}

func ident(s string) string { return pgx.Identifier{s}.Sanitize() }
