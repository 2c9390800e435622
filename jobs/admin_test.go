package jobs

import (
	"context"
	"errors"
	"net/netip"
	"testing"
	"time"

	"tracker/audit"
	"tracker/db"
	"tracker/db/dbtest"
)

// A run asked for from the admin panel is run once by the next runner to
// look, even with the job switched off, and the request is then gone: the
// job stays off and is due no more.
func TestRequestedRunRunsOnceWhenOff(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.New(t)
	ran := make(chan struct{}, 4)
	job := Job{Name: "asked", Every: time.Hour, Run: func(context.Context) (string, error) {
		ran <- struct{}{}
		return "ran", nil
	}}
	r := NewRunner(quietLog(), pool, job)
	r.poll = 20 * time.Millisecond
	if err := r.Register(ctx); err != nil {
		t.Fatal(err)
	}
	if changed, err := SetEnabled(ctx, pool, "asked", false); err != nil || !changed {
		t.Fatalf("switching off: %v, %v", changed, err)
	}
	if err := r.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer r.Stop()
	if err := RequestRun(ctx, pool, "asked"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ran:
	case <-time.After(30 * time.Second):
		t.Fatal("the run asked for did not happen")
	}
	q := db.Of(pool)
	dbtest.Eventually(t, func() bool {
		j, err := q.JobGet(ctx, "asked")
		return err == nil && j.Runs == 1
	}, "the run recorded")
	j, err := q.JobGet(ctx, "asked")
	if err != nil {
		t.Fatal(err)
	}
	if j.Enabled || j.RunRequestedAt != nil || j.LastSummary != "ran" {
		t.Fatalf("after the run asked for: enabled %v, requested %v, summary %q", j.Enabled, j.RunRequestedAt, j.LastSummary)
	}
	if due, err := q.JobDue(ctx, "asked"); err != nil || due {
		t.Fatalf("the job is due again: %v, %v", due, err)
	}
	if err := RequestRun(ctx, pool, "nope"); !errors.Is(err, ErrUnknownJob) {
		t.Fatalf("asking for a job that is not: %v", err)
	}
}

// The projects a run failed on are recorded one by one, with their
// errors, for the jobs page; a run that went well clears them. While a
// run goes on, the job reads as running.
func TestRunRecordsFailedProjects(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.New(t)
	fail := true
	var runningSeen bool
	job := Job{Name: "each", Every: time.Hour, Run: func(context.Context) (string, error) {
		// While it runs, the job's lock says so.
		if js, err := List(ctx, pool); err == nil && len(js) == 1 {
			runningSeen = js[0].Running
		}
		if !fail {
			return "all well", nil
		}
		var e ProjectErrors
		e.add("aaa", errors.New("disk full"))
		e.add("#7", errors.New("gone"))
		return "did bbb", e.err()
	}}
	r := NewRunner(quietLog(), pool, job)
	if _, err := r.RunNow(ctx, "each"); err == nil {
		t.Fatal("the failed run reported no error")
	}
	js, err := List(ctx, pool)
	if err != nil || len(js) != 1 {
		t.Fatalf("List: %v, %v", js, err)
	}
	want := []ProjectFailure{{"aaa", "disk full"}, {"#7", "gone"}}
	if got := js[0].Failed; len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("failed projects %+v, want %+v", got, want)
	}
	if !runningSeen || js[0].Running || js[0].LastOutcome != OutcomeError {
		t.Fatalf("running %v during the run, %v after it; outcome %q", runningSeen, js[0].Running, js[0].LastOutcome)
	}
	fail = false
	if _, err := r.RunNow(ctx, "each"); err != nil {
		t.Fatal(err)
	}
	if js, err = List(ctx, pool); err != nil || len(js[0].Failed) != 0 {
		t.Fatalf("after a run that went well: %+v, %v", js, err)
	}
}

// The panel's changes are audited in the admin's name, each once; a
// change to what the job is already records nothing, and an interval
// outside 1 s to ten years changes nothing.
func TestAdminChangesAudited(t *testing.T) {
	t.Parallel()
	pool := dbtest.New(t)
	ctx := audit.NewContext(context.Background(), audit.Actor{Username: "root", IP: netip.MustParseAddr("192.0.2.1")})
	r := NewRunner(quietLog(), pool, Job{Name: "tick", Every: 30 * time.Second, Run: func(context.Context) (string, error) { return "", nil }})
	if err := r.Register(ctx); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		do      func() (bool, error)
		changed bool
	}{
		{func() (bool, error) { return SetEnabled(ctx, pool, "tick", true) }, false},
		{func() (bool, error) { return SetEnabled(ctx, pool, "tick", false) }, true},
		{func() (bool, error) { return SetEnabled(ctx, pool, "tick", true) }, true},
		{func() (bool, error) { return SetEvery(ctx, pool, "tick", 30*time.Second) }, false},
		{func() (bool, error) { return SetEvery(ctx, pool, "tick", 90*time.Minute) }, true},
		{func() (bool, error) { return true, RequestRun(ctx, pool, "tick") }, true},
	}
	for i, s := range steps {
		if changed, err := s.do(); err != nil || changed != s.changed {
			t.Fatalf("step %d: changed %v, %v; want %v", i, changed, err, s.changed)
		}
	}
	for _, bad := range []time.Duration{0, 999 * time.Millisecond, -time.Minute, MaxEvery + time.Second} {
		if _, err := SetEvery(ctx, pool, "tick", bad); !errors.Is(err, ErrInterval) {
			t.Errorf("interval %s: %v, want ErrInterval", bad, err)
		}
	}
	rows, err := audit.New(pool).List(ctx, audit.Filter{Max: 100})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i := len(rows) - 1; i >= 0; i-- {
		got = append(got, rows[i].Action+" "+rows[i].Detail)
	}
	want := []string{
		`job.disable {"job": "tick"}`,
		`job.enable {"job": "tick"}`,
		`job.every {"job": "tick", "every": {"to": "1h30m", "from": "30s"}}`,
		`job.run {"job": "tick"}`,
	}
	if len(got) != len(want) {
		t.Fatalf("audit entries %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("audit entry %d: %s, want %s", i, got[i], want[i])
		}
	}
	if rows[0].Username != "root" || rows[0].IP != netip.MustParseAddr("192.0.2.1") {
		t.Errorf("entry by %q from %v", rows[0].Username, rows[0].IP)
	}
	js, err := List(ctx, pool)
	if err != nil || js[0].Every != 90*time.Minute || !js[0].Enabled || js[0].RunRequestedAt == nil {
		t.Fatalf("the job after the changes: %+v, %v", js, err)
	}
}
