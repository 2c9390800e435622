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
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"tracker/bench/scenarios"
)

func main() {
	o, err := parseFlags(flag.CommandLine, os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "trackerbench:", err)
		os.Exit(2)
	}
	log.SetFlags(0)
	log.SetPrefix("trackerbench: ")

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := scenarios.Run(ctx, o); err != nil {
		log.Fatal(err)
	}
}

// parseFlags reads the bench's flags from args into Options; the help
// texts and defaults are those docs/BENCHMARKS.md quotes. fs exits on a
// flag it does not know, as flag.CommandLine does; the checks that need
// more than one flag return an error.
func parseFlags(fs *flag.FlagSet, args []string) (scenarios.Options, error) {
	var o scenarios.Options
	var list string
	fs.StringVar(&o.Binary, "tracker", "bin/tracker", "the tracker binary to start")
	fs.StringVar(&list, "scenarios", "disk,single,single:8,single:4,single-lifecycle,multi,multi-lifecycle,multi-documents,backfeed,mixed,lookup,readers,readers-200,connection-hog,admin-search,viewers,recurring,pages,frontier", "scenarios to run, in order")
	fs.DurationVar(&o.Duration, "duration", 20*time.Second, "how long each scenario runs")
	fs.IntVar(&o.Clients, "clients", 0, "clients per scenario (0: single 64, multi 16, backfeed 8, mixed 64, lookup 32+8, readers 32 (+8 readers), readers-200 32 (+200 readers), connection-hog 32 (+ a client holding 10,000 connections), admin-search 32 (+30 admins), frontier 64+16: a fifth multi)")
	fs.IntVar(&o.Queue, "queue", 0, "items queued before each warrior scenario (0: enough for its run)")
	fs.IntVar(&o.Multi, "multi", 100, "items per multi request")
	fs.BoolVar(&o.Floor, "floor", true, "measure the raw SQL floor beside the warrior scenarios")
	fs.IntVar(&o.Viewers, "viewers", 10_000, "viewers of the viewers scenario, each holding the board's live stream from an address of its own beside 32 single warriors (the tracker started with streams and connections enough for them)")
	fs.StringVar(&o.DebugAddr, "debug-addr", "", "where the tracker serves Go's profiles of itself (its --debug-addr; the field's first process), to take a CPU profile during a scenario: go tool pprof http://ADDR/debug/pprof/profile?seconds=N")
	fs.BoolVar(&o.River, "river", true, "with -floor: run River, the Go job queue on PostgreSQL, beside the warrior scenarios, with as many workers as each holds items")
	fs.BoolVar(&o.Sweep, "sweep", false, "also run the scale sweeps: a 100,000 vs 10,000,000 item queue, a long transaction held open, the import of 10,000,000 names against a COPY of them, and backfeed into a project that has seen 1,000,000 vs 100,000,000 names")
	fs.IntVar(&o.Large, "large-queue", 10_000_000, "the large queue of the sweep, against 100,000")
	fs.IntVar(&o.DedupSeen, "dedup-seen", 100_000_000, "names a project has seen in the second backfeed run of the sweep, against 1,000,000")
	fs.IntVar(&o.DedupWorkers, "dedup-workers", 0, "run on a Citus cluster the bench starts, a coordinator and this many workers (0: one PostgreSQL node); meant for -scenarios dedup")
	fs.IntVar(&o.CitusShards, "citus-shards", 0, "with -dedup-workers: the shards of each distributed table (0: one a worker; a backfeed post writes to each shard of the dedup records it touches, one statement a shard)")
	fs.Var(&o.NodeMemory, "node-memory", "start the PostgreSQL nodes in the bench (not in the tracker) with each node's processes in a cgroup v1 memory cgroup limited to this (4GiB, 512MiB; needs root), and shared_buffers a quarter of it (0: no limit)")
	fs.StringVar(&o.DedupFill, "dedup-fill", "import", "how the dedup sweep fills its names past 1,000,000: import (tracker items add) or sql (the rows an import writes, made by SQL on the database: quicker)")
	fs.IntVar(&o.DedupRounds, "dedup-rounds", 1, "how many times the dedup sweep measures each of its two projects, in turn")
	fs.DurationVar(&o.LongTx, "long-tx", 60*time.Second, "duration of the long-transaction sweep")
	fs.BoolVar(&o.Soak, "soak", false, "instead of the scenarios: the mixed load for -duration with faults injected at random (the tracker killed and restarted, PostgreSQL stopped for 10 s), then the books checked")
	fs.IntVar(&o.PageItems, "page-items", 1_000_000, "items queued in the project the pages scenario reads")
	fs.IntVar(&o.PageNicks, "page-downloaders", 100_000, "downloaders of the project the pages scenario reads")
	fs.IntVar(&o.RecurringSmall, "recurring-small", 100_000, "items of the recurring scenario's small list")
	fs.IntVar(&o.RecurringLarge, "recurring-large", 10_000_000, "items of the recurring scenario's large list")
	fs.IntVar(&o.DiskItems, "disk-items", 500_000, "items the disk scenario queues and completes")
	fs.IntVar(&o.FrontierItems, "frontier-items", 2_000_000, "URL items of each of the frontier scenario's projects")
	fs.IntVar(&o.FrontierSites, "frontier-sites", 200_000, "sites the frontier scenario's items are drawn from (Zipf, s=1.1)")
	fs.IntVar(&o.FrontierFewSites, "frontier-few-sites", 0, "sites of the frontier project its claim cost is compared with, as many items (0: a tenth of -frontier-sites)")
	fs.IntVar(&o.FieldWarriors, "field-warriors", 100_000, "warriors of the field scenario, each holding a keep-alive connection to one of its 3 tracker processes")
	fs.Float64Var(&o.FieldRate, "field-rate", 50, "the field scenario's first arrival rate, item requests per second; each step raises it by half")
	fs.Float64Var(&o.FieldWorkScale, "field-work-scale", 1, "scale of the field warriors' work times (1: 5-60 s an item; 0.1 for short runs)")
	fs.BoolVar(&o.FieldClaimerNetwork, "field-claimer-network", false, "the field project refuses dones from another network than their claim's (claimer_network); off, it counts them")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	o.Scenarios = strings.Split(list, ",")
	if o.DedupFill != "import" && o.DedupFill != "sql" {
		return o, errors.New("-dedup-fill: import or sql")
	}
	if o.DedupWorkers < 0 || o.CitusShards < 0 {
		return o, errors.New("-dedup-workers, -citus-shards: 0 or more")
	}
	return o, nil
}
