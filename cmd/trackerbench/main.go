// Command trackerbench measures the tracker under warrior load. It starts a
// tracker of its own on a fresh embedded cluster (or loads one given with
// -url), fills the queue, runs each scenario for a fixed time with
// keep-alive clients that behave like warriors, grab scripts and page
// readers, and prints one table: items/s, requests/s, latency percentiles by
// endpoint, non-2xx answers, and the CPU and peak memory of the tracker and
// of PostgreSQL. Beside each warrior scenario it measures the raw SQL floor:
// the same claim and completion statements run straight on the database.
package main

import (
	"bufio"
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
	"tracker/bench/nodes"
	"tracker/bench/report"

	"github.com/jackc/pgx/v5/pgxpool"

	"tracker/db"
)

type options struct {
	binary    string
	scenarios []string
	duration  time.Duration
	clients   int // 0: each scenario's own default
	queue     int // 0: enough for the scenario's run
	multi     int
	floor     bool
	river     bool
	viewers   int
	sweep     bool
	large     int
	longTx    time.Duration
	dedupSeen int
	soak      bool
	pageItems int
	pageNicks int
	// The recurring scenario's small and large lists.
	recurringSmall, recurringLarge int
	// The frontier scenario's URL items, their sites, and the fewer sites
	// its claim cost is compared with (0: a tenth).
	frontierItems, frontierSites, frontierFewSites int
	diskItems                                      int // items the disk scenario queues and completes
	// The field scenario's warriors, its first arrival rate (item requests
	// a second) and the scale of its work times (1: 5-60 s).
	fieldWarriors             int
	fieldRate, fieldWorkScale float64
	// Whether the field project refuses dones from another network than
	// their claim's (claimer_network).
	fieldClaimerNetwork bool

	// The nodes the bench starts itself: Citus workers (0: one node) and
	// each node's memory limit; how the dedup sweep fills its names.
	dedupWorkers int
	citusShards  int
	nodeMemory   nodes.Bytes
	dedupFill    string
	dedupRounds  int
}

