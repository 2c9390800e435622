package stats

import (
	"context"
	"testing"

	"tracker/items"
	"tracker/projects"
)

// A downloader's page agrees with itself: what they did since the rankings
// were read, folded or not yet, is in their last 24 hours and 7 days as in
// their items done. A warrior upgraded to the version now wanted, holding
// an item of it and with no done of it yet, is not called outdated; one
// holding an item claimed with the old version is.
func TestDownloaderPageAgrees(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setup(t, 40)
	f.work(t, "alice", "1", 5, 500)
	f.work(t, "bob", "1", 5, 500)
	if _, err := NewStore(f.pool).Fold(ctx); err != nil {
		t.Fatal(err)
	}
	// The rankings are read now, then alice does more: folded, and not.
	if _, err := f.hub.Ranking(ctx, f.project, Day, ByBytes, 0, 10); err != nil {
		t.Fatal(err)
	}
	f.work(t, "alice", "1", 3, 300)
	if _, err := NewStore(f.pool).Fold(ctx); err != nil {
		t.Fatal(err)
	}
	f.work(t, "alice", "1", 2, 200)
	d, err := f.hub.Downloader(ctx, f.project, "alice")
	if err != nil {
		t.Fatal(err)
	}
	if d.Items != 10 || d.Day.Items != d.Items || d.Week.Items != d.Items || d.Day.Bytes != d.Bytes || d.Week.Bytes != d.Bytes {
		t.Errorf("alice: %d items, %d bytes; last 24 hours %d, %d; last 7 days %d, %d",
			d.Items, d.Bytes, d.Day.Items, d.Day.Bytes, d.Week.Items, d.Week.Bytes)
	}

	// Bob claims an item with his version, then version 2 is wanted: alice
	// upgrades and claims an item.
	claim := func(nick, version string) {
		t.Helper()
		sum, err := f.store.Summary(ctx, f.project)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.engine.Request(ctx, &projects.Live{Project: f.project, Queues: sum.Queues, Summary: sum},
			items.ClaimRequest{Downloader: nick, Version: version, Max: 1}); err != nil {
			t.Fatal(err)
		}
	}
	claim("bob", "1")
	p, err := f.store.Set(ctx, f.project, []string{"min_version=2"})
	if err != nil {
		t.Fatal(err)
	}
	f.project = p
	claim("alice", "2")
	for nick, want := range map[string]bool{"alice": false, "bob": true} {
		d, err := f.hub.Downloader(ctx, f.project, nick)
		if err != nil {
			t.Fatal(err)
		}
		if d.Outdated != want {
			t.Errorf("%s (version %q, %d claims): outdated %v, want %v", nick, d.Version, d.Claims, d.Outdated, want)
		}
	}
}
