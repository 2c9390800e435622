package items_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"tracker/audit"
	"tracker/books"
	"tracker/items"
	"tracker/projects"
	"tracker/refusal"
	"tracker/sites"
)

// Releasing a site: every claim of the site goes back to the queue it came
// from, the site is due at once and its items are served again; the audit
// log names the site and counts the claims; a name the project has no site
// of is refused and changes nothing.
func TestReleaseSite(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.set(t, "site_key=host", "site_interval=3600")
	f.add(t, "todo", "https://a.example/1", "https://b.example/1")
	f.add(t, "redo", "https://b.example/2")
	ctx := audit.NewContext(context.Background(), audit.Actor{Username: "root"})

	// b.example's two items go at once (no limit), and the site waits an
	// hour.
	got := f.claim(t, "alice", 10)
	slices.Sort(got)
	if !slices.Equal(got, []string{"https://a.example/1", "https://b.example/1", "https://b.example/2"}) {
		t.Fatalf("alice got %v", got)
	}
	if r := f.refusal(t, "bob", 1); r.Reason != items.ReasonNoItems {
		t.Fatalf("bob before the release: %+v", r)
	}

	name, n, err := f.engine.ReleaseSite(ctx, f.project, " B.example. ")
	if err != nil || n != 2 || name != "b.example" {
		t.Fatalf("release: %q %d %v", name, n, err)
	}
	b, err := sites.NewStore(f.pool).Get(ctx, f.project.ID, "b.example")
	if err != nil || b.Out != 0 || b.Queued != 2 || b.Downloader != "" || !b.Due(time.Now()) {
		t.Fatalf("b.example released: %+v %v", b, err)
	}
	if a := f.site(t, "a.example"); a.Out != 1 || a.Downloader != "alice" {
		t.Fatalf("a.example, another site: %+v", a)
	}
	// Each item is back in its own queue, handed out once more.
	live, err := projects.NewCache(f.store, 0).Get(ctx, f.project.Slug)
	if err != nil {
		t.Fatal(err)
	}
	for name, queue := range map[string]string{"https://b.example/1": "todo", "https://b.example/2": "redo"} {
		st, err := f.engine.Lookup(ctx, live, name)
		if err != nil || st.Status != items.StatusTodo || st.Queue != queue || st.ClaimCount != 1 {
			t.Errorf("%s after the release: %+v %v, want queued in %s", name, st, err, queue)
		}
	}
	got = f.claim(t, "bob", 10)
	slices.Sort(got)
	if !slices.Equal(got, []string{"https://b.example/1", "https://b.example/2"}) {
		t.Fatalf("bob got %v, want b.example's two items", got)
	}
	// alice still reports hers done: released, not taken from her.
	if n := f.complete(t, items.Completion{Downloader: "alice", Items: []string{"https://a.example/1"}}); n != 1 {
		t.Fatalf("alice's done of a.example: %d", n)
	}

	// Names the project has no site of.
	for name, want := range map[string]error{"": sites.ErrNoName, "  ": sites.ErrNoName, "nope.example": sites.ErrNotFound, strings.Repeat("x", 300): sites.ErrNotFound} {
		if _, n, err := f.engine.ReleaseSite(ctx, f.project, name); !errors.Is(err, want) || n != 0 {
			t.Errorf("release %q: %d %v, want %v", name, n, err, want)
		}
	}
	entries, err := audit.New(f.pool).List(ctx, audit.Filter{ProjectID: f.project.ID, Max: 10})
	if err != nil {
		t.Fatal(err)
	}
	var releases []string
	for _, e := range entries {
		if strings.HasSuffix(e.Action, ".release") {
			releases = append(releases, e.Action+" "+e.Detail)
		}
	}
	if want := []string{`site.release {"site": "b.example", "released": 2}`}; !slices.Equal(releases, want) {
		t.Fatalf("audit log: %q, want %q", releases, want)
	}
	if r, err := books.Of(ctx, f.pool, f.project); err != nil || !r.Balanced {
		t.Fatalf("books: %v %+v", err, r)
	}
}

