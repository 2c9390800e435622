package load

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// fakeTracker hands out items of n names, refuses every other done once
// with a 503, and answers the backfeed; it counts what it was sent.
type fakeTracker struct {
	dones, refused, posts, names atomic.Int64
}

func (f *fakeTracker) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	switch {
	case strings.HasSuffix(r.URL.Path, "/request"):
		names := []string{"a"}
		if strings.Contains(r.URL.Path, "multi=3") {
			names = []string{"a", "b", "c"}
		}
		json.NewEncoder(w).Encode(map[string]string{"item_name": strings.Join(names, "\x00")})
	case strings.HasSuffix(r.URL.Path, "/done"):
		var done struct{ Item string }
		json.Unmarshal(body, &done)
		if f.dones.Add(1)%2 == 1 {
			f.refused.Add(1)
			w.Header().Set("X-Tracker-Reason", "busy")
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, "OK")
	case strings.HasPrefix(r.URL.Path, "/backfeed/legacy/p-key"):
		f.posts.Add(1)
		f.names.Add(int64(strings.Count(string(body), "\x00")))
	default:
		http.NotFound(w, r)
	}
}

// A multi warrior retries a refused done until it is acknowledged and
// counts each item once; every answer is recorded, the 503s by reason.
func TestWarrior(t *testing.T) {
	f := &fakeTracker{}
	srv := httptest.NewServer(f)
	defer srv.Close()
	l := &Load{Base: srv.URL, Project: "p", Stats: NewStats()}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	l.Warrior(ctx, "w1", 3)

	// The last done may have been acknowledged as the run ended, its
	// answer cut off: not counted.
	acked := f.dones.Load() - f.refused.Load()
	if n := l.Items.Load(); acked == 0 || n != 3*acked && n != 3*(acked-1) {
		t.Errorf("%d dones acknowledged, %d items counted: want 3 each", acked, n)
	}
	if l.Requests.Load() == 0 || l.Served.Load() != l.Requests.Load() {
		t.Errorf("requests %d, served %d", l.Requests.Load(), l.Served.Load())
	}
	if got := l.Stats.Count("done"); int64(got) < f.dones.Load()-1 || int64(got) > f.dones.Load() {
		t.Errorf("%d dones recorded, the tracker had %d", got, f.dones.Load())
	}
	if !strings.HasPrefix(l.Stats.Errors(), "503 busy×") {
		t.Errorf("errors %q, want the refusals by reason", l.Stats.Errors())
	}
}

// A grab script posts 200 fresh names, then 200 fresh and 200 of the post
// before, and counts them all.
func TestGrabScript(t *testing.T) {
	f := &fakeTracker{}
	srv := httptest.NewServer(f)
	defer srv.Close()
	l := &Load{Base: srv.URL, Project: "p", BackfeedKey: "key", Stats: NewStats(), BackfeedEvery: 50 * time.Millisecond}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Millisecond)
	defer cancel()
	l.GrabScript(ctx, 1)
	if f.posts.Load() < 2 {
		t.Fatalf("%d posts", f.posts.Load())
	}
	want := 200 + 400*(f.posts.Load()-1)
	// The last post may have been answered as the run ended: not counted.
	if n := l.Items.Load(); f.names.Load() != want || n != want && n != want-400 {
		t.Errorf("%d names sent, %d counted after %d posts; want %d", f.names.Load(), n, f.posts.Load(), want)
	}
}

// Sleep says whether the context outlived the wait.
func TestSleep(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	if !Sleep(ctx, time.Millisecond) || !Sleep(ctx, 0) {
		t.Error("a live context reported ended")
	}
	cancel()
	if Sleep(ctx, time.Hour) || Sleep(ctx, 0) {
		t.Error("an ended context reported live")
	}
}
