package load

import (
	"cmp"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// Stats collects the latency of every answer, by endpoint, and the count of
// every status other than 2xx (a 404, 429 or 503 by its reason: the tracker
// refuses for several).
type Stats struct {
	mu        sync.Mutex
	latencies map[string][]time.Duration
	requests  map[string]int
	non2xx    map[status]int
}

// status is an answer's code, and for a 404 or 429 its X-Tracker-Reason.
type status struct {
	code   int
	reason string
}

// NewStats is an empty record.
func NewStats() *Stats {
	return &Stats{latencies: map[string][]time.Duration{}, requests: map[string]int{}, non2xx: map[status]int{}}
}

// Record records one answer: code 0 when none came. A reason is kept for
// the codes the tracker refuses for several (404, 429, 503) only.
func (s *Stats) Record(endpoint string, d time.Duration, code int, reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.latencies[endpoint] = append(s.latencies[endpoint], d)
	s.requests[endpoint]++
	if code < 200 || code > 299 {
		if code != http.StatusNotFound && code != http.StatusTooManyRequests && code != http.StatusServiceUnavailable {
			reason = ""
		}
		s.non2xx[status{code, reason}]++
	}
}

// Take returns the answers recorded so far and starts afresh: a run
// measured in windows, the clients recording throughout.
func (s *Stats) Take() *Stats {
	fresh := NewStats()
	s.mu.Lock()
	defer s.mu.Unlock()
	taken := &Stats{latencies: s.latencies, requests: s.requests, non2xx: s.non2xx}
	s.latencies, s.requests, s.non2xx = fresh.latencies, fresh.requests, fresh.non2xx
	return taken
}

// Percentiles returns p50, p90 and p99 of an endpoint's latencies.
func (s *Stats) Percentiles(endpoint string) (p50, p90, p99 time.Duration) {
	s.mu.Lock()
	l := slices.Clone(s.latencies[endpoint])
	s.mu.Unlock()
	if len(l) == 0 {
		return 0, 0, 0
	}
	slices.Sort(l)
	at := func(p float64) time.Duration { return l[min(len(l)-1, int(p*float64(len(l))))] }
	return at(0.50), at(0.90), at(0.99)
}

// Total is how many answers were recorded.
func (s *Stats) Total() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, c := range s.requests {
		n += c
	}
	return n
}

// Count is how many answers an endpoint had.
func (s *Stats) Count(endpoint string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests[endpoint]
}

// Endpoints lists the endpoints answered, sorted.
func (s *Stats) Endpoints() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var es []string
	for e := range s.latencies {
		es = append(es, e)
	}
	sort.Strings(es)
	return es
}

// Errors renders the non-2xx answers as "404 no-items×12 429
// sites-waiting×3", or "-".
func (s *Stats) Errors() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.non2xx) == 0 {
		return "-"
	}
	var codes []status
	for c := range s.non2xx {
		codes = append(codes, c)
	}
	slices.SortFunc(codes, func(a, b status) int {
		return cmp.Or(cmp.Compare(a.code, b.code), strings.Compare(a.reason, b.reason))
	})
	var parts []string
	for _, c := range codes {
		name := fmt.Sprint(c.code)
		if c.code == 0 {
			name = "failed"
		}
		if c.reason != "" {
			name += " " + c.reason
		}
		parts = append(parts, fmt.Sprintf("%s×%d", name, s.non2xx[c]))
	}
	return strings.Join(parts, " ")
}

// Unexpected counts the answers other than 2xx whose code is not among
// expected (a failure to answer is code 0).
func (s *Stats) Unexpected(expected ...int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for k, c := range s.non2xx {
		if !slices.Contains(expected, k.code) {
			n += c
		}
	}
	return n
}