func main() {
	var o options
	var scenarios string
	flag.StringVar(&o.binary, "tracker", "bin/tracker", "the tracker binary to start")
	flag.StringVar(&scenarios, "scenarios", "disk,single,single:8,single:4,single-lifecycle,multi,multi-lifecycle,multi-documents,backfeed,mixed,lookup,readers,readers-200,connection-hog,admin-search,viewers,recurring,pages,frontier", "scenarios to run, in order")
	flag.DurationVar(&o.duration, "duration", 20*time.Second, "how long each scenario runs")
	flag.IntVar(&o.clients, "clients", 0, "clients per scenario (0: single 64, multi 16, backfeed 8, mixed 64, lookup 32+8, readers 32 (+8 readers), readers-200 32 (+200 readers), connection-hog 32 (+ a client holding 10,000 connections), admin-search 32 (+30 admins), frontier 64+16: a fifth multi)")
	flag.IntVar(&o.queue, "queue", 0, "items queued before each warrior scenario (0: enough for its run)")
	flag.IntVar(&o.multi, "multi", 100, "items per multi request")
	flag.BoolVar(&o.floor, "floor", true, "measure the raw SQL floor beside the warrior scenarios")
	flag.IntVar(&o.viewers, "viewers", 10_000, "viewers of the viewers scenario, each holding the board's live stream from an address of its own beside 32 single warriors (the tracker started with streams and connections enough for them)")
	flag.BoolVar(&o.river, "river", true, "with -floor: run River, the Go job queue on PostgreSQL, beside the warrior scenarios, with as many workers as each holds items")
	flag.BoolVar(&o.sweep, "sweep", false, "also run the scale sweeps: a 100,000 vs 10,000,000 item queue, a long transaction held open, the import of 10,000,000 names against a COPY of them, and backfeed into a project that has seen 1,000,000 vs 100,000,000 names")
	flag.IntVar(&o.large, "large-queue", 10_000_000, "the large queue of the sweep, against 100,000")
	flag.IntVar(&o.dedupSeen, "dedup-seen", 100_000_000, "names a project has seen in the second backfeed run of the sweep, against 1,000,000")
	flag.IntVar(&o.dedupWorkers, "dedup-workers", 0, "run on a Citus cluster the bench starts, a coordinator and this many workers (0: one PostgreSQL node); meant for -scenarios dedup")
	flag.IntVar(&o.citusShards, "citus-shards", 0, "with -dedup-workers: the shards of each distributed table (0: one a worker; a backfeed post writes to each shard of the dedup records it touches, one statement a shard)")
	flag.Var(&o.nodeMemory, "node-memory", "start the PostgreSQL nodes in the bench (not in the tracker) with each node's processes in a cgroup v1 memory cgroup limited to this (4GiB, 512MiB; needs root), and shared_buffers a quarter of it (0: no limit)")
	flag.StringVar(&o.dedupFill, "dedup-fill", "import", "how the dedup sweep fills its names past 1,000,000: import (tracker items add) or sql (the rows an import writes, made by SQL on the database: quicker)")
	flag.IntVar(&o.dedupRounds, "dedup-rounds", 1, "how many times the dedup sweep measures each of its two projects, in turn")
	flag.DurationVar(&o.longTx, "long-tx", 60*time.Second, "duration of the long-transaction sweep")
	flag.BoolVar(&o.soak, "soak", false, "instead of the scenarios: the mixed load for -duration with faults injected at random (the tracker killed and restarted, PostgreSQL stopped for 10 s), then the books checked")
	flag.IntVar(&o.pageItems, "page-items", 1_000_000, "items queued in the project the pages scenario reads")
	flag.IntVar(&o.pageNicks, "page-downloaders", 100_000, "downloaders of the project the pages scenario reads")
	flag.IntVar(&o.recurringSmall, "recurring-small", 100_000, "items of the recurring scenario's small list")
	flag.IntVar(&o.recurringLarge, "recurring-large", 10_000_000, "items of the recurring scenario's large list")
	flag.IntVar(&o.diskItems, "disk-items", 500_000, "items the disk scenario queues and completes")
	flag.IntVar(&o.frontierItems, "frontier-items", 2_000_000, "URL items of each of the frontier scenario's projects")
	flag.IntVar(&o.frontierSites, "frontier-sites", 200_000, "sites the frontier scenario's items are drawn from (Zipf, s=1.1)")
	flag.IntVar(&o.frontierFewSites, "frontier-few-sites", 0, "sites of the frontier project its claim cost is compared with, as many items (0: a tenth of -frontier-sites)")
	flag.IntVar(&o.fieldWarriors, "field-warriors", 100_000, "warriors of the field scenario, each holding a keep-alive connection to one of its 3 tracker processes")
	flag.Float64Var(&o.fieldRate, "field-rate", 50, "the field scenario's first arrival rate, item requests per second; each step raises it by half")
	flag.Float64Var(&o.fieldWorkScale, "field-work-scale", 1, "scale of the field warriors' work times (1: 5-60 s an item; 0.1 for short runs)")
	flag.BoolVar(&o.fieldClaimerNetwork, "field-claimer-network", false, "the field project refuses dones from another network than their claim's (claimer_network); off, it counts them")
	flag.Parse()
	o.scenarios = strings.Split(scenarios, ",")
	if o.dedupFill != "import" && o.dedupFill != "sql" {
		fmt.Fprintln(os.Stderr, "trackerbench: -dedup-fill: import or sql")
		os.Exit(2)
	}
	if o.dedupWorkers < 0 || o.citusShards < 0 {
		fmt.Fprintln(os.Stderr, "trackerbench: -dedup-workers, -citus-shards: 0 or more")
		os.Exit(2)
	}
	log.SetFlags(0)
	log.SetPrefix("trackerbench: ")

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o); err != nil {
		log.Fatal(err)
	}
}

