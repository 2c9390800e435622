// Package scenarios holds the bench's scenarios, one file each, and the
// tracker under test they share: a tracker process of its own on a fresh
// cluster, its CLI for projects and imports, and the pool on its database
// for the floors and yardsticks measured beside it. A scenario adds rows
// (bench/report) measured with the clients of bench/load on the processes
// bench/nodes reads.
package scenarios

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"tracker/bench/nodes"
	"tracker/bench/report"
	"tracker/db"
)

// Options are the bench's flags, read once in main: how long and with how
// many clients each scenario runs, and each scenario's own sizes. A zero
// where a flag's help says so means the scenario's own default.
type Options struct {
	Binary    string   // the tracker binary to start
	Scenarios []string // run in this order; a name may end in :N clients
	Duration  time.Duration
	Clients   int  // 0: each scenario's own default
	Queue     int  // 0: enough for the scenario's run
	Multi     int  // items a multi request asks for
	Floor     bool // measure the raw SQL floor and yardsticks beside warrior scenarios
	River     bool // with Floor: River beside them too
	Viewers   int  // viewers of the viewers scenario
	// DebugAddr is where the tracker the bench starts serves its profiles
	// (tracker serve --debug-addr; "": none), to read where its CPU goes
	// during a scenario.
	DebugAddr string
	// Sweep runs the scale sweeps after the scenarios: the Large queue
	// against 100,000, a LongTx transaction held open, and dedup at
	// DedupSeen names against 1,000,000.
	Sweep     bool
	Large     int
	LongTx    time.Duration
	DedupSeen int
	Soak      bool // the soak instead of the scenarios
	// The pages scenario's project: its queued items and downloaders.
	PageItems, PageNicks int
	// The recurring scenario's small and large lists.
	RecurringSmall, RecurringLarge int
	// The frontier scenario's URL items, their sites, and the fewer sites
	// its claim cost is compared with (0: a tenth).
	FrontierItems, FrontierSites, FrontierFewSites int
	DiskItems                                      int // items the disk scenario queues and completes
	// The field scenario's warriors, its first arrival rate (item requests
	// a second) and the scale of its work times (1: 5-60 s).
	FieldWarriors             int
	FieldRate, FieldWorkScale float64
	// Whether the field project refuses dones from another network than
	// their claim's (claimer_network).
	FieldClaimerNetwork bool

	// The nodes the bench starts itself: Citus workers (0: one node) and
	// each node's memory limit; how the dedup sweep fills its names.
	DedupWorkers int
	CitusShards  int
	NodeMemory   nodes.Bytes
	DedupFill    string
	DedupRounds  int
}

// bench is a tracker under test.
type bench struct {
	o       Options
	dir     string
	url     string
	serve   *nodes.Tracker
	dsn     string
	pool    *pgxpool.Pool
	key     string
	project string
	rows    []*report.Row
	addr    string // fixed by the soak, so a restarted tracker keeps its address
	// cliPeakRSS is the peak resident memory of the last tracker command
	// run (an import), in bytes.
	cliPeakRSS int64
	goals      []report.Goal // the frontier's goals, when it ran
	// The PostgreSQL nodes the bench started, or nil: the tracker starts
	// its embedded cluster.
	nodes *nodes.Nodes
}

// Run starts a tracker (and the nodes it runs on, when o asks for them),
// runs o's scenarios in turn, or the soak, and prints the result table on
// standard output.
func Run(ctx context.Context, o Options) error {
	dir, err := os.MkdirTemp("", "trackerbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	os.Chmod(dir, 0o755) // PostgreSQL's own account must reach it when run as root
	b := &bench{o: o, dir: filepath.Join(dir, "data"), project: "bench"}
	if o.Soak {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		b.addr = l.Addr().String()
		l.Close()
	}
	if o.DedupWorkers > 0 || o.NodeMemory > 0 {
		if b.nodes, err = nodes.Start(ctx, b.dir, o.DedupWorkers, o.CitusShards, int64(o.NodeMemory)); err != nil {
			return err
		}
		// After the tracker's: it leaves the nodes first.
		defer b.nodes.Stop()
		log.Print(b.nodes.Describe())
	}
	if slices.Contains(o.Scenarios, "field") {
		// The tracker processes inherit the limit: every one of them
		// holds its share of the field's connections.
		if err := raiseOpenFiles(uint64(o.FieldWarriors + fieldGrabScripts + 1000)); err != nil {
			return err
		}
	}
	if err := b.start(ctx); err != nil {
		return err
	}
	defer b.stop()

	if b.key, err = b.createProject(b.project, "Benchmark"); err != nil {
		return err
	}
	b.dsn = fmt.Sprintf("host=%s user=tracker dbname=tracker", filepath.Join(b.dir, "pgdata"))
	if b.nodes != nil {
		b.dsn = b.nodes.DSN()
	}
	if b.pool, err = db.Open(ctx, b.dsn); err != nil {
		return err
	}
	defer b.pool.Close()
	if _, err := b.pool.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements"); err != nil {
		log.Printf("no statement statistics: %v", err)
	}

	if o.Soak {
		return b.soak(ctx)
	}
	for _, s := range o.Scenarios {
		if ctx.Err() != nil {
			break
		}
		if err := b.scenario(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	if o.Sweep && ctx.Err() == nil {
		if err := b.sweeps(ctx); err != nil {
			return err
		}
	}
	report.Print(os.Stdout, b.rows, b.goals)
	return nil
}

// start runs `tracker serve` on the data directory, on b.addr (any free
// port when empty).
func (b *bench) start(ctx context.Context) error {
	t, err := nodes.StartTracker(ctx, b.o.Binary, cmp.Or(b.addr, "127.0.0.1:0"), b.dir, b.env())
	if t != nil {
		b.serve, b.url = t, t.URL
	}
	return err
}

func (b *bench) stop() { b.serve.Stop() }

// benchEnv keeps DATABASE_URL away: the bench owns its cluster.
func benchEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "DATABASE_URL=") && !strings.HasPrefix(kv, "TRACKER_") {
			env = append(env, kv)
		}
	}
	return env
}

