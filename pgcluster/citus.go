package pgcluster

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/jackc/pgx/v5"
)

// ErrNoCitus means the Citus extension is not installed into the system's
// PostgreSQL.
var ErrNoCitus = errors.New("the Citus extension is not installed into the system's PostgreSQL (citus.so: build Citus 13 for it, as .ci/run does)")

// Citus is a local Citus cluster: a coordinator and workers, each a
// cluster of this package in a directory of its own, with citus preloaded.
// They reach each other by their unix sockets only. The tests start one,
// and so does the benchmark that measures a project spread over workers.
type Citus struct {
	Coordinator *Cluster
	Workers     []*Cluster
	ports       []int // coordinator first, then the workers
}

// CitusInstalled reports whether the system's PostgreSQL has the Citus
// extension.
func CitusInstalled() bool {
	bins, err := FindBinaries()
	return err == nil && bins.HasLibrary("citus")
}

// StartCitus starts (or joins, as Acquire does) a Citus cluster of a
// coordinator and workers under dir: dir/coordinator, dir/worker1, ...
// Every node gets opts; citus is preloaded unless opts name the preloaded
// libraries themselves (then they must name citus first). It fails with
// ErrNoCitus when the extension is not installed. Release it when done.
func StartCitus(ctx context.Context, dir string, workers int, opts Options) (*Citus, error) {
	if !CitusInstalled() {
		return nil, ErrNoCitus
	}
	settings := map[string]string{"shared_preload_libraries": "'citus'"}
	for k, v := range opts.Settings {
		settings[k] = v
	}
	opts.Settings = settings
	c := &Citus{}
	names := []string{"coordinator"}
	for i := 1; i <= workers; i++ {
		names = append(names, fmt.Sprintf("worker%d", i))
	}
	for _, name := range names {
		node, err := Acquire(ctx, filepath.Join(dir, name), opts)
		if err != nil {
			c.Release(ctx)
			return nil, fmt.Errorf("citus %s: %w", name, err)
		}
		if c.Coordinator == nil {
			c.Coordinator = node
		} else {
			c.Workers = append(c.Workers, node)
		}
		port, err := nodePort(ctx, node.AdminDSN())
		if err != nil {
			c.Release(ctx)
			return nil, fmt.Errorf("citus %s: %w", name, err)
		}
		c.ports = append(c.ports, port)
	}
	return c, nil
}

// Release leaves every node (stopping those no other process uses).
func (c *Citus) Release(ctx context.Context) error {
	var errs []error
	for _, n := range c.Nodes() {
		errs = append(errs, n.Release(ctx))
	}
	return errors.Join(errs...)
}

// Nodes lists the coordinator, then the workers.
func (c *Citus) Nodes() []*Cluster {
	var all []*Cluster
	if c.Coordinator != nil {
		all = append(all, c.Coordinator)
	}
	return append(all, c.Workers...)
}

// AdminDSNs are the maintenance databases of the nodes, coordinator first.
func (c *Citus) AdminDSNs() []string {
	var dsns []string
	for _, n := range c.Nodes() {
		dsns = append(dsns, n.AdminDSN())
	}
	return dsns
}

// Setup makes database, which must exist on every node, a Citus database:
// the extension created in it on every node, then the coordinator named
// and the workers added in the coordinator's.
func (c *Citus) Setup(ctx context.Context, database string) error {
	for _, n := range c.Nodes() {
		conn, err := pgx.Connect(ctx, n.databaseDSN(database))
		if err != nil {
			return err
		}
		_, err = conn.Exec(ctx, "CREATE EXTENSION citus")
		conn.Close(ctx)
		if err != nil {
			return fmt.Errorf("CREATE EXTENSION citus in %s: %w", n.Dir(), err)
		}
	}
	return c.Register(ctx, c.Coordinator.databaseDSN(database))
}

// Register makes the database behind the coordinator's dsn a Citus
// database: it names the coordinator and adds the workers, each by its
// socket directory. The extension must be created in the database on
// every node first.
func (c *Citus) Register(ctx context.Context, dsn string) error {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "SELECT citus_set_coordinator_host($1, $2)", c.Coordinator.Dir(), c.ports[0]); err != nil {
		return fmt.Errorf("citus_set_coordinator_host: %w", err)
	}
	for i, w := range c.Workers {
		if _, err := conn.Exec(ctx, "SELECT citus_add_node($1, $2)", w.Dir(), c.ports[i+1]); err != nil {
			return fmt.Errorf("citus_add_node %s: %w", w.Dir(), err)
		}
	}
	return nil
}

// databaseDSN is the connection string of another database of the
// cluster.
func (c *Cluster) databaseDSN(name string) string {
	return fmt.Sprintf("host=%s user=%s dbname='%s' sslmode=disable", c.pgdata, Role, strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(name))
}

func nodePort(ctx context.Context, dsn string) (int, error) {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return 0, err
	}
	defer conn.Close(ctx)
	var port int
	err = conn.QueryRow(ctx, "SELECT current_setting('port')::integer").Scan(&port)
	return port, err
}
