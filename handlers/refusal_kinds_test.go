package handlers

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"tracker/refusal"
)

// Every kind of refusal has its one status, and the reason the refusal
// names (or the kind's own): a package's refusal is never a 500.
func TestRefusalKindsAnswered(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		kind   refusal.Kind
		reason string
		status int
		want   string
	}{
		{refusal.Invalid, "", http.StatusBadRequest, "invalid-request"},
		{refusal.Invalid, "bad-pattern", http.StatusBadRequest, "bad-pattern"},
		{refusal.NotFound, "unknown-site", http.StatusNotFound, "unknown-site"},
		{refusal.Conflict, "", http.StatusConflict, "conflict"},
		{refusal.Throttled, "", http.StatusTooManyRequests, "throttled"},
		{refusal.Kind(200), "", http.StatusBadRequest, "invalid-request"},
	} {
		e := refusalAnswer(refusal.New(c.kind, c.reason, errors.New("why")))
		if e.Status != c.status || e.Reason != c.want || e.Msg != "why" {
			t.Errorf("kind %d reason %q: %d %q %q, want %d %q", c.kind, c.reason, e.Status, e.Reason, e.Msg, c.status, c.want)
		}
	}
	for k := refusal.Invalid; k <= refusal.Throttled; k++ {
		if _, ok := kindStatus[k]; !ok {
			t.Errorf("kind %d has no status", k)
		}
	}
	ref := refusal.New(refusal.Throttled, "token-throttled", errors.New("slow down"))
	ref.RetryAfter = 1500 * time.Millisecond
	if e := refusalAnswer(ref); e.RetryAfter != 2 {
		t.Errorf("Retry-After of 1.5 s: %d, want 2", e.RetryAfter)
	}
}
