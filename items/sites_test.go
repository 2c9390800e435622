package items_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"tracker/books"
	"tracker/db/dbtest"
	"tracker/items"
	"tracker/projects"
)

// set sets the project's keys and fails the test on an error.
func (f *fixture) set(t *testing.T, assignments ...string) {
	t.Helper()
	p, err := f.store.Set(context.Background(), f.project, assignments)
	if err != nil {
		t.Fatal(err)
	}
	f.project = p
}

// site is the state of one of the project's sites.
type siteState struct {
	Queued, Out int64
	AtLimit     bool
	Downloader  string
}

func (f fixture) site(t *testing.T, name string) siteState {
	t.Helper()
	var s siteState
	err := f.pool.QueryRow(context.Background(),
		`SELECT queued, out, at_limit, CASE WHEN out > 0 THEN downloader ELSE '' END FROM sites WHERE project_id = $1 AND name = $2`,
		f.project.ID, name).Scan(&s.Queued, &s.Out, &s.AtLimit, &s.Downloader)
	if err != nil {
		t.Fatalf("site %s: %v", name, err)
	}
	return s
}

// makeDue lets every site be handed out again, as the passing of its
// interval would (the hand-outs' times stay: the books of politeness no
// longer hold).
func (f fixture) makeDue(t *testing.T) {
	t.Helper()
	dbtest.Due(t, f.pool, dbtest.Sites(f.project.ID))
}

// refusal asks for n items and returns the refusal (nil when served).
func (f fixture) refusal(t *testing.T, nick string, n int) *items.Refusal {
	t.Helper()
	live, err := projects.NewCache(f.store, 0).Get(context.Background(), f.project.Slug)
	if err != nil {
		t.Fatal(err)
	}
	got, err := f.engine.Request(context.Background(), live, items.ClaimRequest{Downloader: nick, Max: n})
	var r *items.Refusal
	if !errors.As(err, &r) {
		t.Fatalf("%s got %v (%v), want a refusal", nick, got.Names, err)
	}
	return r
}

func (f fixture) polite(t *testing.T) {
	t.Helper()
	p, err := books.PolitenessOf(context.Background(), f.pool, f.project)
	if err != nil {
		t.Fatal(err)
	}
	if p.UnderInterval != 0 || p.OverLimit != 0 {
		t.Fatalf("impolite: %+v", p)
	}
}

func siteOf(name string) string {
	host, _, _ := strings.Cut(strings.TrimPrefix(name, "https://"), "/")
	return host
}

// A site holds at most site_claims_limit items out and is handed out once
// per site_interval; a multi request takes several items of one due site;
// names that are no URL are served as ever; the sites' counters follow.
func TestSitesPoliteness(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.set(t, "site_key=host", "site_claims_limit=2", "site_interval=3600")
	f.add(t, "todo", "https://a.example/1", "https://a.example/2", "https://a.example/3",
		"https://b.example/1", "https://b.example/2", "https://b.example/3", "user:x")
	if s := f.site(t, "a.example"); s.Queued != 3 || s.Out != 0 {
		t.Fatalf("a.example before: %+v", s)
	}

	got := f.claim(t, "alice", 10)
	slices.Sort(got)
	want := []string{"https://a.example/1", "https://a.example/2", "https://b.example/1", "https://b.example/2", "user:x"}
	if !slices.Equal(got, want) {
		t.Fatalf("alice got %v, want %v", got, want)
	}
	if s := f.site(t, "a.example"); s.Queued != 1 || s.Out != 2 || !s.AtLimit || s.Downloader != "alice" {
		t.Fatalf("a.example after the hand-out: %+v", s)
	}
	// Both sites wait: at their limit, and within their interval.
	if r := f.refusal(t, "bob", 5); r.Reason != items.ReasonSitesWaiting || r.RetryAfter <= 0 {
		t.Fatalf("bob: %+v", r)
	}

	// A done brings a.example under its limit, but its interval holds it.
	f.complete(t, items.Completion{Downloader: "alice", Items: []string{"https://a.example/1"}, Bytes: map[string]int64{"data": 7}})
	if s := f.site(t, "a.example"); s.Out != 1 || s.AtLimit {
		t.Fatalf("a.example after a done: %+v", s)
	}
	if r := f.refusal(t, "bob", 5); r.Reason != items.ReasonSitesWaiting {
		t.Fatalf("bob within the interval: %+v", r)
	}
	// Once due, a.example gives one item (its limit less the one out) and
	// b.example, at its limit, none.
	f.makeDue(t)
	if got := f.claim(t, "bob", 5); !slices.Equal(got, []string{"https://a.example/3"}) {
		t.Fatalf("bob got %v", got)
	}
	f.balanced(t)
}

