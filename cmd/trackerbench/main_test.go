package main

import (
	"flag"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"tracker/bench/scenarios"
)

func parse(t *testing.T, args ...string) (scenarios.Options, error) {
	t.Helper()
	fs := flag.NewFlagSet("trackerbench", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return parseFlags(fs, args)
}

// The defaults are those make bench runs with and docs/BENCHMARKS.md
// quotes.
func TestFlagDefaults(t *testing.T) {
	o, err := parse(t)
	if err != nil {
		t.Fatal(err)
	}
	want := "disk,single,single:8,single:4,single-lifecycle,multi,multi-lifecycle,multi-documents,backfeed,mixed,lookup,readers,readers-200,connection-hog,admin-search,viewers,recurring,pages,frontier"
	if got := strings.Join(o.Scenarios, ","); got != want {
		t.Errorf("scenarios %s, want %s", got, want)
	}
	if o.Binary != "bin/tracker" || o.Duration != 20*time.Second || o.Multi != 100 || !o.Floor || !o.River ||
		o.Viewers != 10_000 || o.Large != 10_000_000 || o.DedupSeen != 100_000_000 || o.LongTx != time.Minute ||
		o.DedupFill != "import" || o.DedupRounds != 1 || o.FieldWarriors != 100_000 || o.FieldRate != 50 || o.FieldWorkScale != 1 ||
		o.Clients != 0 || o.Queue != 0 || o.NodeMemory != 0 || o.Sweep || o.Soak {
		t.Errorf("defaults: %+v", o)
	}
}

// A documented command line reads as written.
func TestFlagsOfACommandLine(t *testing.T) {
	o, err := parse(t, "-tracker", "bin/other", "-scenarios", "dedup", "-dedup-seen", "100000000", "-dedup-fill", "sql",
		"-dedup-workers", "2", "-node-memory", "4GiB", "-duration", "10s", "-floor=false")
	if err != nil {
		t.Fatal(err)
	}
	if o.Binary != "bin/other" || !slices.Equal(o.Scenarios, []string{"dedup"}) || o.DedupFill != "sql" || o.DedupWorkers != 2 ||
		o.NodeMemory != 4<<30 || o.Duration != 10*time.Second || o.Floor {
		t.Errorf("read %+v", o)
	}
}

func TestFlagsRefused(t *testing.T) {
	for _, args := range [][]string{
		{"-dedup-fill", "copy"},
		{"-dedup-workers", "-1"},
		{"-citus-shards", "-2"},
		{"-node-memory", "lots"},
		{"-no-such-flag"},
	} {
		if _, err := parse(t, args...); err == nil {
			t.Errorf("%v: no error", args)
		}
	}
}
