package books

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"tracker/archive"
	"tracker/audit"
	"tracker/db/dbtest"
	"tracker/dictionaries"
	"tracker/items"
	"tracker/jobs"
	"tracker/projects"
	"tracker/stats"
	"tracker/users"
	"tracker/volunteers"
	"tracker/warriors"
)

// world is a tracker whose every table keyed by project holds rows, all
// made through the engine and the stores: a project done once ("once"),
// one that serves its items by site ("sited", site_key=host) and a
// recurring one ("recurring").
type world struct {
	pool      *pgxpool.Pool
	store     *projects.Store
	engine    *items.Engine
	projects  map[string]*projects.Project
	archiveTo string
}

func newWorld(t *testing.T) *world {
	t.Helper()
	ctx := context.Background()
	w := &world{pool: dbtest.New(t), projects: map[string]*projects.Project{}, archiveTo: t.TempDir()}
	w.store = projects.NewStore(w.pool)
	w.engine = items.NewEngine(w.pool, slog.New(slog.NewTextHandler(io.Discard, nil)))
	for _, slug := range []string{"once", "sited", "recurring"} {
		p := dbtest.Project(t, w.pool, slug, "")
		w.projects[slug] = &p
	}
	w.buildOnce(t)
	w.buildSited(t)
	w.buildRecurring(t)
	w.buildRest(t)
	// The rollup folds what was completed, then a done is left pending.
	if _, err := stats.NewStore(w.pool).Fold(ctx); err != nil {
		t.Fatal(err)
	}
	// A rate limit keeps its state in a row from the first request on.
	w.set(t, "once", "rate_limit=100000")
	w.complete(t, "once", items.Completion{Downloader: "erin", Items: w.request(t, "once", "erin", 1), Bytes: map[string]int64{"data": 300}})
	return w
}

// purge runs the purge job over the projects being deleted, as the
// tracker does: one is.
func (w *world) purge(t *testing.T) {
	t.Helper()
	job := jobs.Purge(w.pool, w.store, w.engine, archive.New(w.pool, w.archiveTo))
	if s, err := jobs.NewRunner(slog.New(slog.DiscardHandler), w.pool, job).RunNow(context.Background(), "purge"); err != nil || s != "purged 1 projects" {
		t.Fatalf("purge: %q, %v", s, err)
	}
}

func (w *world) set(t *testing.T, slug string, assignments ...string) {
	t.Helper()
	p, err := w.store.Set(context.Background(), *w.projects[slug], assignments)
	if err != nil {
		t.Fatal(err)
	}
	*w.projects[slug] = p
}

func (w *world) add(t *testing.T, slug string, lines ...string) {
	t.Helper()
	if _, err := w.engine.Add(context.Background(), *w.projects[slug], "todo", strings.NewReader(strings.Join(lines, "\n"))); err != nil {
		t.Fatal(err)
	}
}

func (w *world) live(t *testing.T, slug string) *projects.Live {
	t.Helper()
	live, err := projects.NewCache(w.store, 0).Get(context.Background(), slug)
	if err != nil {
		t.Fatal(err)
	}
	return live
}

// request asks for n items as a warrior at 192.0.2.1 would.
func (w *world) request(t *testing.T, slug, nick string, n int) []string {
	t.Helper()
	got, err := w.engine.Request(context.Background(), w.live(t, slug),
		items.ClaimRequest{Downloader: nick, Max: n, IP: netip.MustParseAddr("192.0.2.1")})
	var refusal *items.Refusal
	if errors.As(err, &refusal) {
		t.Fatalf("%s asked %s for %d items: %v", nick, slug, n, refusal)
	}
	if err != nil {
		t.Fatal(err)
	}
	return got.Names
}

func (w *world) complete(t *testing.T, slug string, c items.Completion) {
	t.Helper()
	if n, err := w.engine.Complete(context.Background(), *w.projects[slug], c); err != nil || n != int64(len(c.Items)) {
		t.Fatalf("%s completed %d of %d items of %s: %v", c.Downloader, n, len(c.Items), slug, err)
	}
}

// archiveOld archives the project's completions as if they were made days
// ago.
func (w *world) archiveOld(t *testing.T, slug string) {
	t.Helper()
	ctx := context.Background()
	p := w.projects[slug]
	dbtest.Age(t, w.pool, 4*24*time.Hour, dbtest.Completions(p.ID))
	w.set(t, slug, "archive_after=86400")
	if _, err := archive.New(w.pool, w.archiveTo).Project(ctx, *p, time.Now()); err != nil {
		t.Fatal(err)
	}
}

