package load

import (
	"net/http"
	"testing"
	"time"
)

func TestPercentiles(t *testing.T) {
	s := NewStats()
	// 1 ms to 100 ms, recorded out of order.
	for i := 100; i >= 1; i-- {
		s.Record("request", time.Duration(i)*time.Millisecond, http.StatusOK, "")
	}
	p50, p90, p99 := s.Percentiles("request")
	if p50 != 51*time.Millisecond || p90 != 91*time.Millisecond || p99 != 100*time.Millisecond {
		t.Errorf("p50/p90/p99 = %v / %v / %v, want 51ms / 91ms / 100ms", p50, p90, p99)
	}
	if p50, p90, p99 := s.Percentiles("done"); p50 != 0 || p90 != 0 || p99 != 0 {
		t.Errorf("an endpoint never answered: %v / %v / %v, want zeros", p50, p90, p99)
	}
	s.Record("one", 7*time.Millisecond, http.StatusOK, "")
	if p50, _, p99 := s.Percentiles("one"); p50 != 7*time.Millisecond || p99 != 7*time.Millisecond {
		t.Errorf("one answer: p50 %v, p99 %v, want it for both", p50, p99)
	}
}

// Errors names the tracker's reasons for the codes it refuses for
// several, and only those, in the order of code then reason.
func TestErrors(t *testing.T) {
	s := NewStats()
	if got := s.Errors(); got != "-" {
		t.Errorf("no errors: %q, want -", got)
	}
	for range 3 {
		s.Record("request", time.Millisecond, http.StatusTooManyRequests, "sites-waiting")
	}
	s.Record("request", time.Millisecond, http.StatusNotFound, "no-items")
	s.Record("request", time.Millisecond, http.StatusNotFound, "no-items")
	s.Record("done", time.Millisecond, http.StatusBadRequest, "bad-json") // reason dropped
	s.Record("done", time.Millisecond, 0, "")
	s.Record("done", time.Millisecond, http.StatusNoContent, "")
	want := "failed×1 400×1 404 no-items×2 429 sites-waiting×3"
	if got := s.Errors(); got != want {
		t.Errorf("Errors() = %q, want %q", got, want)
	}
	if got := s.Unexpected(http.StatusNotFound, http.StatusTooManyRequests); got != 2 {
		t.Errorf("Unexpected(404, 429) = %d, want 2 (the 400 and the failure)", got)
	}
	if s.Total() != 8 || s.Count("request") != 5 || s.Count("done") != 3 {
		t.Errorf("total %d, request %d, done %d; want 8, 5, 3", s.Total(), s.Count("request"), s.Count("done"))
	}
	if got := s.Endpoints(); len(got) != 2 || got[0] != "done" || got[1] != "request" {
		t.Errorf("Endpoints() = %v, want [done request]", got)
	}
}

// Take hands over what was recorded and starts afresh, so the field's
// steps each count only their own window.
func TestTake(t *testing.T) {
	s := NewStats()
	s.Record("request", time.Millisecond, http.StatusServiceUnavailable, "busy")
	taken := s.Take()
	s.Record("request", 2*time.Millisecond, http.StatusOK, "")
	if taken.Total() != 1 || taken.Errors() != "503 busy×1" {
		t.Errorf("taken: %d answers, %q", taken.Total(), taken.Errors())
	}
	if s.Total() != 1 || s.Errors() != "-" {
		t.Errorf("after Take: %d answers, %q; want 1 and -", s.Total(), s.Errors())
	}
}
