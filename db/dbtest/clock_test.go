package dbtest_test

import (
	"strings"
	"testing"
	"time"

	"tracker/db/dbtest"
)

// Age moves exactly the rows selected, by d; Due makes them due; a
// selection that moves nothing, or misses a row it names, fails the test,
// except under Pass.
func TestClock(t *testing.T) {
	t.Parallel()
	pool := dbtest.New(t)
	p := dbtest.Project(t, pool, "demo", "")
	other := dbtest.Project(t, pool, "other", "")
	for _, id := range []int32{p.ID, other.ID} {
		dbtest.MustExec(t, pool, `INSERT INTO claims (project_id, hash, id, name, queue, downloader)
			SELECT $1, item_hash('item:' || g), g, 'item:' || g, 'todo', 'w' FROM generate_series(1, 3) g`, id)
		dbtest.MustExec(t, pool, `INSERT INTO revisits (project_id, due_at, id, name, score)
			SELECT $1, now() + interval '1 day', g, 'item:' || g, 1 FROM generate_series(1, 3) g`, id)
	}
	age := func(project int32, name string) time.Duration {
		t.Helper()
		var s float64
		dbtest.MustScan(t, pool.QueryRow(t.Context(), "SELECT extract(epoch FROM now() - claimed_at) FROM claims WHERE project_id = $1 AND name = $2",
			project, name), &s)
		return time.Duration(s * float64(time.Second))
	}

	dbtest.Age(t, pool, time.Hour, dbtest.Claims(p.ID, "item:1", "item:2"))
	dbtest.Age(t, pool, time.Hour, dbtest.Claims(p.ID, "item:1"))
	for _, c := range []struct {
		project int32
		name    string
		min     time.Duration
	}{{p.ID, "item:1", 2 * time.Hour}, {p.ID, "item:2", time.Hour}, {p.ID, "item:3", 0}, {other.ID, "item:1", 0}} {
		if got := age(c.project, c.name); got < c.min || got > c.min+time.Minute {
			t.Errorf("project %d's %s claimed %s ago, want %s", c.project, c.name, got, c.min)
		}
	}

	dbtest.Due(t, pool, dbtest.Revisits(p.ID, "item:2"))
	if n := dbtest.Count(t, pool, "SELECT count(*) FROM revisits WHERE due_at <= now()"); n != 1 {
		t.Errorf("%d revisits due, want item:2's", n)
	}

	f := &failures{TB: t}
	for what, c := range map[string]struct {
		hook func(testing.TB)
		want string
	}{
		"a name not there": {func(tb testing.TB) { dbtest.Age(tb, pool, time.Hour, dbtest.Claims(p.ID, "item:1", "item:9")) }, "1 of the 2 named"},
		"no rows":          {func(tb testing.TB) { dbtest.Age(tb, pool, time.Hour, dbtest.ExpiredClaims(p.ID)) }, "no rows"},
		"none due":         {func(tb testing.TB) { dbtest.Due(tb, pool, dbtest.Sites(p.ID)) }, "no rows"},
		"never due":        {func(tb testing.TB) { dbtest.Due(tb, pool, dbtest.Claims(p.ID)) }, "never due"},
		"backwards":        {func(tb testing.TB) { dbtest.Age(tb, pool, -time.Hour, dbtest.Claims(p.ID)) }, "time only moves on"},
		"part of a minute": {func(tb testing.TB) { dbtest.Age(tb, pool, time.Second, dbtest.SeriesMinutes(p.ID)) }, "steps of 1m0s"},
	} {
		if fatal := f.run(c.hook); !strings.Contains(fatal, c.want) {
			t.Errorf("%s: failed with %q, want %q", what, fatal, c.want)
		}
	}
	// Pass moves whatever there is, none included.
	dbtest.Pass(t, pool, time.Hour, dbtest.ExpiredClaims(p.ID), dbtest.Claims(p.ID))
	if got := age(p.ID, "item:3"); got < time.Hour || got > time.Hour+time.Minute {
		t.Errorf("item:3 claimed %s ago after an hour passed, want an hour", got)
	}
}

// Completions aged land in the partition of their new day, made for them.
func TestClockCompletionsLandOnTheirDay(t *testing.T) {
	t.Parallel()
	pool := dbtest.New(t)
	p := dbtest.Project(t, pool, "demo", "")
	dbtest.MustExec(t, pool, `INSERT INTO done (project_id, id, name, downloader, bytes, claimed_at, claim_count)
		SELECT $1, g, 'item:' || g, 'alice', 1, now(), 1 FROM generate_series(1, 3) g`, p.ID)
	dbtest.Age(t, pool, 10*24*time.Hour, dbtest.Completions(p.ID, "item:1", "item:2"))
	want := time.Now().UTC().Add(-10 * 24 * time.Hour).Format("20060102")
	var part string
	dbtest.MustScan(t, pool.QueryRow(t.Context(), "SELECT DISTINCT tableoid::regclass::text FROM done WHERE name IN ('item:1', 'item:2')"), &part)
	if !strings.HasSuffix(part, want) {
		t.Errorf("completions ten days old in %s, want the partition of %s", part, want)
	}
	if n := dbtest.Count(t, pool, "SELECT count(*) FROM done WHERE done_at > now() - interval '1 minute' AND claimed_at > now() - interval '1 minute'"); n != 1 {
		t.Errorf("%d completions left of today, want item:3", n)
	}
	dbtest.Pass(t, pool, 24*time.Hour, dbtest.CompletionsWithin(p.ID, time.Hour))
	if n := dbtest.Count(t, pool, "SELECT count(*) FROM done WHERE done_at < now() - interval '23 hours' AND done_at > now() - interval '25 hours'"); n != 1 {
		t.Errorf("%d completions a day old, want item:3", n)
	}
}