// A site's budget comes back with a done, a release and an expiry; an
// expiry or a release frees the site for another downloader.
func TestSitesBudgetRestored(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setup(t)
	f.set(t, "site_key=registrable", "site_claims_limit=1", "site_affinity=true", "reclaim_ttl=60")
	f.add(t, "todo", "https://www.a.example/1", "https://img.a.example/2", "https://www.a.example/3")
	// Both hosts are the registrable domain a.example: one site.
	if got := f.claim(t, "alice", 3); !slices.Equal(got, []string{"https://www.a.example/1"}) {
		t.Fatalf("alice got %v", got)
	}
	if r := f.refusal(t, "bob", 1); r.Reason != items.ReasonSitesWaiting {
		t.Fatalf("bob: %+v", r)
	}

	// Released: the budget is back, and the site is nobody's.
	if _, err := f.engine.Release(ctx, f.project, []string{"https://www.a.example/1"}, "alice"); err != nil {
		t.Fatal(err)
	}
	if s := f.site(t, "a.example"); s.Out != 0 || s.AtLimit || s.Downloader != "" || s.Queued != 3 {
		t.Fatalf("after the release: %+v", s)
	}
	if got := f.claim(t, "bob", 1); !slices.Equal(got, []string{"https://www.a.example/1"}) {
		t.Fatalf("bob got %v", got)
	}

	// Expired: the same.
	f.expire(t)
	if s := f.site(t, "a.example"); s.Out != 0 || s.Downloader != "" || s.Queued != 3 {
		t.Fatalf("after the expiry: %+v", s)
	}
	if got := f.claim(t, "carol", 1); !slices.Equal(got, []string{"https://www.a.example/1"}) {
		t.Fatalf("carol got %v", got)
	}

	// Done (by the holder): the next item goes out.
	f.complete(t, items.Completion{Downloader: "carol", Items: []string{"https://www.a.example/1"}, Bytes: map[string]int64{"data": 5}})
	if s := f.site(t, "a.example"); s.Out != 0 || s.Queued != 2 {
		t.Fatalf("after the done: %+v", s)
	}
	if got := f.claim(t, "dave", 1); !slices.Equal(got, []string{"https://img.a.example/2"}) {
		t.Fatalf("dave got %v", got)
	}
	var done, bytes int64
	if err := f.pool.QueryRow(ctx, `SELECT done, bytes FROM sites WHERE project_id = $1 AND name = 'a.example'`, f.project.ID).Scan(&done, &bytes); err != nil || done != 1 || bytes != 5 {
		t.Fatalf("a.example's completions: %d items, %d bytes (%v)", done, bytes, err)
	}
	f.balanced(t)
}

// With site_affinity, a site's items go only to the downloader holding
// items of it.
func TestSitesAffinity(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.set(t, "site_key=host", "site_claims_limit=3", "site_affinity=true")
	f.add(t, "todo", "https://a.example/1", "https://a.example/2", "https://a.example/3")
	if got := f.claim(t, "alice", 1); !slices.Equal(got, []string{"https://a.example/1"}) {
		t.Fatalf("alice got %v", got)
	}
	if r := f.refusal(t, "bob", 2); r.Reason != items.ReasonSitesWaiting {
		t.Fatalf("bob: %+v", r)
	}
	if got := f.claim(t, "alice", 2); !slices.Equal(got, []string{"https://a.example/2", "https://a.example/3"}) {
		t.Fatalf("alice got %v", got)
	}
	f.balanced(t)
}