// buildOnce: imports with parameters, claims, completions (archived and
// not), releases, expiries, moves, a drain, a requeue, backfeed with a
// shard and an update tag, a rate limit.
func (w *world) buildOnce(t *testing.T) {
	ctx := context.Background()
	var lines []string
	for i := range 300 {
		line := fmt.Sprintf("item:%d", i)
		// Parameters on items that stay queued, out or done in the hot
		// table.
		if i >= 270 && i < 280 || i >= 50 && i < 55 {
			line += fmt.Sprintf("\t{\"n\":%d}", i)
		}
		lines = append(lines, line)
	}
	w.add(t, "once", lines...)
	old := w.request(t, "once", "alice", 45)
	w.complete(t, "once", items.Completion{Downloader: "alice", Items: old, Bytes: map[string]int64{"data": 1000}})
	w.archiveOld(t, "once")
	w.complete(t, "once", items.Completion{Downloader: "bob", Items: w.request(t, "once", "bob", 40), Bytes: map[string]int64{"data": 1000, "media": 50}})
	out := w.request(t, "once", "carol", 30)
	p := *w.projects["once"]
	if _, err := w.engine.Release(ctx, p, out[:10], ""); err != nil {
		t.Fatal(err)
	}
	// Five of carol's claims run out: two are handed to dave directly, the
	// reclaim job puts the rest back.
	w.set(t, "once", "reclaim_ttl=60")
	dbtest.Age(t, w.pool, time.Hour, dbtest.Claims(p.ID, out[10:15]...))
	w.complete(t, "once", items.Completion{Downloader: "dave", Items: w.request(t, "once", "dave", 2), Bytes: map[string]int64{"data": 10}})
	p = *w.projects["once"]
	if _, _, err := w.engine.ReclaimExpired(ctx, p, 100); err != nil {
		t.Fatal(err)
	}
	if _, err := w.engine.MoveQueue(ctx, p, "todo", "secondary", items.Selection{Prefix: "item:2"}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.engine.MoveQueue(ctx, p, "secondary", "", items.Selection{Pattern: "^item:2[0-4]"}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.engine.RequeueDone(ctx, p, "redo", items.Selection{Prefix: "item:6"}); err != nil {
		t.Fatal(err)
	}
	// A project that recrawls keeps the update tags of what it queues.
	w.set(t, "once", "recrawl_after=86400")
	p = *w.projects["once"]
	if _, _, err := w.engine.Backfeed(ctx, p, "", []items.BackfeedEntry{
		{Key: "new:1", Item: "new:1\x1ftag=v1"}, {Key: "new:2", Item: "new:2"}}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.engine.Backfeed(ctx, p, "forum", []items.BackfeedEntry{{Key: "thread:7", Item: "page:7"}}); err != nil {
		t.Fatal(err)
	}
	w.set(t, "once", "reclaim_ttl=0")
}

// buildSited: items by site and without one, hand-outs, completions
// (archived and not), a release, claims out.
func (w *world) buildSited(t *testing.T) {
	ctx := context.Background()
	w.set(t, "sited", "site_key=host", "site_claims_limit=3")
	w.add(t, "sited", "https://a.example/1", "https://a.example/2", "https://a.example/3", "https://a.example/4",
		"https://b.example/1", "https://b.example/2", "https://c.example/1", "user:x")
	first := w.request(t, "sited", "alice", 4)
	var withSite []string
	for _, n := range first {
		if strings.HasPrefix(n, "https://") {
			withSite = append(withSite, n)
		}
	}
	w.complete(t, "sited", items.Completion{Downloader: "alice", Items: withSite, Bytes: map[string]int64{"data": 500}})
	w.archiveOld(t, "sited")
	second := w.request(t, "sited", "bob", 3)
	w.complete(t, "sited", items.Completion{Downloader: "bob", Items: second[:1], Bytes: map[string]int64{"data": 70}})
	if _, err := w.engine.Release(ctx, *w.projects["sited"], second[1:2], ""); err != nil {
		t.Fatal(err)
	}
}

// buildRecurring: visits scored, scheduled, retired, due again and out.
func (w *world) buildRecurring(t *testing.T) {
	ctx := context.Background()
	w.set(t, "recurring", "mode=recurring", "revisit_after=3600", "retire_below=0.3")
	w.add(t, "recurring", "t:1", "t:2", "t:3", "t:4", "t:5", "t:6")
	got := w.request(t, "recurring", "alice", 6)
	if len(got) != 6 {
		t.Fatalf("alice got %v", got)
	}
	w.complete(t, "recurring", items.Completion{Downloader: "alice", Items: []string{"t:1", "t:2", "t:3", "t:4"}, Bytes: map[string]int64{"data": 9},
		Outcomes: map[string]items.Outcome{"t:1": {Word: "full"}, "t:2": {Word: "none"}, "t:3": {Number: 0.8}}})
	// One visit is due: back in its band.
	p := *w.projects["recurring"]
	dbtest.Due(t, w.pool, dbtest.Revisits(p.ID, "t:4"))
	if n, err := w.engine.RevisitDue(ctx, p, 100); err != nil || n != 1 {
		t.Fatalf("%d visits due: %v", n, err)
	}
	// t:2 falls below retire_below.
	dbtest.Due(t, w.pool, dbtest.Revisits(p.ID, "t:2"))
	if n, err := w.engine.RevisitDue(ctx, p, 100); err != nil || n != 1 {
		t.Fatalf("%d visits due: %v", n, err)
	}
	again := w.request(t, "recurring", "bob", 2)
	for _, n := range again {
		if n == "t:2" {
			w.complete(t, "recurring", items.Completion{Downloader: "bob", Items: []string{n}, Outcomes: map[string]items.Outcome{n: {Word: "none"}}})
		}
	}
}

// buildRest: the rows beside the items: upload targets, uploads, blocks,
// a dictionary, a project admin, volunteers, warriors.
func (w *world) buildRest(t *testing.T) {
	// An admin's doing, for the audit log.
	ctx := audit.NewContext(context.Background(), audit.Actor{Username: "root"})
	p := *w.projects["once"]
	if err := w.store.AddTarget(ctx, p, projects.Target{URL: "rsync://up.example/once/", Weight: 1, Enabled: true}); err != nil {
		t.Fatal(err)
	}
	// A receipt is kept for an item out or done only: one of carol's.
	var out string
	if err := w.pool.QueryRow(ctx, `SELECT name FROM claims WHERE project_id = $1 ORDER BY id LIMIT 1`, p.ID).Scan(&out); err != nil {
		t.Fatal(err)
	}
	if err := w.engine.RecordUpload(ctx, p, "carol", out, "up.example", netip.MustParseAddr("192.0.2.1")); err != nil {
		t.Fatal(err)
	}
	if err := w.store.AddBlock(ctx, projects.Block{ProjectID: &p.ID, Kind: projects.BlockNick, Value: "mallory"}); err != nil {
		t.Fatal(err)
	}
	var samples [][]byte
	for i := range 60 {
		samples = append(samples, fmt.Appendf(nil, "<html><head><title>Post %d</title></head><body><p class=\"post\">Message %d says %x.</p></body></html>", i, i, i*2654435761))
	}
	d, err := dictionaries.Train(samples, 8<<10)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dictionaries.NewStore(w.pool).Add(ctx, p.ID, d, "root"); err != nil {
		t.Fatal(err)
	}
	u, err := users.NewStore(w.pool).Create(ctx, "keeper", "a long enough password", "project_admin")
	if err != nil {
		t.Fatal(err)
	}
	if err := users.NewStore(w.pool).Grant(ctx, u, p.ID); err != nil {
		t.Fatal(err)
	}
	if err := volunteers.New(w.pool).Mark(ctx, p.ID, netip.MustParseAddr("192.0.2.1")); err != nil {
		t.Fatal(err)
	}
	ws := warriors.NewStore(w.pool)
	id, err := ws.Register(ctx, warriors.Contact{UserAgent: "ArchiveTeam Warrior/0.8.5 Warrior 2024", Address: netip.MustParseAddr("192.0.2.9")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ws.Update(ctx, warriors.Contact{ID: id, Nick: "alice", SelectedProject: "once", LatLng: []float64{51.5, -0.12},
		UserAgent: "ArchiveTeam Warrior/0.8.5 Warrior 2024", Address: netip.MustParseAddr("192.0.2.9")}); err != nil {
		t.Fatal(err)
	}
}
