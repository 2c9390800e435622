package scenarios

import (
	"net/netip"
	"testing"
	"time"

	"tracker/bench/report"
)

func step(p99 time.Duration, missed int64, unexpected int) fieldStep {
	return fieldStep{missed: missed, unexpected: unexpected,
		row: &report.Row{Latency: map[string][3]time.Duration{"request": {0, 0, p99}}}}
}

// The run goes on past one step not sustained and ends at the second in a
// row, or at once when the warriors ran out or an unexpected answer came.
func TestFieldSteps(t *testing.T) {
	ok, slow := step(50*time.Millisecond, 0, 0), step(150*time.Millisecond, 0, 0)
	for _, c := range []struct {
		name  string
		steps []fieldStep
		last  bool
		best  int
	}{
		{"one sustained", []fieldStep{ok}, false, 0},
		{"a slow first step is forgiven", []fieldStep{slow}, false, -1},
		{"one slow step is forgiven", []fieldStep{ok, slow}, false, 0},
		{"two slow steps in a row end it", []fieldStep{ok, slow, slow}, true, 0},
		{"a slow step between two sustained", []fieldStep{ok, slow, ok}, false, 2},
		{"the warriors ran out", []fieldStep{ok, step(time.Millisecond, 3, 0)}, true, 0},
		{"an unexpected answer", []fieldStep{step(time.Millisecond, 0, 1)}, true, -1},
		{"p99 at the bound is sustained", []fieldStep{step(fieldP99, 0, 0)}, false, 0},
	} {
		if got := lastStep(c.steps); got != c.last {
			t.Errorf("%s: lastStep %v, want %v", c.name, got, c.last)
		}
		if got := bestStep(c.steps); got != c.best {
			t.Errorf("%s: bestStep %d, want %d", c.name, got, c.best)
		}
	}
}

func TestP99Bucket(t *testing.T) {
	before := map[string]float64{"0.005": 10, "0.01": 10, "0.1": 10, "+Inf": 10}
	for _, c := range []struct {
		after map[string]float64
		want  string
	}{
		{map[string]float64{"0.005": 1010, "0.01": 1010, "0.1": 1010, "+Inf": 1010}, "≤ 5 ms"},
		{map[string]float64{"0.005": 500, "0.01": 1000, "0.1": 1010, "+Inf": 1010}, "≤ 10 ms"},
		{map[string]float64{"0.005": 500, "0.01": 900, "0.1": 1010, "+Inf": 1010}, "≤ 100 ms"},
		{map[string]float64{"0.005": 10, "0.01": 10, "0.1": 900, "+Inf": 1010}, "> 100 ms"},
		{before, "-"},
	} {
		if got := p99Bucket(before, c.after); got != c.want {
			t.Errorf("p99Bucket(%v) = %q, want %q", c.after, got, c.want)
		}
	}
}

// The busiest step is the last of those holding the most connections.
func TestBusiestStep(t *testing.T) {
	f := &fieldRun{pids: []int{1, 2}, baseRSS: []int64{100, 200}}
	steps := []fieldStep{
		{target: 50, conns: []int64{10, 10}, rss: []int64{150, 250}},
		{target: 75, conns: []int64{15, 15}, rss: []int64{160, 260}},
		{target: 112.5, conns: []int64{20, 10}, rss: []int64{170, 270}},
	}
	conns, grown, at := f.busiestStep(steps)
	if conns != 30 || grown != 140 || at != 112.5 {
		t.Errorf("busiestStep = %d, %d, %g; want 30, 140, 112.5", conns, grown, at)
	}
}

// Eight warriors share a /24, and no two share an address: the tracker
// sees a field of many networks.
func TestFieldAddresses(t *testing.T) {
	seen := map[netip.Addr]bool{}
	nets := map[netip.Prefix]int{}
	for i := range 100_000 {
		a := homeAddress(i)
		if seen[a] || !a.IsLoopback() {
			t.Fatalf("warrior %d: %s", i, a)
		}
		seen[a] = true
		p, _ := a.Prefix(24)
		nets[p]++
	}
	for p, n := range nets {
		if n > fieldPerNetwork {
			t.Fatalf("%s holds %d warriors", p, n)
		}
	}
	r := newFieldAddresses(7, true)
	if len(r.roaming) != fieldRoamingNets || r.roaming[0] != homeAddress(7) {
		t.Errorf("a roaming warrior's networks: %v", r.roaming)
	}
	for _, a := range r.roaming[1:] {
		if p, _ := a.Prefix(24); p.Contains(homeAddress(7)) || seen[a] {
			t.Errorf("roaming address %s is in its home /24 or another warrior's", a)
		}
	}
}

// Viewers' addresses are apart from each other, the field's and the hog's.
func TestViewerAddresses(t *testing.T) {
	seen := map[netip.Addr]bool{}
	for i := range 100_000 {
		a := viewerAddress(i)
		if seen[a] || !a.IsLoopback() || a.As4()[1] < 200 {
			t.Fatalf("viewer %d: %s", i, a)
		}
		seen[a] = true
	}
}
