package items_test

import (
	"context"
	"errors"
	"log/slog"
	"net/netip"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"tracker/archive"
	"tracker/books"
	"tracker/db"
	"tracker/db/dbtest"
	"tracker/items"
	"tracker/jobs"
	"tracker/projects"
	"tracker/volunteers"
)

// deletion is a tracker process whose requests are in flight while one of
// its projects is deleted: they hold views of their projects read before
// (as the project cache keeps one for a second, and a request keeps its
// own to its end), and its purge job runs meanwhile.
type deletion struct {
	ctx    context.Context
	pool   *pgxpool.Pool
	store  *projects.Store
	engine *items.Engine
	runner *jobs.Runner
}

func newDeletion(t *testing.T) *deletion {
	t.Helper()
	pool := dbtest.New(t)
	store := projects.NewStore(pool)
	engine := items.NewEngine(pool, nil)
	return &deletion{ctx: context.Background(), pool: pool, store: store, engine: engine,
		runner: jobs.NewRunner(slog.New(slog.DiscardHandler), pool, jobs.Purge(pool, store, engine, archive.New(pool, t.TempDir())))}
}

// view reads the project as the cache does.
func (d *deletion) view(t *testing.T, p projects.Project) *projects.Live {
	t.Helper()
	live, err := projects.NewCache(d.store, 0).Get(d.ctx, p.Slug)
	if err != nil {
		t.Fatal(err)
	}
	return live
}

// request asks for an item through view, and counts the address as a
// volunteer of its project, served or refused, as the request route does
// (in a process that did not count it lately: each writes it once an hour).
func (d *deletion) request(t *testing.T, view *projects.Live) ([]string, *items.Refusal) {
	t.Helper()
	ip := netip.MustParseAddr("192.0.2.7")
	h, err := d.engine.Request(d.ctx, view, items.ClaimRequest{Downloader: "alice", Version: "1", IP: ip, Max: 1})
	var refused *items.Refusal
	if err != nil && !errors.As(err, &refused) {
		t.Fatalf("request of %s: %v", view.Slug, err)
	}
	if err := volunteers.New(d.pool).Mark(d.ctx, view.ID, ip); err != nil {
		t.Fatal(err)
	}
	return h.Names, refused
}

// purge runs the purge job, which must say want.
func (d *deletion) purge(t *testing.T, want string) {
	t.Helper()
	if s, err := d.runner.RunNow(d.ctx, "purge"); err != nil || s != want {
		t.Fatalf("purge: %q, %v; want %q", s, err, want)
	}
}

// unbalanced are the rules of the tracker's books that do not hold, with
// what they found.
func (d *deletion) unbalanced(t *testing.T) map[string]int64 {
	t.Helper()
	r, err := books.Tracker(d.ctx, d.pool)
	if err != nil {
		t.Fatal(err)
	}
	off := map[string]int64{}
	for _, c := range r.Checks {
		if !c.OK {
			off[c.Name] = c.Found
		}
	}
	return off
}

// A project deleted while its requests are in flight: requests counted
// before its deletion, between the deletion and the purge, and after the
// purge, their counts written after it (a process writes them once a
// second, with a later claim of any project), of a project with a rate
// limit and a limited type, each counting its address as a volunteer.
// None of their counts, rate limits or volunteers is written once the
// project is being deleted: no row is left after the purge, and the
// tracker's books balance. Another project's counts are written as ever.
func TestRequestsOfADeletedProject(t *testing.T) {
	t.Parallel()
	d := newDeletion(t)
	limits := []string{"rate_limit=600000", "type_limits=t:600000"}
	if on, err := db.Citus(d.ctx, d.pool); err != nil {
		t.Fatal(err)
	} else if on {
		// A slot given back (rate_refund) crashes a Citus 13.2
		// coordinator, whatever the project.
		limits = nil
	}
	gone := dbtest.Project(t, d.pool, "gone", "", limits...)
	kept := dbtest.Project(t, d.pool, "kept", "")
	for _, p := range []projects.Project{gone, kept} {
		if _, err := d.engine.Add(d.ctx, p, "todo", strings.NewReader("a\nb\nt:c\nd")); err != nil {
			t.Fatal(err)
		}
	}
	goneView, keptView := d.view(t, gone), d.view(t, kept)
	d.engine.HoldCounts()
	if names, _ := d.request(t, goneView); len(names) != 1 {
		t.Fatalf("before the deletion: handed %q", names)
	}
	d.request(t, keptView)

	if err := d.store.MarkDeleting(d.ctx, gone); err != nil {
		t.Fatal(err)
	}
	// A view from before the deletion may still hand an item out: the
	// purge takes it back.
	d.request(t, goneView)
	d.purge(t, "purged 1 projects")
	if names, refused := d.request(t, goneView); len(names) > 0 || refused == nil || refused.Reason != items.ReasonNoItems {
		t.Errorf("after the purge: handed %q, refused %v; want refused, no items", names, refused)
	}
	// The counts held are written with the next claims: of the deleted
	// project's (those a process on Citus writes them with), then of the
	// other's.
	d.engine.FlushCountsNext()
	d.request(t, goneView)
	d.engine.FlushCountsNext()
	d.request(t, keptView)

	if left := dbtest.ProjectRows(t, d.pool, gone.ID); len(left) > 0 {
		t.Errorf("rows of the deleted project written after its purge: %v", left)
	}
	if off := d.unbalanced(t); len(off) > 0 {
		t.Errorf("the tracker's books do not balance: %v", off)
	}
	if n, err := db.Of(d.pool).CounterGet(d.ctx, db.CounterGetParams{ProjectID: kept.ID, Name: "requests"}); err != nil || n != 2 {
		t.Errorf("the other project's requests counted: %d, %v; want 2", n, err)
	}
}
