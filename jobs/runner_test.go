package jobs

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"tracker/db"
	"tracker/db/dbtest"
)

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// Two runners (two tracker processes) with the same job: it runs on
// schedule, never in both at once, and every run is recorded.
func TestRunnersNeverRunAJobTwiceAtOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.New(t)

	var running, overlaps, runs atomic.Int32
	started := make(chan struct{}, 16) // a token for each run, as it starts
	job := Job{Name: "probe", Every: time.Second, Run: func(ctx context.Context) (string, error) {
		if running.Add(1) > 1 {
			overlaps.Add(1)
		}
		defer running.Add(-1)
		runs.Add(1)
		select {
		case started <- struct{}{}:
		default:
		}
		// Longer than the poll, so the other runner tries while it runs.
		select {
		case <-time.After(1500 * time.Millisecond):
		case <-ctx.Done():
			return "", ctx.Err()
		}
		return "probed", nil
	}}
	var runners []*Runner
	for range 2 {
		r := NewRunner(quietLog(), pool, job)
		r.poll = 50 * time.Millisecond
		if err := r.Start(ctx); err != nil {
			t.Fatal(err)
		}
		runners = append(runners, r)
	}
	timeout := time.After(30 * time.Second)
wait:
	for range 3 {
		select {
		case <-started:
		case <-timeout:
			break wait
		}
	}
	for _, r := range runners {
		r.Stop()
	}
	if overlaps.Load() != 0 {
		t.Fatalf("the job ran in both runners at once %d times", overlaps.Load())
	}
	if runs.Load() < 3 {
		t.Fatalf("%d runs in 30 s, want at least 3", runs.Load())
	}
	row, err := db.Of(pool).JobGet(ctx, "probe")
	if err != nil {
		t.Fatal(err)
	}
	// The last run may have been stopped by Stop; every run is counted.
	if row.Runs != int64(runs.Load()) || row.LastStartedAt == nil || row.LastFinishedAt == nil {
		t.Fatalf("job row %+v after %d runs", row, runs.Load())
	}
}

func TestRunnerRecordsOutcomes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.New(t)
	q := db.Of(pool)

	fail := Job{Name: "fail", Every: time.Hour, Run: func(context.Context) (string, error) {
		return "half", errors.New("disk on fire")
	}}
	boom := Job{Name: "boom", Every: time.Hour, Run: func(context.Context) (string, error) { panic("bug") }}
	ok := Job{Name: "ok", Every: time.Hour, Run: func(context.Context) (string, error) { return "did it", nil }}
	r := NewRunner(quietLog(), pool, fail, boom, ok)

	if s, err := r.RunNow(ctx, "ok"); err != nil || s != "did it" {
		t.Fatalf("RunNow(ok) = %q, %v", s, err)
	}
	if _, err := r.RunNow(ctx, "fail"); err == nil {
		t.Fatal("RunNow(fail) reported no error")
	}
	if _, err := r.RunNow(ctx, "boom"); err == nil {
		t.Fatal("RunNow(boom) reported no error")
	}
	if _, err := r.RunNow(ctx, "nope"); !errors.Is(err, ErrUnknownJob) {
		t.Fatalf("RunNow(nope) = %v, want ErrUnknownJob", err)
	}
	for name, want := range map[string]db.Job{
		"ok":   {LastOutcome: OutcomeOK, LastSummary: "did it", Runs: 1},
		"fail": {LastOutcome: OutcomeError, LastSummary: "half", LastError: "disk on fire", Runs: 1, Failures: 1},
		"boom": {LastOutcome: OutcomeError, LastError: "panic: bug", Runs: 1, Failures: 1},
	} {
		got, err := q.JobGet(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		if got.LastOutcome != want.LastOutcome || got.LastSummary != want.LastSummary || got.LastError != want.LastError ||
			got.Runs != want.Runs || got.Failures != want.Failures {
			t.Errorf("%s: %+v, want %+v", name, got, want)
		}
		if !got.NextRunAt.After(time.Now().Add(50 * time.Minute)) {
			t.Errorf("%s: next run at %v, want an hour after the run", name, got.NextRunAt)
		}
	}

	// Switched off, a due job does not run.
	if _, err := Set(ctx, q, "ok", false, time.Second); err != nil {
		t.Fatal(err)
	}
	dbtest.Due(t, pool, dbtest.Job("ok"))
	if ran, err := r.runIfDue(ctx, ok); err != nil || ran {
		t.Fatalf("disabled job: ran %v, %v", ran, err)
	}
	if _, err := Set(ctx, q, "ok", true, time.Second); err != nil {
		t.Fatal(err)
	}
	if ran, err := r.runIfDue(ctx, ok); err != nil || !ran {
		t.Fatalf("enabled due job: ran %v, %v", ran, err)
	}
	if _, err := Set(ctx, q, "ok", true, time.Millisecond); err == nil {
		t.Fatal("an interval under a second was accepted")
	}
}

// A run stopped mid-way is recorded as stopped, and the lock goes with it.
func TestRunnerStopMidRun(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.New(t)

	started := make(chan struct{})
	var once sync.Once
	job := Job{Name: "slow", Every: time.Hour, Run: func(ctx context.Context) (string, error) {
		once.Do(func() { close(started) })
		<-ctx.Done()
		return "stopped half-way", ctx.Err()
	}}
	r := NewRunner(quietLog(), pool, job)
	if err := r.Start(ctx); err != nil {
		t.Fatal(err)
	}
	<-started
	r.Stop()
	row, err := db.Of(pool).JobGet(ctx, "slow")
	if err != nil {
		t.Fatal(err)
	}
	if row.LastOutcome != OutcomeStopped {
		t.Fatalf("outcome %q, want %q", row.LastOutcome, OutcomeStopped)
	}
	// Another runner can take the job at once: the lock was released.
	job.Run = func(context.Context) (string, error) { return "done", nil }
	done := make(chan error, 1)
	go func() { _, err := NewRunner(quietLog(), pool, job).RunNow(ctx, "slow"); done <- err }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the stopped run's lock was not released")
	}
}
