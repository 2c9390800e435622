package dbtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"tracker/db"
	"tracker/pgcluster"
)

// CitusEnv, set to 1, makes every database the package hands out a
// database of a local Citus cluster (a coordinator and two workers), laid
// out as `tracker migrate` lays out a Citus database: the same tests then
// run against distributed tables.
const CitusEnv = "TRACKER_TEST_CITUS"

// ErrNoCitus means the Citus extension is not installed into the
// PostgreSQL the tests run: the Citus tests need it.
var ErrNoCitus = pgcluster.ErrNoCitus

// CitusCluster is a local Citus cluster: a coordinator and two workers, each
// a throwaway PostgreSQL cluster like the plain test cluster's, with citus
// preloaded. They reach each other by their unix sockets only.
type CitusCluster struct {
	*pgcluster.Citus
}

// CitusWorkers is how many workers a test cluster has.
const CitusWorkers = 2

// citusSettings are the test settings with citus preloaded. Each database
// with the extension keeps a background worker of its own (Citus's
// maintenance daemon) on every node, so a node serving many test databases
// at once needs many; few shards make the layout and the clones of a
// database quick while still spreading every distributed table over both
// workers.
func citusSettings() map[string]string {
	s := map[string]string{
		"shared_preload_libraries": "'citus'",
		"max_worker_processes":     "256",
		"citus.shard_count":        "4",
	}
	for k, v := range testSettings {
		s[k] = v
	}
	return s
}

// CitusInstalled reports whether the system's PostgreSQL has the Citus
// extension.
func CitusInstalled() bool { return pgcluster.CitusInstalled() }

// StartCitus starts (or joins, as pgcluster.Acquire does) the Citus
// cluster under dir: dir/coordinator, dir/worker1, dir/worker2. It fails
// with ErrNoCitus when the extension is not installed. Release it when done.
func StartCitus(ctx context.Context, dir string) (*CitusCluster, error) {
	c, err := pgcluster.StartCitus(ctx, dir, CitusWorkers, pgcluster.Options{Settings: citusSettings()})
	if err != nil {
		return nil, err
	}
	return &CitusCluster{c}, nil
}

// citusMode says whether the databases handed out are Citus databases.
func citusMode() bool { return os.Getenv(CitusEnv) == "1" }

// RequireCitus skips the test unless the run hands out Citus databases
// (CitusEnv).
func RequireCitus(t testing.TB) {
	t.Helper()
	if !citusMode() {
		t.Skipf("a Citus test: runs with %s=1 (make test-citus)", CitusEnv)
	}
	ready(t)
}

// CitusNode is a worker of the Citus test cluster.
type CitusNode struct {
	Name string // as Citus names it (citus_shards.nodename): its socket directory
	DSN  string // of the test database on it
}

// Workers are the workers of the Citus cluster, each with the connection
// string of the database behind dsn (one of New's or NewDSN's) on it, in a
// Citus run.
func Workers(t testing.TB, dsn string) []CitusNode {
	t.Helper()
	RequireCitus(t)
	name, err := dbName(dsn)
	if err != nil {
		t.Fatal(err)
	}
	var nodes []CitusNode
	for _, w := range citus.Workers {
		nodes = append(nodes, CitusNode{Name: w.Dir(), DSN: withDB(w.AdminDSN(), name)})
	}
	return nodes
}

// setupCitus starts the Citus cluster and opens the nodes' maintenance
// databases, coordinator first.
func setupCitus(ctx context.Context) error {
	dir := os.Getenv("TRACKER_TEST_CITUS_CLUSTER")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), fmt.Sprintf("tracker-citus-%d", os.Getuid()))
	}
	var err error
	if citus, err = StartCitus(ctx, dir); err != nil {
		return err
	}
	for _, dsn := range citus.AdminDSNs() {
		pool, err := db.Open(ctx, dsn)
		if err != nil {
			return err
		}
		nodeAdmins = append(nodeAdmins, pool)
	}
	server, admin = citus.AdminDSNs()[0], nodeAdmins[0]
	return nil
}

// citusBase is the database every Citus database is cloned from: the
// extension on every node, the nodes registered. Its name changes with
// what it holds.
const citusBase = "tracker_citus_base_1"

// buildCitusBase makes the base database on every node unless it exists.
// The caller holds the template lock.
func buildCitusBase(ctx context.Context) error {
	exists, err := databaseExists(ctx, admin, citusBase)
	if err != nil || exists {
		return err
	}
	building := citusBase + "_building"
	for _, node := range nodeAdmins {
		if _, err := node.Exec(ctx, "DROP DATABASE IF EXISTS "+ident(building)+" WITH (FORCE)"); err != nil {
			return err
		}
		if _, err := node.Exec(ctx, "CREATE DATABASE "+ident(building)); err != nil {
			return err
		}
	}
	if err := citus.Setup(ctx, building); err != nil {
		return err
	}
	return sealTemplate(ctx, building, citusBase)
}

