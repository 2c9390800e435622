package projects_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"tracker/db/dbtest"
	"tracker/projects"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

func TestCreateAndGet(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := projects.NewStore(dbtest.New(t))

	p, err := store.Create(ctx, "example-grab_2", "Example")
	if err != nil {
		t.Fatal(err)
	}
	if p.Title != "Example" || p.Config.Order != "fifo" || p.Config.MaxMulti != 100 {
		t.Errorf("new project %+v lacks the defaults", p)
	}
	if len(p.Config.BackfeedKey) < 16 {
		t.Errorf("backfeed key %q is too short to be a secret", p.Config.BackfeedKey)
	}
	got, err := store.Get(ctx, "example-grab_2")
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != p.ID || got.Config.BackfeedKey != p.Config.BackfeedKey {
		t.Errorf("Get = %+v, want %+v", got, p)
	}
	other, err := store.Create(ctx, "other", "")
	if err != nil {
		t.Fatal(err)
	}
	if other.Config.BackfeedKey == p.Config.BackfeedKey {
		t.Error("two projects share a backfeed key")
	}

	if _, err := store.Create(ctx, "example-grab_2", "again"); !errors.Is(err, projects.ErrExists) {
		t.Errorf("duplicate slug: err = %v, want ErrExists", err)
	}
	if _, err := store.Get(ctx, "missing"); !errors.Is(err, projects.ErrNotFound) {
		t.Errorf("missing project: err = %v, want ErrNotFound", err)
	}
	list, err := store.List(ctx)
	if err != nil || len(list) != 2 || list[0].Slug != "example-grab_2" || list[1].Slug != "other" {
		t.Errorf("List = %+v, %v", list, err)
	}
}

func TestValidSlug(t *testing.T) {
	t.Parallel()
	for slug, ok := range map[string]bool{
		"urls": true, "reddit-2023": true, "a": true, "x_y": true, "0day": true,
		"": false, "Upper": false, "-lead": false, "has space": false, "dot.json": false,
		"admin": false, "static": false, "backfeed": false, "healthz": false,
		"a234567890123456789012345678901234567890123456789012345678901234":  true,
		"a2345678901234567890123456789012345678901234567890123456789012345": false,
	} {
		if err := projects.ValidSlug(slug); (err == nil) != ok {
			t.Errorf("ValidSlug(%q) = %v, want ok=%v", slug, err, ok)
		}
	}
}

func TestCache(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.New(t)
	store := projects.NewStore(pool)
	p := dbtest.Project(t, pool, "cached", "")
	const ttl = time.Minute
	var mu sync.Mutex
	clock := time.Now()
	advance := func(d time.Duration) {
		mu.Lock()
		defer mu.Unlock()
		clock = clock.Add(d)
	}
	cache := projects.NewCache(store, ttl, projects.WithClock(func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		return clock
	}))
	live, err := cache.Get(ctx, "cached")
	if err != nil || live.Config.Paused {
		t.Fatalf("%+v %v", live, err)
	}
	if _, err := store.Set(ctx, p, []string{"paused=true"}); err != nil {
		t.Fatal(err)
	}
	advance(ttl - time.Nanosecond)
	if live, err = cache.Get(ctx, "cached"); err != nil || live.Config.Paused {
		t.Fatal("the cache read the database again within its ttl", err)
	}
	advance(time.Nanosecond)
	if live, err = cache.Get(ctx, "cached"); err != nil || !live.Config.Paused {
		t.Fatal("a change is not seen after the ttl", err)
	}
	if _, err := cache.Get(ctx, "missing"); !errors.Is(err, projects.ErrNotFound) {
		t.Fatalf("missing project: %v", err)
	}
	// With a ttl of 0 every read is fresh.
	fresh := projects.NewCache(store, 0)
	if _, err := fresh.Get(ctx, "cached"); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Set(ctx, live.Project, []string{"paused=false"}); err != nil {
		t.Fatal(err)
	}
	if live, err = fresh.Get(ctx, "cached"); err != nil || live.Config.Paused {
		t.Fatal("a ttl-0 cache served a stale project", err)
	}
}
