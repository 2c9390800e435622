// Package dbtest gives tests real PostgreSQL databases. One throwaway
// cluster serves a whole `go test` run (every package's test binary joins
// it, the last one stops it), or the server $DATABASE_URL names when set.
// Each test gets a database of its own, cloned from a migrated template in a
// few milliseconds and dropped when the test ends. With TRACKER_TEST_CITUS=1
// (CitusEnv) the databases are a local Citus cluster's instead.
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
	"errors"
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
	"github.com/jackc/pgx/v5/pgconn"
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

	// In a Citus run: the cluster, and the maintenance databases of its
	// nodes, coordinator (admin) first. A database is made and dropped on
	// every node.
	citus      *CitusCluster
	nodeAdmins []*pgxpool.Pool
)

// Main runs the package's tests, then leaves the shared cluster.
func Main(m *testing.M) { os.Exit(Run(m)) }

// Run is Main for a package whose TestMain has more to do after the tests:
// it returns their exit code.
func Run(m *testing.M) int {
	code := m.Run()
	if admin != nil && citus == nil {
		admin.Close()
	}
	for _, pool := range nodeAdmins {
		pool.Close()
	}
	if citus != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		if err := citus.Release(ctx); err != nil {
			fmt.Fprintln(os.Stderr, "dbtest: stopping the Citus test cluster:", err)
		}
		cancel()
	}
	if cluster != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		if err := cluster.Release(ctx); err != nil {
			fmt.Fprintln(os.Stderr, "dbtest: stopping the test cluster:", err)
		}
		cancel()
	}
	return code
}

func setup() error {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if citusMode() {
		if err := setupCitus(ctx); err != nil {
			return err
		}
		return buildTemplate(ctx)
	}
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
	if citus != nil {
		template += "_citus" + db.CitusLayoutVersion
	}

	conn, err := admin.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock(hashtext('dbtest template'))"); err != nil {
		return err
	}
	defer conn.Exec(context.Background(), "SELECT pg_advisory_unlock(hashtext('dbtest template'))")
	if citus != nil {
		if err := buildCitusBase(ctx); err != nil {
			return fmt.Errorf("citus base database: %w", err)
		}
	}
	exists, err := databaseExists(ctx, conn, template)
	if err != nil || exists {
		return err
	}
	building := template + "_building"
	if citus != nil {
		for _, node := range nodeAdmins {
			if _, err := node.Exec(ctx, "DROP DATABASE IF EXISTS "+ident(building)+" WITH (FORCE)"); err != nil {
				return err
			}
		}
		if err := cloneCitus(ctx, building, citusBase); err != nil {
			return err
		}
	} else {
		if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+ident(building)); err != nil {
			return err
		}
		if _, err := conn.Exec(ctx, "CREATE DATABASE "+ident(building)); err != nil {
			return err
		}
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
	if citus != nil {
		return sealTemplate(ctx, building, template)
	}
	_, err = conn.Exec(ctx, fmt.Sprintf("ALTER DATABASE %s RENAME TO %s", ident(building), ident(template)))
	return err
}

func ready(t testing.TB) {
	t.Helper()
	setupOnce.Do(func() { setupErr = setup() })
	if errors.Is(setupErr, ErrNoCitus) {
		t.Skipf("%s=1: %v", CitusEnv, setupErr)
	}
	if setupErr != nil {
		t.Fatalf("test database: %v", setupErr)
	}
}

// NewDSN creates a fresh, migrated database for the test and returns its
// connection string. The database is dropped when the test ends.
func NewDSN(t testing.TB) string {
	ready(t)
	return create(t, template)
}

// NewEmptyDSN creates a fresh database without any schema (in a Citus run:
// with the extension, its nodes registered).
func NewEmptyDSN(t testing.TB) string {
	ready(t)
	if citus != nil {
		return create(t, citusBase)
	}
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

// create makes a test database from template ("": none), dropped when the
// test ends.
func create(t testing.TB, template string) string {
	t.Helper()
	b := make([]byte, 6)
	rand.Read(b)
	name := "test_" + hex.EncodeToString(b)
	ctx := context.Background()
	nodes := nodeAdmins
	if citus == nil {
		nodes = []*pgxpool.Pool{admin}
	}
	t.Cleanup(func() {
		for _, node := range nodes {
			if err := drop(ctx, node, name); err != nil {
				t.Errorf("drop test database: %v", err)
			}
		}
	})
	if citus != nil {
		if err := cloneCitus(ctx, name, template); err != nil {
			t.Fatalf("create test database: %v", err)
		}
		return dsnFor(name)
	}
	suffix := ""
	if template != "" {
		suffix = "TEMPLATE " + ident(template)
	}
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+ident(name)+" "+suffix); err != nil {
		t.Fatalf("create test database: %v", err)
	}
	return dsnFor(name)
}

// dsnFor is the server's connection string with another database name.
func dsnFor(name string) string { return withDB(server, name) }

// withDB is a connection string with another database name.
func withDB(dsn, name string) string {
	if strings.Contains(dsn, "://") {
		u, err := url.Parse(dsn)
		if err == nil {
			u.Path = "/" + name
			return u.String()
		}
	}
	return dsn + " dbname=" + name
}

func ident(s string) string { return pgx.Identifier{s}.Sanitize() }

// drop drops a test database, whoever is connected. On a loaded machine a
// session may take longer to go than PostgreSQL waits for it (5 s): it is
// asked again, then named in the error.
func drop(ctx context.Context, node *pgxpool.Pool, name string) error {
	var err error
	for range 3 {
		_, err = node.Exec(ctx, "DROP DATABASE IF EXISTS "+ident(name)+" WITH (FORCE)")
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.Code != "55006" {
			return err
		}
	}
	rows, qerr := node.Query(ctx, "SELECT format('%s %s %s %s', pid, backend_type, state, left(query, 200)) FROM pg_stat_activity WHERE datname = $1", name)
	if qerr == nil {
		sessions, _ := pgx.CollectRows(rows, pgx.RowTo[string])
		err = fmt.Errorf("%w: %v", err, sessions)
	}
	return err
}