// cloneCitus makes database name from template on every node: a Citus
// database is its coordinator's and its workers' databases together, and
// clones of all of them are a working copy (workers are reached by the
// name of the database they serve).
func cloneCitus(ctx context.Context, name, template string) error {
	// Copying the files is quicker than logging every page of the many
	// tables a Citus database has; the nodes copy side by side.
	return onNodes(func(node *pgxpool.Pool) error {
		_, err := node.Exec(ctx, "CREATE DATABASE "+ident(name)+" TEMPLATE "+ident(template)+" STRATEGY FILE_COPY")
		return err
	})
}

// onNodes runs fn for every node at once.
func onNodes(fn func(node *pgxpool.Pool) error) error {
	errs := make([]error, len(nodeAdmins))
	var wg sync.WaitGroup
	for i, node := range nodeAdmins {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = fn(node)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// sealTemplate renames database from to to on every node and closes it to
// connections: a database can only be cloned while nobody is connected,
// and Citus keeps a background worker connected to each of its databases
// until told to go.
func sealTemplate(ctx context.Context, from, to string) error {
	for _, node := range nodeAdmins {
		if _, err := node.Exec(ctx, "ALTER DATABASE "+ident(from)+" ALLOW_CONNECTIONS false"); err != nil {
			return err
		}
		if _, err := node.Exec(ctx, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()", from); err != nil {
			return err
		}
		if _, err := node.Exec(ctx, "ALTER DATABASE "+ident(from)+" RENAME TO "+ident(to)); err != nil {
			return err
		}
	}
	return nil
}

func databaseExists(ctx context.Context, q Querier, name string) (bool, error) {
	var exists bool
	err := q.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists)
	return exists, err
}

// dbName reads the database name from a connection string of this package.
func dbName(dsn string) (string, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return "", err
	}
	if cfg.Database == "" || strings.ContainsAny(cfg.Database, " '") {
		return "", fmt.Errorf("no database in %q", dsn)
	}
	return cfg.Database, nil
}

// NewCitus starts a Citus cluster of the test's own (a coordinator and two
// workers, in a new directory), for a test that stops its nodes: the
// cluster every other test shares must stay up. It holds a migrated
// database; the cluster stops when the test ends. Like the other Citus
// tests, the test runs in a Citus run only (CitusEnv), and skips when
// Citus is not installed.
func NewCitus(t testing.TB) (*CitusCluster, string) {
	t.Helper()
	if !citusMode() {
		t.Skipf("a Citus test: runs with %s=1 (make test-citus)", CitusEnv)
	}
	if !CitusInstalled() {
		t.Skip(ErrNoCitus)
	}
	ctx := context.Background()
	// Short: a socket's path is at most 107 bytes.
	dir, err := os.MkdirTemp("", "citus-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil { // the postgres user, when run as root
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	c, err := StartCitus(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Release(context.Background()); err != nil {
			t.Errorf("stopping the Citus cluster: %v", err)
		}
	})
	// Each node made its database "tracker" when it first started.
	if err := c.Setup(ctx, pgcluster.Database); err != nil {
		t.Fatal(err)
	}
	dsn := c.Coordinator.DSN()
	pool, err := db.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if _, err := db.MigrateUp(pool); err != nil {
		t.Fatal(err)
	}
	return c, dsn
}

// Kill stops a worker as a crash would: SIGKILL to its postmaster.
func (c *CitusCluster) Kill(t testing.TB, worker int) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(c.Workers[worker].Dir(), "postmaster.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0]))
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// Dead, or a zombie nobody reaps (its parent, pg_ctl, is gone): its
	// pid file would still name a live process, and keep the worker from
	// starting again.
	Eventually(t, func() bool {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if errors.Is(err, os.ErrNotExist) {
			return true
		}
		if _, state, ok := strings.Cut(string(b), ") "); ok && strings.HasPrefix(state, "Z") {
			return os.Remove(filepath.Join(c.Workers[worker].Dir(), "postmaster.pid")) == nil
		}
		return false
	}, "the killed worker gone")
}

// Restart starts a worker Kill stopped again, once its last processes are
// gone (a backend of a killed postmaster goes when it next looks).
func (c *CitusCluster) Restart(t testing.TB, worker int) {
	t.Helper()
	dir := filepath.Dir(c.Workers[worker].Dir())
	var node *pgcluster.Cluster
	Eventually(t, func() bool {
		var err error
		node, err = pgcluster.Acquire(context.Background(), dir, pgcluster.Options{Settings: citusSettings()})
		return err == nil
	}, "the worker starts again")
	t.Cleanup(func() { node.Release(context.Background()) })
}
