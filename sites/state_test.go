package sites_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"tracker/audit"
	"tracker/db/dbtest"
	"tracker/items"
	"tracker/projects"
	"tracker/sites"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

// frontier is a project whose items have sites, with its items queued.
type frontier struct {
	store   *sites.Store
	engine  *items.Engine
	cache   *projects.Cache
	project projects.Project
	audit   *audit.Log
}

func newFrontier(t *testing.T, assignments []string, names ...string) frontier {
	t.Helper()
	ctx := context.Background()
	pool := dbtest.New(t)
	p := dbtest.Project(t, pool, "test", "", assignments...)
	engine := items.NewEngine(pool, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if _, err := engine.Add(ctx, p, "todo", strings.NewReader(strings.Join(names, "\n"))); err != nil {
		t.Fatal(err)
	}
	return frontier{store: sites.NewStore(pool), engine: engine, cache: projects.NewCache(projects.NewStore(pool), 0), project: p, audit: audit.New(pool)}
}

func (f frontier) claim(t *testing.T, nick string, n int) []string {
	t.Helper()
	ctx := context.Background()
	live, err := f.cache.Get(ctx, f.project.Slug)
	if err != nil {
		t.Fatal(err)
	}
	got, err := f.engine.Request(ctx, live, items.ClaimRequest{Downloader: nick, Max: n})
	if err != nil {
		t.Fatal(err)
	}
	return got.Names
}

func names(ss []sites.State) []string {
	var out []string
	for _, s := range ss {
		out = append(out, s.Name)
	}
	return out
}

// A page of sites: by name prefix (the site named the prefix included),
// continued after a name, only the busy ones.
func TestPage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFrontier(t, []string{"site_key=host", "site_claims_limit=1"},
		"https://a.example/1", "https://ab.example/1", "https://b.example/1", "https://b.example.org/1", "https://c.example/1")
	for _, c := range []struct {
		f    sites.Filter
		want []string
	}{
		{sites.Filter{Max: 10}, []string{"a.example", "ab.example", "b.example", "b.example.org", "c.example"}},
		{sites.Filter{Prefix: "a", Max: 10}, []string{"a.example", "ab.example"}},
		{sites.Filter{Prefix: "B.Example", Max: 10}, []string{"b.example", "b.example.org"}},
		{sites.Filter{Prefix: "b.example", Max: 1}, []string{"b.example"}},
		{sites.Filter{Prefix: "b.example", After: "b.example", Max: 10}, []string{"b.example.org"}},
		{sites.Filter{After: "ab.example", Max: 2}, []string{"b.example", "b.example.org"}},
		{sites.Filter{Prefix: "zz", Max: 10}, nil},
		{sites.Filter{Max: 0}, nil},
	} {
		got, err := f.store.Page(ctx, f.project.ID, c.f)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(names(got), c.want) {
			t.Errorf("%+v: %v, want %v", c.f, names(got), c.want)
		}
	}
	// Done with its items, c.example is idle: not busy.
	got := f.claim(t, "alice", 10)
	if len(got) != 5 {
		t.Fatalf("claimed %v", got)
	}
	if _, err := f.engine.Complete(ctx, f.project, items.Completion{Downloader: "alice", Items: []string{"https://c.example/1"}, Bytes: map[string]int64{"data": 3}}); err != nil {
		t.Fatal(err)
	}
	busy, err := f.store.Page(ctx, f.project.ID, sites.Filter{Busy: true, Max: 10})
	if err != nil || slices.Contains(names(busy), "c.example") || len(busy) != 4 {
		t.Fatalf("busy sites: %v %v", names(busy), err)
	}
	sum, err := f.store.Summary(ctx, f.project.ID, 0)
	if top := sum.Top; err != nil || len(top) != 1 || top[0].Name != "c.example" || top[0].Done != 1 || top[0].Bytes != 3 || top[0].Out != 0 {
		t.Fatalf("top: %+v %v", top, err)
	}
}

// Blocking a site, recorded in the audit log; a summary kept a while, and
// read anew on request. (Releasing a site's claims is the engine's: see
// items.Engine.ReleaseSite.)
func TestBlock(t *testing.T) {
	t.Parallel()
	f := newFrontier(t, []string{"site_key=host", "site_interval=3600"},
		"https://a.example/1", "https://b.example/1", "https://b.example/2")
	ctx := audit.NewContext(context.Background(), audit.Actor{Username: "root"})
	id := f.project.ID

	sum, err := f.store.Summary(ctx, id, time.Hour)
	if err != nil || sum.Sites != 2 || sum.Due != 2 || sum.Active != 0 || sum.Waiting != 0 || sum.Blocked != 0 || len(sum.Top) != 0 || sum.At.IsZero() {
		t.Fatalf("summary: %+v %v", sum, err)
	}
	if _, err := f.store.SetBlocked(ctx, id, "a.example", true); err != nil {
		t.Fatal(err)
	}
	if sum, err := f.store.Summary(ctx, id, time.Hour); err != nil || sum.Blocked != 0 {
		t.Fatalf("the summary kept was read again: %+v %v", sum, err)
	}
	if sum, err := f.store.Summary(ctx, id, 0); err != nil || sum.Blocked != 1 || sum.Due != 1 {
		t.Fatalf("summary read anew: %+v %v", sum, err)
	}
	// Blocked, a.example is handed out no more; b.example's two items go
	// at once (no limit), and the site waits an hour.
	got := f.claim(t, "alice", 10)
	slices.Sort(got)
	if !slices.Equal(got, []string{"https://b.example/1", "https://b.example/2"}) {
		t.Fatalf("alice got %v", got)
	}
	b, err := f.store.Get(ctx, id, "b.example")
	if err != nil || b.Out != 2 || b.Downloader != "alice" || b.Due(time.Now()) || !b.DueAt.After(time.Now().Add(50*time.Minute)) || b.LastAt.IsZero() {
		t.Fatalf("b.example handed out: %+v %v", b, err)
	}
	if _, err := f.store.SetBlocked(ctx, id, "a.example", false); err != nil {
		t.Fatal(err)
	}
	entries, err := f.audit.List(ctx, audit.Filter{ProjectID: id, Max: 10})
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, e := range entries {
		if strings.HasPrefix(e.Action, "site.") {
			actions = append(actions, e.Action+" "+e.Detail)
		}
	}
	want := []string{`site.unblock {"site": "a.example"}`, `site.block {"site": "a.example"}`}
	if !slices.Equal(actions, want) {
		t.Fatalf("audit log: %q, want %q", actions, want)
	}

	// Names the project has no site of.
	for name, want := range map[string]error{"": sites.ErrNoName, "  ": sites.ErrNoName, "nope.example": sites.ErrNotFound, strings.Repeat("x", 300): sites.ErrNotFound} {
		if _, err := f.store.SetBlocked(ctx, id, name, true); !errors.Is(err, want) {
			t.Errorf("block %q: %v, want %v", name, err, want)
		}
	}
}
