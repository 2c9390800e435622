package scenarios

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
	"tracker/bench/load"

	"tracker/pgcluster"
)

// soak runs the mixed load for the run's duration while faults strike at
// random every 20-40 s: the tracker killed with SIGKILL and started again,
// or PostgreSQL stopped for 10 s. Then it lets the queues settle and prints
// the books (`tracker check`), failing when they do not balance.
func (b *bench) soak(ctx context.Context) error {
	if _, err := b.cli("", "project", "set", b.project, "reclaim_ttl=30"); err != nil {
		return err
	}
	// Enough items for the warriors of a slow machine; grab scripts add more.
	if err := b.refill(ctx, 10_000); err != nil {
		return err
	}
	faults := make(chan string, 64)
	runCtx, cancel := context.WithTimeout(ctx, b.o.Duration)
	defer cancel()
	go func() {
		defer close(faults)
		for {
			select {
			case <-runCtx.Done():
				return
			case <-time.After(time.Duration(20+rand.IntN(20)) * time.Second):
			}
			if rand.IntN(2) == 0 {
				faults <- b.killTracker(runCtx)
			} else {
				faults <- b.stopPostgres(runCtx)
			}
		}
	}()
	n := 64
	b.measure(ctx, "soak", n, func(ctx context.Context, l *load.Load) []func() {
		var fs []func()
		for i := range n {
			switch i % 4 {
			case 0:
				fs = append(fs, func() { l.Warrior(ctx, fmt.Sprintf("m%d", i), b.o.Multi) })
			case 1:
				fs = append(fs, func() { l.GrabScript(ctx, 1000+i) })
			default:
				fs = append(fs, func() { l.Warrior(ctx, fmt.Sprintf("s%d", i), 1) })
			}
		}
		return fs
	}, "the mixed load with faults injected")
	var injected []string
	for f := range faults {
		injected = append(injected, f)
	}
	fmt.Fprintf(os.Stderr, "soak: faults: %s\n", strings.Join(injected, "; "))
	// Let the rollup fold what the last seconds appended.
	time.Sleep(5 * time.Second)
	out, err := b.cli("", "check", b.project)
	fmt.Println(out)
	if err != nil {
		return fmt.Errorf("the books do not balance after %d faults: %w", len(injected), err)
	}
	fmt.Printf("soak: %s with %d faults (%s); the books balance\n", b.o.Duration, len(injected), strings.Join(injected, ", "))
	return nil
}

// killTracker kills the tracker without a word and starts it again on the
// same address.
func (b *bench) killTracker(ctx context.Context) string {
	b.serve.Kill()
	if err := b.start(ctx); err != nil {
		return "tracker killed, restart failed: " + err.Error()
	}
	return "tracker killed"
}

// stopPostgres stops the embedded PostgreSQL at once and starts it again
// 10 s later.
func (b *bench) stopPostgres(ctx context.Context) string {
	bins, err := pgcluster.FindBinaries()
	if err != nil {
		return err.Error()
	}
	pgdata := filepath.Join(b.dir, "pgdata")
	run := func(args ...string) error {
		argv := append([]string{bins.PgCtl}, args...)
		if os.Geteuid() == 0 {
			argv = append([]string{"runuser", "-u", "postgres", "--"}, argv...)
		}
		out, err := exec.CommandContext(context.WithoutCancel(ctx), argv[0], argv[1:]...).CombinedOutput()
		if err != nil {
			return fmt.Errorf("%v: %s", err, out)
		}
		return nil
	}
	if err := run("stop", "--mode", "immediate", "--pgdata", pgdata); err != nil {
		return "PostgreSQL stop failed: " + err.Error()
	}
	time.Sleep(10 * time.Second)
	if err := run("start", "--wait", "--pgdata", pgdata, "--log", filepath.Join(b.dir, "postgres.log")); err != nil {
		return "PostgreSQL restart failed: " + err.Error()
	}
	return "PostgreSQL away 10 s"
}
