package items_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"tracker/books"
	"tracker/items"
	"tracker/projects"
)

func (f fixture) backfeed(t *testing.T, shard string, body string) (fresh, dups int64) {
	t.Helper()
	entries, err := items.ParseBackfeed([]byte(body), []byte{0}, []byte{0x1f}, false)
	if err != nil {
		t.Fatal(err)
	}
	fresh, dups, err = f.engine.Backfeed(context.Background(), f.project, shard, entries)
	if err != nil {
		t.Fatal(err)
	}
	return fresh, dups
}

func (f fixture) lookup(t *testing.T, shard, name string) (items.ItemStatus, error) {
	t.Helper()
	live, err := projects.NewCache(f.store, 0).Get(context.Background(), f.project.Slug)
	if err != nil {
		t.Fatal(err)
	}
	return f.engine.LookupInShard(context.Background(), live, shard, name)
}

func (f fixture) balanced(t *testing.T) {
	t.Helper()
	r, err := books.Of(context.Background(), f.pool, f.project)
	if err != nil || !r.Balanced {
		t.Fatalf("books: %v %+v", err, r)
	}
}

// A post exactly as urls-grab sends it: KEY 0x1F ITEM, the key deduplicated
// within its shard, the item queued, handed out and completed.
func TestBackfeedKeysAndShards(t *testing.T) {
	t.Parallel()
	f := setup(t)
	body := "url\x1furl\x00url2\x1furl2\x1fparams\x00"
	if fresh, dups := f.backfeed(t, "onetime", body); fresh != 2 || dups != 0 {
		t.Fatalf("first post: %d new, %d duplicates", fresh, dups)
	}
	if fresh, dups := f.backfeed(t, "onetime", body+"url2\x1furl2\x1fother\x00"); fresh != 0 || dups != 3 {
		t.Fatalf("same shard again: %d new, %d duplicates", fresh, dups)
	}
	// The key and the item both find it; the item is what was queued.
	for _, name := range []string{"url2", "url2\x1fparams"} {
		st, err := f.lookup(t, "onetime", name)
		if err != nil || st.Status != items.StatusTodo || st.Name != "url2\x1fparams" {
			t.Fatalf("lookup %q in its shard: %+v %v", name, st, err)
		}
	}
	// Out of its shard, the key finds it as an item name too (urls-grab's
	// keys are the item's URL).
	if st, err := f.lookup(t, "", "url2"); err != nil || st.Name != "url2\x1fparams" {
		t.Fatalf("lookup by item: %+v %v", st, err)
	}
	f.balanced(t)

	got := f.claim(t, "alice", 10)
	if !slices.Equal(got, []string{"url", "url2\x1fparams"}) {
		t.Fatalf("handed out %q, want the items without their keys", got)
	}
	if st, err := f.lookup(t, "onetime", "url2"); err != nil || st.Status != items.StatusClaimed || st.Downloader != "alice" {
		t.Fatalf("lookup claimed: %+v %v", st, err)
	}
	f.balanced(t)

	// Another shard queues the same keys again; while a copy of an item is
	// out, its other copy waits in the queue.
	if fresh, dups := f.backfeed(t, "periodic2026327", body); fresh != 2 || dups != 0 {
		t.Fatalf("other shard: %d new, %d duplicates", fresh, dups)
	}
	if got := f.claim(t, "bob", 10); len(got) != 0 {
		t.Fatalf("handed out %q while the same items are out", got)
	}
	f.balanced(t)
	if n := f.complete(t, items.Completion{Downloader: "alice", Items: []string{"url", "url2\x1fparams"}}); n != 2 {
		t.Fatalf("completed %d, want 2", n)
	}
	if st, err := f.lookup(t, "onetime", "url"); err != nil || st.Status != items.StatusDone {
		t.Fatalf("lookup done: %+v %v", st, err)
	}
	// The copies from the other shard are handed out now, and their keys
	// in that shard find them, not the done ones.
	if got := f.claim(t, "bob", 10); !slices.Equal(got, []string{"url", "url2\x1fparams"}) {
		t.Fatalf("second copies: %q", got)
	}
	if st, err := f.lookup(t, "periodic2026327", "url"); err != nil || st.Status != items.StatusClaimed || st.Downloader != "bob" {
		t.Fatalf("lookup in the other shard: %+v %v", st, err)
	}
	if st, err := f.lookup(t, "onetime", "url"); err != nil || st.Status != items.StatusDone {
		t.Fatalf("lookup in the first shard: %+v %v", st, err)
	}
	f.balanced(t)
	f.complete(t, items.Completion{Downloader: "bob", Items: []string{"url", "url2\x1fparams"}})
	if s := f.summary(t); s.Done != 4 || s.Claims != 0 {
		t.Fatalf("summary %+v", s)
	}
	f.balanced(t)

	if _, err := f.lookup(t, "onetime", "nothing"); !errors.Is(err, items.ErrUnknownItem) {
		t.Fatalf("unknown key: %v", err)
	}
	if _, _, err := f.engine.Backfeed(context.Background(), f.project, "bad shard", nil); err == nil {
		t.Fatal("a bad shard was accepted")
	}
}

// Without a shard, deduplication is the project's as before: an import and
// a backfeed see each other, and a key that is not its item is found by
// both.
func TestBackfeedDefaultScope(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.add(t, "todo", "url:a")
	if fresh, dups := f.backfeed(t, "", "url:a\x00url:b\x1fitem:b\x00url:b\x00"); fresh != 1 || dups != 2 {
		t.Fatalf("backfeed: %d new, %d duplicates", fresh, dups)
	}
	if res := f.add(t, "todo", "url:b", "item:b"); res.Added != 1 || res.Skipped != 1 {
		t.Fatalf("import after backfeed: %+v", res)
	}
	for _, name := range []string{"url:b", "item:b"} {
		st, err := f.lookup(t, "", name)
		if err != nil || st.Queue == "" {
			t.Fatalf("lookup %q: %+v %v", name, st, err)
		}
	}
	if st, err := f.lookup(t, "", "url:b"); err != nil || st.Name != "item:b" || st.Queue != "backfeed" {
		t.Fatalf("the key finds %+v %v, want the backfed item", st, err)
	}
	f.balanced(t)
	// item:b twice: backfed under the key url:b, imported as itself.
	got := f.claim(t, "alice", 10)
	if !slices.Equal(got, []string{"url:a", "item:b"}) {
		t.Fatalf("handed out %q", got)
	}
	f.balanced(t)
	f.complete(t, items.Completion{Downloader: "alice", Items: got})
	if got := f.claim(t, "alice", 10); !slices.Equal(got, []string{"item:b"}) {
		t.Fatalf("then %q", got)
	}
	f.complete(t, items.Completion{Downloader: "alice", Items: []string{"item:b"}})
	f.balanced(t)
}
