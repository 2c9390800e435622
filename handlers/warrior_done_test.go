package handlers_test

import (
	"io"
	"net/http"
	"testing"
)

// A done for an item someone else holds is answered OK, as every done is
// (anything else makes the warrior retry it forever), but completes
// nothing: the item stays with its holder, who still completes it, and the
// refusal shows in /metrics.
func TestDoneOfAnotherDownloadersClaim(t *testing.T) {
	t.Parallel()
	f := setup(t, "a")
	got, _ := f.request(t, "alice", 1)
	if len(got) != 1 {
		t.Fatalf("alice got %v", got)
	}
	a := f.do(t, "POST", "/test/done", `{"downloader":"mallory","item":"a","bytes":{"data":10}}`)
	if a.status != 200 || a.body != "OK" {
		t.Fatalf("stranger's done: %d %q", a.status, a.body)
	}
	s := f.summary(t)
	if s.Done != 0 || s.Claims != 1 || s.DoneNotHeld != 1 {
		t.Fatalf("after a stranger's done: %+v", s)
	}
	f.done(t, "alice", "a")
	if s := f.summary(t); s.Done != 1 || s.Claims != 0 || s.DoneNotHeld != 1 {
		t.Fatalf("after the holder's done: %+v", s)
	}

	resp, err := http.Get(f.srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := metricValue(t, string(b), "tracker_project_done_not_held_total", map[string]string{"project": "test"}); !ok || v != 1 {
		t.Fatalf("tracker_project_done_not_held_total %v (found %v)", v, ok)
	}
}