// bench is a tracker under test.
type bench struct {
	o       options
	dir     string
	url     string
	serve   *exec.Cmd
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

func run(ctx context.Context, o options) error {
	dir, err := os.MkdirTemp("", "trackerbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	os.Chmod(dir, 0o755) // PostgreSQL's own account must reach it when run as root
	b := &bench{o: o, dir: filepath.Join(dir, "data"), project: "bench"}
	if o.soak {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		b.addr = l.Addr().String()
		l.Close()
	}
	if o.dedupWorkers > 0 || o.nodeMemory > 0 {
		if b.nodes, err = nodes.Start(ctx, b.dir, o.dedupWorkers, o.citusShards, int64(o.nodeMemory)); err != nil {
			return err
		}
		// After the tracker's: it leaves the nodes first.
		defer b.nodes.Stop()
		log.Print(b.nodes.Describe())
	}
	if slices.Contains(o.scenarios, "field") {
		// The tracker processes inherit the limit: every one of them
		// holds its share of the field's connections.
		if err := raiseOpenFiles(uint64(o.fieldWarriors + fieldGrabScripts + 1000)); err != nil {
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

	if o.soak {
		return b.soak(ctx)
	}
	for _, s := range o.scenarios {
		if ctx.Err() != nil {
			break
		}
		if err := b.scenario(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	if o.sweep && ctx.Err() == nil {
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
	addr := cmp.Or(b.addr, "127.0.0.1:0")
	b.serve = exec.Command(b.o.binary, "serve", "--addr", addr, "--data-dir", b.dir)
	b.serve.Env = b.env()
	stderr, err := b.serve.StderrPipe()
	if err != nil {
		return err
	}
	if err := b.serve.Start(); err != nil {
		return err
	}
	found := make(chan string, 1)
	go func() {
		re := regexp.MustCompile(`msg="tracker listening" url=(http://\S+)/`)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
			if strings.Contains(sc.Text(), "level=ERROR") {
				log.Print("tracker: ", sc.Text())
			}
		}
	}()
	select {
	case b.url = <-found:
		return nil
	case <-time.After(2 * time.Minute):
		return fmt.Errorf("the tracker did not start")
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (b *bench) stop() {
	b.serve.Process.Signal(syscall.SIGTERM)
	b.serve.Wait()
}

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
	if b.nodes != nil && b.nodes.DatabaseURL() != "" {
		env = append(env, "DATABASE_URL="+b.nodes.DatabaseURL())
	}
	if slices.ContainsFunc(b.o.scenarios, func(s string) bool { return strings.HasPrefix(s, "viewers") }) {
		// One process holds every viewer's stream: past the defaults
		// (1,000 streams, 10,000 connections less the warriors' reserve).
		env = append(env, fmt.Sprintf("TRACKER_MAX_STREAMS=%d", b.o.viewers+100), fmt.Sprintf("TRACKER_MAX_CONNS=%d", max(10_000, b.o.viewers+2_000)))
	}
	if slices.Contains(b.o.scenarios, "field") {
		// A process takes a third of the field's warriors, each on a
		// keep-alive connection of its own: past the default of 10,000
		// at 30,000 warriors and more.
		env = append(env, fmt.Sprintf("TRACKER_MAX_CONNS=%d", max(10_000, b.o.fieldWarriors/fieldTrackers*5/4+2*fieldGrabScripts+1000)))
	}
	return env
}

// cli runs a tracker command on the bench's data directory.
func (b *bench) cli(stdin string, args ...string) (string, error) {
	return b.cliFrom(strings.NewReader(stdin), args...)
}

func (b *bench) cliFrom(stdin io.Reader, args ...string) (string, error) {
	cmd := exec.Command(b.o.binary, append(args, "--data-dir", b.dir)...)
	cmd.Env = b.env()
	cmd.Stdin = stdin
	out, err := cmd.Output()
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		b.cliPeakRSS = ru.Maxrss << 10 // kB on Linux
	}
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return "", fmt.Errorf("tracker %s: %v: %s", strings.Join(args, " "), err, ee.Stderr)
		}
		return "", err
	}
	return string(out), nil
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