// Without affinity, two downloaders may share a site within its limit.
func TestSitesWithoutAffinity(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.set(t, "site_key=host", "site_claims_limit=2")
	f.add(t, "todo", "https://a.example/1", "https://a.example/2", "https://a.example/3")
	if got := f.claim(t, "alice", 1); len(got) != 1 {
		t.Fatalf("alice got %v", got)
	}
	if got := f.claim(t, "bob", 5); len(got) != 1 {
		t.Fatalf("bob got %v", got)
	}
	if s := f.site(t, "a.example"); s.Out != 2 || !s.AtLimit {
		t.Fatalf("a.example: %+v", s)
	}
	f.balanced(t)
}

// Politeness holds across tracker processes under concurrent load: two
// engines on two pools, many warriors each, every item handed out once,
// no site over its limit or under its interval, the books balanced.
func TestSitesPoliteAcrossProcesses(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.set(t, "site_key=host", "site_claims_limit=2", "site_interval=1")
	const sites, perSite = 40, 4
	var names []string
	for i := range perSite {
		for s := range sites {
			names = append(names, fmt.Sprintf("https://s%d.example/%d", s, i))
		}
	}
	f.add(t, "todo", names...)
	engines := []*items.Engine{f.engine, items.NewEngine(f.pool, slog.New(slog.DiscardHandler))}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var mu sync.Mutex
	handed := map[string]string{}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for w := range 16 {
		engine := engines[w%2]
		nick := fmt.Sprintf("w%d", w)
		wg.Go(func() {
			cache := projects.NewCache(f.store, 0)
			for {
				mu.Lock()
				finished := len(handed) == len(names)
				mu.Unlock()
				if finished || ctx.Err() != nil {
					return
				}
				live, err := cache.Get(ctx, f.project.Slug)
				if err != nil {
					errs <- err
					return
				}
				got, err := engine.Request(ctx, live, items.ClaimRequest{Downloader: nick, Max: 1 + w%3})
				var r *items.Refusal
				if errors.As(err, &r) {
					// Every site waits: try again a little later, as a
					// warrior does after its Retry-After.
					time.Sleep(20 * time.Millisecond)
					continue
				}
				if err != nil {
					errs <- err
					return
				}
				mu.Lock()
				for _, name := range got.Names {
					if prev, dup := handed[name]; dup {
						errs <- fmt.Errorf("%s handed to %s and %s", name, prev, nick)
					}
					handed[name] = nick
				}
				mu.Unlock()
				if _, err := engine.Complete(ctx, f.project, items.Completion{Downloader: nick, Items: got.Names, Bytes: map[string]int64{"data": 1}}); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if len(handed) != len(names) {
		t.Fatalf("%d items handed out of %d", len(handed), len(names))
	}
	// Each site was handed out at least perSite/limit times, an interval
	// apart.
	f.polite(t)
	f.balanced(t)
	for s := range 3 {
		if st := f.site(t, siteOf(names[s])); st.Queued != 0 || st.Out != 0 {
			t.Fatalf("site %d: %+v", s, st)
		}
	}
}

// Bad site keys are refused and change nothing; sites and type limits do
// not go together.
func TestSiteKeysRefused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setup(t)
	for _, bad := range [][]string{
		{"site_key=domain"},
		{"site_claims_limit=-1"},
		{"site_interval=soon"},
		{"site_affinity=maybe"},
		{"recrawl_after=1h"},
		// Past what the engine's arithmetic takes.
		{"site_claims_limit=9223372036854775807"},
		{"site_interval=9223372036854775807"},
		{"recrawl_after=9223372036854775807"},
		{"site_key=host", "type_limits=user:60"},
	} {
		_, err := f.store.Set(ctx, f.project, bad)
		var fe projects.FieldErrors
		if !errors.As(err, &fe) {
			t.Fatalf("%v: %v, want field errors", bad, err)
		}
	}
	p, err := f.store.Get(ctx, f.project.Slug)
	if err != nil {
		t.Fatal(err)
	}
	if p.Config.Sited() || p.Config.SiteClaimsLimit != 0 || len(p.Config.TypeLimits) != 0 {
		t.Fatalf("config changed: %+v", p.Config)
	}
}

// A project that stops keeping sites serves their items by its queue
// walks again.
func TestSitesTurnedOff(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.set(t, "site_key=host", "site_claims_limit=1", "site_interval=3600")
	f.add(t, "todo", "https://a.example/1", "https://a.example/2")
	if got := f.claim(t, "alice", 2); len(got) != 1 {
		t.Fatalf("alice got %v", got)
	}
	f.set(t, "site_key=off")
	if got := f.claim(t, "alice", 2); !slices.Equal(got, []string{"https://a.example/2"}) {
		t.Fatalf("alice got %v after sites were turned off", got)
	}
	f.balanced(t)
}

// Whatever site_key becomes (host, registrable, off) and whenever, every
// item stays servable: one out, completed or waiting for its visit when the
// key changes goes back to be handed out (a release, an expiry, a revisit,
// an admin's requeue), and an import, a backfeed or a move run on a view of
// the project read before the change queues it where the requests look. A
// process may hold such a view for a moment after the change, so every
// step after it is given the old one.
func TestSiteKeyChangeStrandsNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const name = "https://www.a.example/1"
	// Each path: what happens under the old key, and what puts the item
	// (back) in a queue under the new one, with the old view.
	paths := []struct {
		name   string
		config []string
		before func(t *testing.T, f *fixture)
		after  func(t *testing.T, f *fixture, old projects.Project)
	}{
		{"release", nil, func(t *testing.T, f *fixture) {
			f.add(t, "todo", name)
			f.claim(t, "alice", 1)
		}, func(t *testing.T, f *fixture, old projects.Project) {
			if got, err := f.engine.Release(ctx, old, []string{name}, "alice"); err != nil || len(got) != 1 {
				t.Fatalf("released %v: %v", got, err)
			}
		}},
		{"expiry", []string{"reclaim_ttl=60"}, func(t *testing.T, f *fixture) {
			f.add(t, "todo", name)
			f.claim(t, "alice", 1)
		}, func(t *testing.T, f *fixture, old projects.Project) {
			f.age(t)
			if n, _, err := f.engine.ReclaimExpired(ctx, old, 100); err != nil || n != 1 {
				t.Fatalf("reclaimed %d: %v", n, err)
			}
		}},
		{"revisit", []string{"mode=recurring"}, func(t *testing.T, f *fixture) {
			f.add(t, "todo", name)
			f.complete(t, items.Completion{Downloader: "alice", Items: f.claim(t, "alice", 1)})
		}, func(t *testing.T, f *fixture, old projects.Project) {
			dbtest.Due(t, f.pool, dbtest.Revisits(old.ID))
			if n, err := f.engine.RevisitDue(ctx, old, 100); err != nil || n != 1 {
				t.Fatalf("revisited %d: %v", n, err)
			}
		}},
		{"requeue", nil, func(t *testing.T, f *fixture) {
			f.add(t, "todo", name)
			f.complete(t, items.Completion{Downloader: "alice", Items: f.claim(t, "alice", 1)})
		}, func(t *testing.T, f *fixture, old projects.Project) {
			if n, err := f.engine.RequeueDone(ctx, old, "todo", items.Exactly(name)); err != nil || n != 1 {
				t.Fatalf("requeued %d: %v", n, err)
			}
		}},
		{"move", nil, func(t *testing.T, f *fixture) {
			f.add(t, "todo", name)
		}, func(t *testing.T, f *fixture, old projects.Project) {
			if n, err := f.engine.MoveQueue(ctx, old, "todo", "secondary", items.Selection{}); err != nil || n != 1 {
				t.Fatalf("moved %d: %v", n, err)
			}
		}},
		{"import", nil, func(*testing.T, *fixture) {}, func(t *testing.T, f *fixture, old projects.Project) {
			if res, err := f.engine.Add(ctx, old, "todo", strings.NewReader(name)); err != nil || res.Added != 1 {
				t.Fatalf("imported %+v: %v", res, err)
			}
		}},
		{"backfeed", nil, func(*testing.T, *fixture) {}, func(t *testing.T, f *fixture, old projects.Project) {
			if n, _, err := f.engine.Backfeed(ctx, old, "", []items.BackfeedEntry{{Key: name, Item: name}}); err != nil || n != 1 {
				t.Fatalf("backfed %d: %v", n, err)
			}
		}},
	}
	keys := []string{"off", "host", "registrable"}
	for _, path := range paths {
		for _, from := range keys {
			for _, to := range keys {
				if from == to {
					continue
				}
				t.Run(fmt.Sprintf("%s/%s-to-%s", path.name, from, to), func(t *testing.T) {
					t.Parallel()
					f := setup(t)
					f.set(t, append([]string{"site_key=" + from}, path.config...)...)
					path.before(t, &f)
					old := f.project
					f.set(t, "site_key="+to)
					path.after(t, &f, old)
					if st := f.status(t, name); st.Status != items.StatusTodo {
						t.Fatalf("the item is %q, want queued", st.Status)
					}
					f.balanced(t)
					if got := f.claim(t, "bob", 2); !slices.Equal(got, []string{name}) {
						t.Fatalf("bob got %q, want %s", got, name)
					}
					f.balanced(t)
				})
			}
		}
	}
}

// A site_claims_limit lowered below what a site has out holds up that site
// alone: the site due longest, now over the limit, is passed over and the
// sites behind it are served. Raised, it lets a site at its old limit hand
// out again at once, without waiting for one of its items to come back.
func TestSitesLimitChanged(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.set(t, "site_key=host", "site_claims_limit=3")
	f.add(t, "todo", "https://a.example/1", "https://a.example/2", "https://a.example/3")
	if got := f.claim(t, "alice", 2); len(got) != 2 || siteOf(got[0]) != "a.example" || siteOf(got[1]) != "a.example" {
		t.Fatalf("alice got %v", got)
	}
	f.add(t, "todo", "https://b.example/1", "https://b.example/2")
	// a.example is due longest: the first site a request looks at.
	f.makeDue(t)
	dbtest.Age(t, f.pool, time.Hour, dbtest.Sites(f.project.ID, "a.example"))
	f.set(t, "site_claims_limit=1")
	if got := f.claim(t, "bob", 1); !slices.Equal(got, []string{"https://b.example/1"}) {
		t.Fatalf("bob got %v under the lowered limit, want b.example's first item", got)
	}
	if s := f.site(t, "a.example"); s.Queued != 1 || s.Out != 2 {
		t.Fatalf("a.example: %+v", s)
	}
	if s := f.site(t, "b.example"); s.Queued != 1 || s.Out != 1 || !s.AtLimit {
		t.Fatalf("b.example: %+v", s)
	}
	// Raised to 3: b.example, at its limit of 1, and a.example, over it,
	// are both under the new one and hand out their last items.
	f.set(t, "site_claims_limit=3")
	f.makeDue(t)
	got := f.claim(t, "carol", 2)
	slices.Sort(got)
	if want := []string{"https://a.example/3", "https://b.example/2"}; !slices.Equal(got, want) {
		t.Fatalf("carol got %v under the raised limit, want %v", got, want)
	}
	f.balanced(t)
}

// recrawl_after: a name backfed again is a duplicate while its last
// hand-out is recent and queued again once it is older; another update tag
// queues it again at once.
func TestRecrawl(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setup(t)
	f.set(t, "site_key=host", "recrawl_after=3600")
	backfeed := func(names ...string) int64 {
		t.Helper()
		var entries []items.BackfeedEntry
		for _, n := range names {
			entries = append(entries, items.BackfeedEntry{Key: n, Item: n})
		}
		fresh, _, err := f.engine.Backfeed(ctx, f.project, "", entries)
		if err != nil {
			t.Fatal(err)
		}
		return fresh
	}
	visit := func(name string) {
		t.Helper()
		got := f.claim(t, "alice", 5)
		if !slices.Equal(got, []string{name}) {
			t.Fatalf("alice got %v, want %s", got, name)
		}
		f.complete(t, items.Completion{Downloader: "alice", Items: got, Bytes: map[string]int64{"data": 1}})
	}

	if n := backfeed("https://a.example/1"); n != 1 {
		t.Fatalf("first backfeed queued %d", n)
	}
	// Queued: a duplicate.
	if n := backfeed("https://a.example/1"); n != 0 {
		t.Fatalf("backfeed of a queued name queued %d", n)
	}
	visit("https://a.example/1")
	// Handed out a moment ago: a duplicate.
	if n := backfeed("https://a.example/1"); n != 0 {
		t.Fatalf("backfeed within the window queued %d", n)
	}
	// Handed out two hours ago: queued again, under the same id.
	dbtest.Age(t, f.pool, 2*time.Hour, dbtest.Completions(f.project.ID))
	if n := backfeed("https://a.example/1", "https://a.example/1"); n != 1 {
		t.Fatalf("backfeed after the window queued %d", n)
	}
	visit("https://a.example/1")

	// Update tags: the same tag is a duplicate, another is queued at once.
	tagged := func(tag string) string { return "https://a.example/2\x1ftag=" + tag }
	if n := backfeed(tagged("v1")); n != 1 {
		t.Fatalf("tagged backfeed queued %d", n)
	}
	visit(tagged("v1"))
	if n := backfeed(tagged("v1")); n != 0 {
		t.Fatalf("same tag queued %d", n)
	}
	if n := backfeed(tagged("v2")); n != 1 {
		t.Fatalf("new tag queued %d", n)
	}
	visit(tagged("v2"))
	f.balanced(t)
	f.polite(t)
}

// Without a limit per site, a multi request still takes items of many
// sites, each site's items queued at most.
func TestSitesWithoutLimit(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.set(t, "site_key=host")
	f.add(t, "todo", "https://a.example/1", "https://b.example/1", "https://c.example/1", "https://c.example/2")
	if got := f.claim(t, "alice", 10); len(got) != 4 {
		t.Fatalf("alice got %v", got)
	}
	f.balanced(t)
}

// Every spelling of a host is one site: bücher.de in U-labels, in A-labels
// and in capitals is paced as one; a host that is no valid name is no
// site, its item served as ever.
func TestSitesOfOneHostSpelledAnew(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.set(t, "site_key=registrable", "site_claims_limit=1", "site_interval=3600")
	f.add(t, "todo", "https://bücher.de/1", "https://xn--bcher-kva.de/2", "https://WWW.BÜCHER.DE./3",
		"https://ｅｘａｍｐｌｅ.com/a", "https://example.com/b", "https://.com/x", "https://exa\u200dmple.com/y")
	var names []string
	if err := f.pool.QueryRow(context.Background(), `SELECT array_agg(name ORDER BY name) FROM sites WHERE project_id = $1`, f.project.ID).Scan(&names); err != nil {
		t.Fatal(err)
	}
	if want := []string{"example.com", "xn--bcher-kva.de"}; !slices.Equal(names, want) {
		t.Fatalf("sites %q, want %q", names, want)
	}
	if s := f.site(t, "xn--bcher-kva.de"); s.Queued != 3 {
		t.Fatalf("xn--bcher-kva.de: %+v, want its 3 items", s)
	}
	// One item of each site, by its limit, and the two with none.
	got := f.claim(t, "alice", 10)
	slices.Sort(got)
	want := []string{"https://.com/x", "https://bücher.de/1", "https://exa\u200dmple.com/y", "https://ｅｘａｍｐｌｅ.com/a"}
	if !slices.Equal(got, want) {
		t.Fatalf("alice got %q, want %q", got, want)
	}
	if s := f.site(t, "xn--bcher-kva.de"); s.Queued != 2 || s.Out != 1 || !s.AtLimit {
		t.Fatalf("xn--bcher-kva.de after the hand-out: %+v", s)
	}
	f.polite(t)
}
