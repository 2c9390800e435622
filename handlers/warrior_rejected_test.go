package handlers_test

import (
	"testing"
)

// A grab script may turn down an item it was handed (seesaw's
// GetItemFromTracker with item_filter) and give it back with a release,
// naming its downloader or not. Either way the item goes at once to the
// next warrior that asks, and, given back rather than left to run out,
// counts nothing towards expired_claims_limit for the warrior that turned
// it down. A release naming no downloader gives back only claims made
// from its own network: a stranger elsewhere releases nothing.
func TestRejectedItemGoesToAnotherWarrior(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, body string }{
		{"with downloader", `{"downloader":"alice","item":"a:1"}`},
		{"without downloader", `{"item":"a:1"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := setup(t, "a:1", "a:2", "a:3")
			f.set(t, "reclaim_ttl=60", "expired_claims_limit=1")
			p := f.behindProxy(t)
			alice, bob, stranger := p.as("192.0.2.10"), p.as("2001:db8:1:2::10"), p.as("198.51.100.7")

			if got, a := alice.request(t, "alice", 1); len(got) != 1 || got[0] != "a:1" {
				t.Fatalf("alice got %v: %d %s", got, a.status, a.reason)
			}
			// Not from another network.
			if a := stranger.do(t, "POST", "/test/release", `{"item":"a:1"}`); a.status != 403 || a.reason != "not-your-claim" {
				t.Fatalf("a stranger's release without downloader: %d %s", a.status, a.reason)
			}
			// From elsewhere in alice's /24, as a warrior behind a pool
			// of addresses sends it.
			if a := p.as("192.0.2.77").do(t, "POST", "/test/release", tc.body); a.status != 200 || a.body != "Released OK.\n" {
				t.Fatalf("alice's release: %d %s %q", a.status, a.reason, a.body)
			}
			if got, a := bob.request(t, "bob", 1); len(got) != 1 || got[0] != "a:1" {
				t.Fatalf("bob, next to ask, got %v: %d %s", got, a.status, a.reason)
			}

			// Every claim out runs out: bob's, none of alice's.
			f.expireClaims(t)
			if got, a := alice.request(t, "alice", 1); len(got) != 1 {
				t.Fatalf("alice after turning an item down: %d %s", a.status, a.reason)
			}
			if _, a := bob.request(t, "bob", 1); a.status != 429 || a.reason != "too-many-expired" {
				t.Fatalf("bob, whose claim ran out: %d %s", a.status, a.reason)
			}
		})
	}
}
