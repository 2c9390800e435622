package handlers_test

import (
	"testing"
)

// An address that keeps getting backfeed addresses wrong is guessing the
// key: past 20 it is answered 429 with Retry-After, even with the right
// key, until its window ends.
func TestBackfeedWrongKeysThrottled(t *testing.T) {
	t.Parallel()
	f := setup(t)
	key := f.project.Config.BackfeedKey
	if a := f.doBody(t, "POST", "/backfeed/legacy/test-"+key, "application/x-www-form-urlencoded", "a:1\x00"); a.status != 200 {
		t.Fatalf("right key: %d %s", a.status, a.body)
	}
	for i := range 20 {
		if a := f.doBody(t, "POST", "/backfeed/legacy/test-guess"+string(rune('a'+i)), "application/x-www-form-urlencoded", "x"); a.status != 403 {
			t.Fatalf("wrong key %d: %d %s", i, a.status, a.reason)
		}
	}
	a := f.doBody(t, "POST", "/backfeed/legacy/test-"+key, "application/x-www-form-urlencoded", "a:2\x00")
	if a.status != 429 || a.reason != "too-many-wrong-keys" || a.header.Get("Retry-After") == "" {
		t.Fatalf("after 20 wrong keys: %d %s %q", a.status, a.reason, a.header.Get("Retry-After"))
	}
}
