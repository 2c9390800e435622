package jobs

import (
	"context"
	"strings"
	"testing"

	"tracker/db/dbtest"
	"tracker/projects"
	"tracker/stats"
)

// One project's tallies that cannot be folded hold up only that project:
// the others are folded, the broken tally stays pending, and the run's
// summary and error name the project.
func TestRollupFailsPerProject(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.New(t)
	var ps []projects.Project
	for _, slug := range []string{"first", "broken", "last"} {
		ps = append(ps, dbtest.Project(t, pool, slug, ""))
	}
	tally := func(p projects.Project, nick, domains string) {
		t.Helper()
		if _, err := pool.Exec(ctx, `INSERT INTO done_tallies (project_id, downloader, items, bytes, version, domains, item)
		    VALUES ($1, $2, 1, 100, '1', $3::jsonb, 'item:x')`, p.ID, nick, domains); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range ps {
		tally(p, "alice", `{"data": 100}`)
	}
	// A count per domain that is no number: no fold can add it up.
	tally(ps[1], "bob", `{"data": "lots"}`)

	r := NewRunner(quietLog(), pool, Rollup(stats.NewStore(pool)))
	summary, err := r.RunNow(ctx, "rollup")
	if err == nil || !strings.Contains(err.Error(), "1 project failed: broken: ") || strings.Contains(err.Error(), "first") {
		t.Fatalf("error %v; want one naming the broken project only", err)
	}
	if !strings.Contains(summary, "folded 2 tallies") || !strings.Contains(summary, "left pending: project broken") {
		t.Fatalf("summary %q", summary)
	}
	job, err := r.q.JobGet(ctx, "rollup")
	if err != nil || job.LastOutcome != OutcomeError || job.LastSummary != summary || !strings.Contains(job.LastError, "1 project failed: broken: ") {
		t.Fatalf("recorded %+v, %v", job, err)
	}
	bytesOf := func(p projects.Project) (folded, pending int64) {
		t.Helper()
		if err := pool.QueryRow(ctx, `SELECT (SELECT coalesce(sum(bytes), 0) FROM downloaders WHERE project_id = $1)::bigint,
		    (SELECT count(*) FROM done_tallies WHERE project_id = $1)`, p.ID).Scan(&folded, &pending); err != nil {
			t.Fatal(err)
		}
		return folded, pending
	}
	check := func(want int64) {
		t.Helper()
		for _, p := range []projects.Project{ps[0], ps[2]} {
			if folded, pending := bytesOf(p); folded != want || pending != 0 {
				t.Fatalf("%s: %d bytes folded, %d tallies pending; want %d and none", p.Slug, folded, pending, want)
			}
		}
		if folded, pending := bytesOf(ps[1]); folded != 0 || pending != 2 {
			t.Fatalf("broken: %d bytes folded, %d tallies pending; want none folded, both pending", folded, pending)
		}
	}
	check(100)

	// The next runs carry on with the other projects.
	for _, p := range ps {
		tally(p, "alice", `{"data": 100}`)
	}
	if _, err := r.RunNow(ctx, "rollup"); err == nil {
		t.Fatal("the broken project folded")
	}
	if folded, pending := bytesOf(ps[1]); folded != 0 || pending != 3 {
		t.Fatalf("broken: %d bytes folded, %d tallies pending", folded, pending)
	}
	for _, p := range []projects.Project{ps[0], ps[2]} {
		if folded, pending := bytesOf(p); folded != 200 || pending != 0 {
			t.Fatalf("%s: %d bytes folded, %d tallies pending", p.Slug, folded, pending)
		}
	}
}
