package stats

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"tracker/sites"
)

// A client that has the first board and applies each patch after it holds
// every later board: the same JSON, leaders' shares worked out again, and
// a feed that is the newest FeedSent entries of each board in front of
// what it had, with how many it skipped. Boards change at random: counts,
// leaders reordered, added and gone, maps' keys, objects that come and go,
// and from none to more than a whole feed of new entries at once.
func TestPatchesLeadToTheBoard(t *testing.T) {
	t.Parallel()
	for seed := range uint64(60) {
		r := rand.New(rand.NewPCG(seed, 1))
		b := randomBoard(r, time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC))
		prev := mustJSON(t, b)
		client := prev
		var clientFeed []FeedEntry = b.Feed
		skipped := 0
		for step := range 30 {
			fresh := evolve(r, b)
			next := mustJSON(t, b)
			patch, err := Diff(prev, next, fmt.Sprint(step), fmt.Sprint(step+1))
			if err != nil {
				t.Fatal(err)
			}
			if client, err = Apply(client, patch); err != nil {
				t.Fatalf("seed %d step %d: %v", seed, step, err)
			}
			var p Patch
			if err := json.Unmarshal(patch, &p); err != nil {
				t.Fatal(err)
			}
			sent := min(fresh, FeedSent)
			clientFeed = append(append([]FeedEntry{}, b.Feed[:sent]...), clientFeed...)
			clientFeed = clientFeed[:min(len(clientFeed), FeedKept)]
			skipped += fresh - sent
			if p.Feed != nil {
				skipped -= p.Feed.Skipped
			}
			want := *b
			want.Feed = clientFeed
			if got, w := normal(t, client), normal(t, mustJSON(t, &want)); !reflect.DeepEqual(got, w) {
				t.Fatalf("seed %d step %d: the client's board\n%s\nthe board\n%s\npatch %s", seed, step, client, mustJSON(t, &want), patch)
			}
			if skipped != 0 {
				t.Fatalf("seed %d step %d: the patches' skipped entries are off by %d", seed, step, skipped)
			}
			prev = next
		}
	}
}

// A board that did not change but in time is a patch of its time alone.
func TestPatchOfAQuietBoard(t *testing.T) {
	t.Parallel()
	b := randomBoard(rand.New(rand.NewPCG(1, 2)), time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC))
	a := mustJSON(t, b)
	b.At = b.At.Add(time.Second)
	b.Seq++
	patch, err := Diff(a, mustJSON(t, b), "1", "2")
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf(`{"from":"1","id":"2","board":{"at":%q,"seq":%d}}`, b.At.Format(time.RFC3339), b.Seq)
	if string(patch) != want {
		t.Fatalf("patch %s, want %s", patch, want)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	js, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return js
}

// normal is JSON decoded with its nulls and empty lists left out: a merge
// patch removes a key to make it null, and a reader takes the three the
// same.
func normal(t *testing.T, js []byte) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(js))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatal(err)
	}
	var drop func(any) any
	drop = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if l, isList := e.([]any); e == nil || isList && len(l) == 0 {
					delete(x, k)
				} else {
					x[k] = drop(e)
				}
			}
		case []any:
			for i, e := range x {
				x[i] = drop(e)
			}
		}
		return v
	}
	return drop(v)
}

var nicks = []string{"alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy", "mallory", "oscar"}

func randomBoard(r *rand.Rand, at time.Time) *Board {
	b := &Board{Project: "demo", Title: "Demo", Seq: 1, At: at,
		Totals: Totals{Queues: map[string]int64{"todo": 10}}}
	for range r.IntN(8) {
		b.Feed = append(b.Feed, feedEntry(r, b.At))
	}
	evolve(r, b)
	return b
}

func feedEntry(r *rand.Rand, at time.Time) FeedEntry {
	return FeedEntry{At: at.Add(-time.Duration(r.IntN(1000)) * time.Millisecond), Downloader: nicks[r.IntN(len(nicks))],
		Items: int64(1 + r.IntN(3)), Bytes: r.Int64N(1 << 30), Item: fmt.Sprintf("item:%d", r.Int64())}
}

// evolve moves board b a second on, at random, and says how many entries
// came into its feed.
func evolve(r *rand.Rand, b *Board) int {
	b.Seq++
	b.At = b.At.Add(time.Second)
	b.Totals.Done += int64(r.IntN(100))
	b.Totals.Bytes += r.Int64N(1 << 32)
	b.Totals.Claims = int64(r.IntN(50))
	if r.IntN(3) == 0 {
		b.Totals.Queues[fmt.Sprint("q", r.IntN(4))] = int64(r.IntN(9))
	}
	if r.IntN(4) == 0 {
		delete(b.Totals.Queues, fmt.Sprint("q", r.IntN(4)))
	}
	b.Rates.ItemsPerSec1m = r.Float64() * 100
	if r.IntN(2) == 0 {
		eta := r.Float64() * 1000
		b.Rates.ETASeconds = &eta
	} else {
		b.Rates.ETASeconds = nil
	}
	switch r.IntN(4) {
	case 0:
		b.Coverage = nil
	case 1:
		b.Coverage = &Coverage{Tracked: r.Int64N(1000), Covered: r.IntN(2) == 0}
	}
	switch r.IntN(5) {
	case 0:
		b.Sites = nil
	case 1:
		b.Sites = &sites.Summary{Sites: r.Int64N(100), At: b.At}
		for range r.IntN(4) {
			b.Sites.Top = append(b.Sites.Top, sites.TopSite{Name: nicks[r.IntN(len(nicks))]})
		}
	}
	b.Domains = b.Domains[:min(len(b.Domains), r.IntN(5))]
	for i := range b.Domains {
		if r.IntN(2) == 0 {
			b.Domains[i].Bytes += r.Int64N(1000)
		}
	}
	if r.IntN(3) == 0 {
		b.Domains = append(b.Domains, Domain{Domain: nicks[r.IntN(len(nicks))], Bytes: r.Int64N(1000)})
	}
	// Leaders: some work, the order changes, some come and go.
	if n := r.IntN(len(nicks) + 1); r.IntN(4) == 0 || b.Leaders == nil {
		b.Leaders = nil
		for i, nick := range r.Perm(len(nicks))[:n] {
			b.Leaders = append(b.Leaders, Leader{Rank: i + 1, Nick: nicks[nick], Version: "1"})
		}
	}
	for i := range b.Leaders {
		l := &b.Leaders[i]
		if r.IntN(2) == 0 {
			l.Items += int64(r.IntN(5))
			l.Bytes += r.Int64N(1 << 20)
			l.LastSeen = b.At.Add(-time.Duration(r.IntN(1000)) * time.Millisecond)
		}
		l.Outdated = r.IntN(10) == 0
		if b.Totals.Bytes > 0 {
			l.Share = float64(l.Bytes) / float64(b.Totals.Bytes)
		}
	}
	fresh := []int{0, 0, 1, 3, 5, 6, 20, FeedKept + 5}[r.IntN(8)]
	var feed []FeedEntry
	for range fresh {
		feed = append(feed, feedEntry(r, b.At))
	}
	b.Feed = append(feed, b.Feed...)
	b.Feed = b.Feed[:min(len(b.Feed), FeedKept)]
	return min(fresh, FeedKept)
}
