package main

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

// stats collects the latency of every answer, by endpoint, and the count of
// every status other than 2xx (a 404, 429 or 503 by its reason: the tracker
// refuses for several).
type stats struct {
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

func newStats() *stats {
	return &stats{latencies: map[string][]time.Duration{}, requests: map[string]int{}, non2xx: map[status]int{}}
}

func (s *stats) record(endpoint string, d time.Duration, code int, reason string) {
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

// take returns the answers recorded so far and starts afresh: a run
// measured in windows, the clients recording throughout.
func (s *stats) take() *stats {
	fresh := newStats()
	s.mu.Lock()
	defer s.mu.Unlock()
	taken := &stats{latencies: s.latencies, requests: s.requests, non2xx: s.non2xx}
	s.latencies, s.requests, s.non2xx = fresh.latencies, fresh.requests, fresh.non2xx
	return taken
}

// percentiles returns p50, p90 and p99 of an endpoint's latencies.
func (s *stats) percentiles(endpoint string) (p50, p90, p99 time.Duration) {
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

func (s *stats) total() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, c := range s.requests {
		n += c
	}
	return n
}

// count is how many answers an endpoint had.
func (s *stats) count(endpoint string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests[endpoint]
}

func (s *stats) endpoints() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var es []string
	for e := range s.latencies {
		es = append(es, e)
	}
	sort.Strings(es)
	return es
}

// errors renders the non-2xx answers as "404 no-items×12 429
// sites-waiting×3", or "-".
func (s *stats) errors() string {
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

func ms(d time.Duration) string { return fmt.Sprintf("%.1f", float64(d)/float64(time.Millisecond)) }
