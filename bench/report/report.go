// Package report writes the bench's results: the table of one row a run
// that docs/BENCHMARKS.md quotes, the goals after it, and the small number
// formats every scenario's notes share. It knows nothing of how a row was
// measured, so its format can be held still by tests while the scenarios
// change.
package report

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Row is one line of the result table.
type Row struct {
	Name      string
	Clients   int
	ItemsPerS float64
	ReqPerS   float64
	// Latency is p50, p90 and p99 by endpoint.
	Latency   map[string][3]time.Duration
	Errors    string  // the non-2xx answers, as load.Stats writes them
	TrackerS  float64 // tracker CPU seconds per second of run
	PostgresS float64
	LoadS     float64 // the load generator's own
	RSSMB     float64
	Floor     float64 // raw SQL items/s, 0 when not measured
	Yardstick float64 // the yardstick's items/s, 0 when not measured
	River     float64 // River's jobs/s with as many workers as the scenario holds items, 0 when not measured
	Note      string
	Top       []string // the statements PostgreSQL spent the most time on
	Secs      float64  // how long the run took
}

// Goal is one of the goals a scenario is measured against, printed after
// the table.
type Goal struct {
	Name, Measured string
	Status         string // met, not met, or why it could not be measured
}

// Met is a goal's status when it could be measured.
func Met(ok bool) string {
	if ok {
		return "met"
	}
	return "not met"
}

// Print writes the result table as Markdown, then each row's note, the
// goals, and where PostgreSQL spent its time in each run.
func Print(w io.Writer, rows []*Row, goals []Goal) {
	fmt.Fprintf(w, "| scenario | clients | items/s | requests/s | request p50/p90/p99 ms | done p50/p90/p99 ms | other p50/p90/p99 ms | non-2xx | tracker CPU | PostgreSQL CPU | tracker + PostgreSQL CPU per item | load CPU | tracker peak RSS | SQL floor items/s | tracker/floor | yardstick items/s | tracker/yardstick | River jobs/s | tracker/River |\n")
	fmt.Fprintf(w, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		lat := func(e string) string {
			l, ok := r.Latency[e]
			if !ok {
				return "-"
			}
			return Ms(l[0]) + " / " + Ms(l[1]) + " / " + Ms(l[2])
		}
		var others []string
		for _, e := range slices.Sorted(maps.Keys(r.Latency)) {
			if e != "request" && e != "done" {
				others = append(others, e+" "+lat(e))
			}
		}
		other := strings.Join(others, "; ")
		if other == "" {
			other = "-"
		}
		floor, ratio := against(r.ItemsPerS, r.Floor)
		perItem := "-"
		if r.ItemsPerS > 0 {
			perItem = fmt.Sprintf("%.3f ms", (r.TrackerS+r.PostgresS)/r.ItemsPerS*1000)
		}
		yard, yardRatio := against(r.ItemsPerS, r.Yardstick)
		peer, peerRatio := against(r.ItemsPerS, r.River)
		fmt.Fprintf(w, "| %s | %d | %.0f | %.0f | %s | %s | %s | %s | %.2f cores | %.2f cores | %s | %.2f cores | %.0f MB | %s | %s | %s | %s | %s | %s |\n",
			r.Name, r.Clients, r.ItemsPerS, r.ReqPerS, lat("request"), lat("done"), other, r.Errors,
			r.TrackerS, r.PostgresS, perItem, r.LoadS, r.RSSMB, floor, ratio, yard, yardRatio, peer, peerRatio)
	}
	for _, r := range rows {
		if r.Note != "" {
			fmt.Fprintf(w, "\n- %s: %s", r.Name, r.Note)
		}
	}
	fmt.Fprintln(w)
	if len(goals) > 0 {
		fmt.Fprintf(w, "\n| goal | measured | status |\n|---|---|---|\n")
		for _, g := range goals {
			fmt.Fprintf(w, "| %s | %s | %s |\n", g.Name, g.Measured, g.Status)
		}
	}
	fmt.Fprintln(w, "\nWhere PostgreSQL spent its time (pg_stat_statements, execution only):")
	for _, r := range rows {
		fmt.Fprintf(w, "\n%s:\n", r.Name)
		for _, t := range r.Top {
			fmt.Fprintf(w, "- %s\n", t)
		}
	}
}

// against writes a comparison's rate and the tracker's ratio to it, or
// dashes when it was not measured.
func against(items, other float64) (string, string) {
	if other <= 0 {
		return "-", "-"
	}
	return fmt.Sprintf("%.0f", other), fmt.Sprintf("%.2f", items/other)
}

// Ms writes a duration in milliseconds, one decimal.
func Ms(d time.Duration) string { return fmt.Sprintf("%.1f", float64(d)/float64(time.Millisecond)) }

// Pct writes a share as "99.5 %", or "-" of nothing.
func Pct(part, whole int64) string {
	if whole == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f %%", 100*float64(part)/float64(whole))
}

// Short writes a count as 100k or 10M, as the scenarios' names carry it.
func Short(n int) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return strconv.Itoa(n/1_000_000) + "M"
	case n >= 1000 && n%1000 == 0:
		return strconv.Itoa(n/1000) + "k"
	}
	return strconv.Itoa(n)
}

// JoinInts writes numbers in a unit as "12 / 34 / 56".
func JoinInts(ns []int64, unit int64) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = strconv.FormatInt(n/unit, 10)
	}
	return strings.Join(parts, " / ")
}
