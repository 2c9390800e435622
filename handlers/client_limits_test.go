package handlers_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"tracker/handlers"
	"tracker/users"
	"tracker/warriors"
)

// The per-address limits count an IPv6 client by its /64: addresses of
// one /64 share an allowance, addresses of two /64s do not. (An IPv6 host
// may take any address of its /64, and would otherwise get a fresh
// allowance with each.)

// Registrations from one /64 share the 20 an hour.
func TestRegistrationsCountIPv6By64(t *testing.T) {
	t.Parallel()
	f := setup(t).behindProxy(t)
	for i := range warriors.RegistrationsPerHour {
		if id := f.as(fmt.Sprintf("2001:db8:1:2::%x", i+1)).register(t); id == warriors.Anonymous {
			t.Fatalf("registration %d refused", i+1)
		}
	}
	if id := f.as("2001:db8:1:2:ffff::1").register(t); id != warriors.Anonymous {
		t.Fatalf("another address of the /64 past the limit got its own record %q", id)
	}
	if id := f.as("2001:db8:1:3::1").register(t); id == warriors.Anonymous {
		t.Fatal("the next /64 was refused")
	}
	// IPv4 addresses stay apart, and an IPv4-mapped one is its IPv4 address.
	for range warriors.RegistrationsPerHour {
		f.as("192.0.2.1").register(t)
	}
	if id := f.as("::ffff:192.0.2.1").register(t); id != warriors.Anonymous {
		t.Fatal("an IPv4-mapped address passed its IPv4 address's limit")
	}
	if id := f.as("192.0.2.2").register(t); id == warriors.Anonymous {
		t.Fatal("an IPv4 neighbour was refused")
	}
}

// Five failed sign-ins of an account from one /64 refuse the account from
// every address of it, and from no other /64.
func TestSignInThrottleCountsIPv6By64(t *testing.T) {
	t.Parallel()
	f := setup(t).behindProxy(t)
	f.user(t, "root", users.RoleAdmin)
	for i := range 5 {
		if a := f.as(fmt.Sprintf("2001:db8:1:2::%x", i+1)).adminClient(t).login(t, "root", "wrong wrong wrong"); a.status != 401 {
			t.Fatalf("failure %d: %d", i+1, a.status)
		}
	}
	if a := f.as("2001:db8:1:2::99").adminClient(t).login(t, "root", "correct horse battery"); a.status != 429 || a.header.Get("Retry-After") == "" {
		t.Fatalf("another address of the guessing /64: %d", a.status)
	}
	if a := f.as("2001:db8:1:3::1").adminClient(t).login(t, "root", "correct horse battery"); a.status != 303 {
		t.Fatalf("the next /64: %d %s", a.status, a.body)
	}
}

// Wrong backfeed keys from one /64 turn away every address of it.
func TestBackfeedStrikesCountIPv6By64(t *testing.T) {
	t.Parallel()
	f := setup(t).behindProxy(t)
	key := f.project.Config.BackfeedKey
	const form = "application/x-www-form-urlencoded"
	for i := range 20 {
		if a := f.as(fmt.Sprintf("2001:db8:1:2::%x", i+1)).doBody(t, "POST", "/backfeed/legacy/test-guess"+fmt.Sprint(i), form, "x"); a.status != 403 {
			t.Fatalf("wrong key %d: %d %s", i, a.status, a.reason)
		}
	}
	if a := f.as("2001:db8:1:2::99").doBody(t, "POST", "/backfeed/legacy/test-"+key, form, "a:1\x00"); a.status != 429 || a.reason != "too-many-wrong-keys" {
		t.Fatalf("another address of the guessing /64: %d %s", a.status, a.reason)
	}
	if a := f.as("2001:db8:1:3::1").doBody(t, "POST", "/backfeed/legacy/test-"+key, form, "a:2\x00"); a.status != 200 {
		t.Fatalf("the next /64: %d %s", a.status, a.reason)
	}
}

// The live streams one address holds are the streams of its /64.
func TestStreamsPerAddressCountIPv6By64(t *testing.T) {
	t.Parallel()
	f := setup(t)
	h := newHandler(slog.New(slog.NewTextHandler(io.Discard, nil)), f.pool, trustLoopback, func(c *handlers.Config) {
		c.Streams = handlers.StreamLimits{Total: 10, PerAddress: 1, Lifetime: time.Hour}
	})
	srv := httptest.NewServer(h.Routes())
	t.Cleanup(srv.Close)
	t.Cleanup(h.Close)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	open := func(from string) int {
		t.Helper()
		req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/test/events", nil)
		req.Header.Set("X-Forwarded-For", from)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		// Open streams stay open until the test ends (cancel).
		if resp.StatusCode != 200 {
			resp.Body.Close()
		}
		return resp.StatusCode
	}
	if code := open("2001:db8:1:2::1"); code != 200 {
		t.Fatalf("the first stream: %d", code)
	}
	if code := open("2001:db8:1:2::2"); code != 503 {
		t.Fatalf("a second stream from the /64: %d", code)
	}
	if code := open("2001:db8:1:3::1"); code != 200 {
		t.Fatalf("a stream from the next /64: %d", code)
	}
}

// expired_claims_limit counts a nick from one network: a stranger who
// claims under a warrior's nick from elsewhere and lets the claims run out
// is refused, and the warrior is not.
func TestExpiredClaimsLimitKeysOnNickAndAddress(t *testing.T) {
	t.Parallel()
	f := setup(t, "a:1", "a:2", "a:3", "a:4", "a:5")
	f.set(t, "reclaim_ttl=60", "expired_claims_limit=2")
	p := f.behindProxy(t)
	stranger, home := p.as("2001:db8:66:1::1"), p.as("198.51.100.7")
	if got, a := stranger.request(t, "alice", 2); len(got) != 2 {
		t.Fatalf("the stranger as alice: %v %d", got, a.status)
	}
	f.expireClaims(t)
	if got, a := home.request(t, "alice", 1); len(got) != 1 {
		t.Fatalf("alice from home after a stranger's expiries: %d %s", a.status, a.reason)
	}
	for _, from := range []string{"2001:db8:66:1::1", "2001:db8:66:1::2"} {
		if _, a := p.as(from).request(t, "alice", 1); a.status != 429 || a.reason != "too-many-expired" {
			t.Fatalf("alice from %s, the stranger's /64: %d %s", from, a.status, a.reason)
		}
	}
	// Another nick from the stranger's network is not refused either.
	if got, a := stranger.request(t, "mallory", 1); len(got) != 1 {
		t.Fatalf("another nick from the stranger's network: %d %s", a.status, a.reason)
	}
}
