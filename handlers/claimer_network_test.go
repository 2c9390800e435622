package handlers_test

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// With claimer_network, a stranger who sends the holder's nick from
// another network (the nicks are on the leaderboard) completes and
// releases nothing: its done is answered OK as a done of an item not held,
// its release 403 not-your-claim, and the item stays with its holder, who
// completes it from its own /24 (IPv4) or /48 (IPv6). /metrics counts
// both.
func TestClaimerNetworkRefusesAStranger(t *testing.T) {
	t.Parallel()
	f := setup(t, "a", "b", "c")
	if _, err := f.store.Set(t.Context(), f.project, []string{"claimer_network=true"}); err != nil {
		t.Fatal(err)
	}
	proxied := f.behindProxy(t)
	alice, alice6 := proxied.as("192.0.2.10"), proxied.as("2001:db8:1:2::10")
	stranger, stranger6 := proxied.as("198.51.100.7"), proxied.as("2001:db8:77::1")
	if got, _ := alice.request(t, "alice", 1); len(got) != 1 || got[0] != "a" {
		t.Fatalf("alice got %v", got)
	}
	if got, _ := alice6.request(t, "alice", 1); len(got) != 1 || got[0] != "b" {
		t.Fatalf("alice got %v", got)
	}

	for _, s := range []struct {
		f    func(*testing.T) // answers 200 OK
		item string
	}{{func(t *testing.T) { stranger.done(t, "alice", "a") }, "a"}, {func(t *testing.T) { stranger6.done(t, "alice", "b") }, "b"}} {
		s.f(t)
		if st := f.summary(t); st.Done != 0 || st.Claims != 2 {
			t.Fatalf("a stranger's done of %s as alice: %+v", s.item, st)
		}
	}
	for _, from := range []struct {
		f    func(t *testing.T, method, path, body string) answer
		item string
	}{{stranger.do, "a"}, {stranger6.do, "b"}} {
		if a := from.f(t, "POST", "/test/release", `{"downloader":"alice","item":"`+from.item+`"}`); a.status != 403 || a.reason != "not-your-claim" {
			t.Fatalf("a stranger's release of %s as alice: %d %s", from.item, a.status, a.reason)
		}
	}
	if st := f.summary(t); st.Claims != 2 || st.Queues["todo"] != 1 || st.DoneOtherNetwork != 2 || st.ReleaseOtherNetwork != 2 || st.DoneNotHeld != 0 {
		t.Fatalf("after the stranger: %+v", st)
	}

	// Alice, from elsewhere in her /24 and her /48.
	proxied.as("192.0.2.77").done(t, "alice", "a")
	proxied.as("2001:db8:1:ffff::5").done(t, "alice", "b")
	if st := f.summary(t); st.Done != 2 || st.Claims != 0 {
		t.Fatalf("after alice's dones: %+v", st)
	}
	// And her release, from her /24.
	if got, _ := alice.request(t, "alice", 1); len(got) != 1 || got[0] != "c" {
		t.Fatalf("alice got %v", got)
	}
	if a := proxied.as("192.0.2.200").do(t, "POST", "/test/release", `{"downloader":"alice","item":"c"}`); a.status != 200 {
		t.Fatalf("alice's release: %d %s %s", a.status, a.reason, a.body)
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
	for _, action := range []string{"done", "release"} {
		if v, ok := metricValue(t, string(b), "tracker_project_other_network_total", map[string]string{"project": "test", "action": action}); !ok || v != 2 {
			t.Errorf("tracker_project_other_network_total{action=%q} %v (found %v), want 2", action, v, ok)
		}
	}
}

// Off, the default, a done or release from another network is taken, as
// the protocol always took it, and counted.
func TestClaimerNetworkOffCounts(t *testing.T) {
	t.Parallel()
	f := setup(t, "a", "b")
	proxied := f.behindProxy(t)
	if got, _ := proxied.as("192.0.2.10").request(t, "alice", 2); len(got) != 2 {
		t.Fatalf("alice got %v", got)
	}
	stranger := proxied.as("198.51.100.7")
	stranger.done(t, "alice", "a")
	if a := stranger.do(t, "POST", "/test/release", `{"downloader":"alice","item":"b"}`); a.status != 200 {
		t.Fatalf("release from another network, key off: %d %s", a.status, a.reason)
	}
	if st := f.summary(t); st.Done != 1 || st.Claims != 0 || st.DoneOtherNetwork != 1 || st.ReleaseOtherNetwork != 1 {
		t.Fatalf("key off: %+v", st)
	}
}

// The key is in the admin panel's claims section, and saved from there.
func TestClaimerNetworkInTheAdminPanel(t *testing.T) {
	t.Parallel()
	f := setup(t)
	root := f.admin(t)
	if page := root.get(t, "/admin/projects/test/claims"); !strings.Contains(page.body, `name="claimer_network"`) {
		t.Fatal("the claims section has no claimer_network field")
	}
	if a := root.post(t, "/admin/projects/test/config", url.Values{"section": {"claims"}, "claimer_network": {"true"}}); a.status != 303 || root.flash(t, a) != "Saved claimer_network." {
		t.Fatalf("claimer_network from the admin panel: %d %s", a.status, a.body)
	}
	if !f.stored(t, "test").Config.ClaimerNetwork {
		t.Fatal("claimer_network not saved")
	}
}