// env is the tracker's environment: benchEnv, and the Citus coordinator's
// database when the bench started one.
func (b *bench) env() []string {
	env := benchEnv()
	if b.o.DebugAddr != "" {
		env = append(env, "TRACKER_DEBUG_ADDR="+b.o.DebugAddr)
	}
	if b.nodes != nil && b.nodes.DatabaseURL() != "" {
		env = append(env, "DATABASE_URL="+b.nodes.DatabaseURL())
	}
	if slices.ContainsFunc(b.o.Scenarios, func(s string) bool { return strings.HasPrefix(s, "viewers") }) {
		// One process holds every viewer's stream: past the defaults
		// (1,000 streams, 10,000 connections less the warriors' reserve).
		env = append(env, fmt.Sprintf("TRACKER_MAX_STREAMS=%d", b.o.Viewers+100), fmt.Sprintf("TRACKER_MAX_CONNS=%d", max(10_000, b.o.Viewers+2_000)))
	}
	if slices.Contains(b.o.Scenarios, "field") {
		// A process takes a third of the field's warriors, each on a
		// keep-alive connection of its own: past the default of 10,000
		// at 30,000 warriors and more.
		env = append(env, fmt.Sprintf("TRACKER_MAX_CONNS=%d", max(10_000, b.o.FieldWarriors/fieldTrackers*5/4+2*fieldGrabScripts+1000)))
	}
	return env
}

// cli runs a tracker command on the bench's data directory.
func (b *bench) cli(stdin string, args ...string) (string, error) {
	return b.cliFrom(strings.NewReader(stdin), args...)
}

func (b *bench) cliFrom(stdin io.Reader, args ...string) (string, error) {
	out, peak, err := nodes.RunCLI(b.o.Binary, b.dir, b.env(), stdin, args...)
	b.cliPeakRSS = peak
	return out, err
}

// createProject creates a project and returns its backfeed key.
func (b *bench) createProject(slug, title string) (string, error) {
	if _, err := b.cli("", "project", "create", slug, "--title", title); err != nil {
		return "", err
	}
	show, err := b.cli("", "project", "show", slug)
	if err != nil {
		return "", err
	}
	m := regexp.MustCompile(`"backfeed_key": "([^"]+)"`).FindStringSubmatch(show)
	if m == nil {
		return "", fmt.Errorf("no backfeed key in %s", show)
	}
	return m[1], nil
}

// fill queues n fresh names through `tracker items add` and returns how long
// the import took.
func (b *bench) fill(n int, prefix string) (time.Duration, error) {
	return b.fillLines(b.project, n, func(w *bufio.Writer, i int) {
		w.WriteString(prefix)
		w.WriteString(strconv.Itoa(i))
		w.WriteByte('\n')
	})
}

// fillLines queues n lines, written by line, into a project through
// `tracker items add`, and returns how long the import took.
func (b *bench) fillLines(project string, n int, line func(w *bufio.Writer, i int)) (time.Duration, error) {
	pr, pw := io.Pipe()
	go func() {
		w := bufio.NewWriterSize(pw, 1<<20)
		for i := range n {
			line(w, i)
		}
		w.Flush()
		pw.Close()
	}()
	start := time.Now()
	out, err := b.cliFrom(pr, "items", "add", project)
	if err != nil {
		return 0, err
	}
	if want := fmt.Sprintf("added %d, skipped 0\n", n); out != want {
		return 0, fmt.Errorf("items add printed %q, want %q", out, want)
	}
	return time.Since(start), nil
}

// drain empties the queues and claims, so each scenario starts alike, and
// keeps the counters and the sites' counts in step. The tracker may still
// be finishing the last run's requests: try again until they are through.
func (b *bench) drain(ctx context.Context) error {
	var err error
	for range 5 {
		time.Sleep(500 * time.Millisecond)
		_, err = b.pool.Exec(ctx, `
			WITH t AS (DELETE FROM todo RETURNING project_id), c AS (DELETE FROM claims RETURNING project_id),
			     s AS (UPDATE sites SET queued = 0, out = 0 WHERE queued <> 0 OR out <> 0)
			DELETE FROM counters WHERE name = 'claims' OR name LIKE 'queue:%'`)
		if err == nil {
			_, err = b.pool.Exec(ctx, "VACUUM ANALYZE todo, claims")
			return err
		}
	}
	return err
}