// A site released in a project that no longer keeps sites puts its items
// back in the queue's plain stretch, behind the head this process claimed
// up to: the next claim, made with a view of the project read before the
// release, starts from the queue's head again and takes them first.
func TestReleaseSiteForgetsHeads(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setup(t)
	f.set(t, "site_key=host")
	f.add(t, "todo", "https://a.example/1")
	if got := f.claim(t, "alice", 1); !slices.Equal(got, []string{"https://a.example/1"}) {
		t.Fatalf("alice got %v", got)
	}
	f.set(t, "site_key=off")
	f.add(t, "todo", "https://c.example/2", "https://c.example/3")
	// One view of the project for what follows, as the project cache
	// keeps it: it does not see the release's requeued count.
	live, err := projects.NewCache(f.store, time.Hour).Get(ctx, f.project.Slug)
	if err != nil {
		t.Fatal(err)
	}
	request := func(nick string) []string {
		t.Helper()
		h, err := f.engine.Request(ctx, live, items.ClaimRequest{Downloader: nick, Max: 1})
		if err != nil {
			t.Fatalf("%s: %v", nick, err)
		}
		return h.Names
	}
	if got := request("bob"); !slices.Equal(got, []string{"https://c.example/2"}) {
		t.Fatalf("bob got %v", got)
	}
	if _, n, err := f.engine.ReleaseSite(ctx, f.project, "a.example"); err != nil || n != 1 {
		t.Fatalf("release: %d %v", n, err)
	}
	if got := request("carol"); !slices.Equal(got, []string{"https://a.example/1"}) {
		t.Fatalf("carol got %v, want the released item, first in the queue", got)
	}
	if got := request("dave"); !slices.Equal(got, []string{"https://c.example/3"}) {
		t.Fatalf("dave got %v", got)
	}
}

// A selection by site counts and releases the claims of that site only;
// the queue operations, which select queued and completed items, refuse
// it rather than take every item.
func TestSelectionBySite(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setup(t)
	f.set(t, "site_key=host")
	f.add(t, "todo", "https://a.example/1", "https://a.example/2", "https://b.example/1", "https://b.example/2")
	if got := f.claim(t, "alice", 3); len(got) != 3 {
		t.Fatalf("alice got %v", got)
	}
	a, err := sites.NewStore(f.pool).Get(ctx, f.project.ID, "a.example")
	if err != nil {
		t.Fatal(err)
	}
	sel := items.Selection{Site: a.ID}
	if n, err := f.engine.CountClaimsWhere(ctx, f.project, "", 0, sel); err != nil || n != a.Out {
		t.Fatalf("claims of a.example counted: %d %v, want %d", n, err, a.Out)
	}
	var invalid *refusal.Error
	if _, err := f.engine.MoveQueue(ctx, f.project, "todo", "", sel); !errors.As(err, &invalid) {
		t.Fatalf("drain by site: %v", err)
	}
	if _, err := f.engine.RequeueDone(ctx, f.project, "todo", sel); !errors.As(err, &invalid) {
		t.Fatalf("requeue by site: %v", err)
	}
	if _, err := f.engine.CountQueued(ctx, f.project, "todo", sel); !errors.As(err, &invalid) {
		t.Fatalf("count queued by site: %v", err)
	}
	if _, err := f.engine.CountDone(ctx, f.project, sel); !errors.As(err, &invalid) {
		t.Fatalf("count done by site: %v", err)
	}
	if s := f.summary(t); s.Queues["todo"] != 1 || s.Claims != 3 {
		t.Fatalf("the refusals changed something: %+v", s)
	}
	if n, err := f.engine.ReleaseWhere(ctx, f.project, "", 0, sel); err != nil || n != a.Out {
		t.Fatalf("claims of a.example released: %d %v, want %d", n, err, a.Out)
	}
	if a := f.site(t, "a.example"); a.Out != 0 {
		t.Fatalf("a.example after its release: %+v", a)
	}
	if b := f.site(t, "b.example"); b.Out+b.Queued != 2 || b.Out == 0 {
		t.Fatalf("b.example, another site: %+v", b)
	}
}
