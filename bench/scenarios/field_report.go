package scenarios

import (
	"encoding/json"
	"fmt"

	"tracker/bench/nodes"
	"tracker/bench/report"
)

// What the field scenario prints: a table of its steps, what its
// connections cost, and the books.

// printSteps writes the field's setting and a line for each step, then the
// rate it sustained.
func (f *fieldRun) printSteps(o Options, steps []fieldStep) {
	fmt.Printf("\n### Field: %d warriors, %d tracker processes\n\n", len(f.warriorList), len(f.pids))
	fmt.Printf("%d warriors (%d with multi=N, N 1-%d; the others one item a request) spread over %d tracker processes, each warrior on one keep-alive connection; work %s-%s an item; %.0f %% of hand-outs never reported, %.0f %% reported twice; %d grab scripts posting 400 names (half seen before) every %s; reclaim_ttl %d s, the reclaim job every %s. Arrivals open-loop (Poisson), the warrior idle longest asked next; each step settles %s, then is measured for %s.\n\n",
		len(f.warriorList), f.multi, fieldMaxMulti, len(f.pids), f.minWork, f.maxWork, fieldSilent*100, fieldTwice*100, fieldGrabScripts, fieldBackfeedEvery, f.ttl, fieldReclaimEvery, f.settle, o.Duration)
	fmt.Printf("| arrivals/s asked | made | missed | warriors at work | items/s | requests/s (all) | request p50 / p99 ms | request p99 in the tracker | done p50 / p99 ms | non-2xx | served / empty | tracker CPU | PostgreSQL CPU | load CPU | load average | connections per process | RSS per process MB | PostgreSQL connections | sustained |\n")
	fmt.Printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, s := range steps {
		r := s.row
		errs := r.Errors
		if s.closedIdle > 0 {
			errs += fmt.Sprintf(" (failed: %d on a connection closed idle)", s.closedIdle)
		}
		fmt.Printf("| %.1f | %.1f | %d | %d | %.0f | %.0f | %s / %s | %s | %s / %s | %s | %d / %d | %.2f cores | %.2f cores | %.2f cores | %s | %s | %s | %d | %v |\n",
			s.target, s.rate, s.missed, s.busy, r.ItemsPerS, r.ReqPerS,
			report.Ms(r.Latency["request"][0]), report.Ms(r.Latency["request"][2]), s.serverP99, report.Ms(r.Latency["done"][0]), report.Ms(r.Latency["done"][2]),
			errs, s.served, s.empty, r.TrackerS, r.PostgresS, r.LoadS, s.loadavg, report.JoinInts(s.conns, 1), report.JoinInts(s.rss, 1<<20), s.pgConns, s.sustained())
	}
	fmt.Println()
	if best := bestStep(steps); best >= 0 {
		s := steps[best]
		fmt.Printf("Sustainable: %.1f arrivals/s (%.0f items/s), request p50 %s ms, p99 %s ms; done p50 %s ms, p99 %s ms.", s.target, s.row.ItemsPerS,
			report.Ms(s.row.Latency["request"][0]), report.Ms(s.row.Latency["request"][2]), report.Ms(s.row.Latency["done"][0]), report.Ms(s.row.Latency["done"][2]))
		if best == len(steps)-1 && s.sustained() {
			fmt.Printf(" It was the last step run: the tracker may sustain more.")
		}
		fmt.Println()
	} else {
		fmt.Println("Sustainable: none of the steps (lower -field-rate).")
	}
	if last := steps[len(steps)-1]; !last.sustained() && last.missed > 0 {
		fmt.Printf("At %.1f arrivals/s the warriors ran out (%d arrivals found none idle): the population, not the tracker, set the limit.\n", last.target, last.missed)
	}
}

// bestStep is the last step sustained, or -1.
func bestStep(steps []fieldStep) int {
	best := -1
	for i, s := range steps {
		if s.sustained() {
			best = i
		}
	}
	return best
}

// busiestStep is the last step that held the most connections: its
// connections, its processes' growth over their start (the connections
// and the work in flight), and its arrival rate.
func (f *fieldRun) busiestStep(steps []fieldStep) (conns, grown int64, at float64) {
	for _, s := range steps {
		var c, g int64
		for i := range f.pids {
			c += s.conns[i]
			g += s.rss[i] - f.baseRSS[i]
		}
		if c >= conns {
			conns, grown, at = c, g, s.target
		}
	}
	return conns, grown, at
}

// printFindings writes what the connections cost, idle and under load,
// the processes' limits, the requests lost, and the reclaims.
func (f *fieldRun) printFindings(steps []fieldStep, pgPeak int, expiries int64) {
	if f.idleConns > 0 {
		perConn := float64(f.idleGrowth) / float64(f.idleConns)
		fmt.Printf("\nIdle keep-alive connections: %d held by the %d processes grew their resident sets (%s MB at start) by %.1f MB in all, %.1f kB a connection: %.0f idle connections per GB.\n",
			f.idleConns, len(f.pids), report.JoinInts(f.baseRSS, 1<<20), float64(f.idleGrowth)/(1<<20), perConn/1024, (1<<30)/perConn)
	}
	conns, grown, at := f.busiestStep(steps)
	if conns > 0 && grown > 0 {
		fmt.Printf("Under load at %.1f arrivals/s: %d connections, the processes %.1f MB above their start (%.1f kB a connection, work in flight included): %.0f warriors per GB.\n",
			at, conns, float64(grown)/(1<<20), float64(grown)/float64(conns)/1024, float64(conns)/(float64(grown)/(1<<30)))
	}
	limits := make([]int64, len(f.pids))
	for i, pid := range f.pids {
		limits[i] = nodes.OpenFilesLimit(pid)
	}
	fmt.Printf("Open-files limit of the tracker processes: %s. PostgreSQL connections at most %d during the run (all client backends, the bench's and the imports' included).\n",
		report.JoinInts(limits, 1), pgPeak)
	fmt.Printf("Requests lost on a connection the tracker closed for idleness as they left: %d (seesaw tries again).", f.closedIdle.Load())
	if len(f.failures) > 0 {
		fmt.Printf(" Other requests without an answer: %v.", f.failures)
	}
	fmt.Println()
	fmt.Printf("Reclaims: %d names handed out were never reported; %d claims expired and came back through the reclaim job; %d hand-outs reported twice.\n",
		f.withheld.Load(), expiries, f.twice.Load())
}

// printFieldBooks checks the field project's books, as `tracker check`
// wrote them, and writes them when they balance.
func printFieldBooks(check string, checkErr error) error {
	var books []struct {
		Seen, Queued, Claimed int64
		Done                  int64 `json:"done_rows"`
		Balanced              bool
	}
	if checkErr != nil {
		return fmt.Errorf("the books do not balance after the field: %w", checkErr)
	}
	if json.Unmarshal([]byte(check), &books) != nil || len(books) != 1 || !books[0].Balanced {
		return fmt.Errorf("the books do not balance after the field: %s", check)
	}
	fmt.Printf("The books balance (`tracker check %s`): %d items seen, %d queued, %d out, %d done.\n",
		fieldProject, books[0].Seen, books[0].Queued, books[0].Claimed, books[0].Done)
	return nil
}
