package main

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Readers beside warriors: whether volunteers reading item status, the
// board, stats.json and the project list slow the warriors down. The
// warriors run alone and beside the readers in turn on one queue, so the
// ratios compare minutes of one machine (which other people share) rather
// than runs of different hours.

// readerRoutes are what a reader reads in turn: an item's status (a name
// handed out lately), the board, stats.json and the project list. With
// itemsOnly, item status alone.
func (l *load) readerRoutes(itemsOnly bool) []func() (string, string) {
	item := func() (string, string) {
		name, _ := l.sample.Load().(string)
		if name == "" {
			name = "item:1"
		}
		return "lookup", "/" + l.project + "/items/" + url.PathEscape(name) + ".json"
	}
	if itemsOnly {
		return []func() (string, string){item}
	}
	return []func() (string, string){
		item,
		func() (string, string) { return "board", "/" + l.project + "/" },
		func() (string, string) { return "stats.json", "/" + l.project + "/stats.json" },
		func() (string, string) { return "projects.json", "/projects.json" },
	}
}

// routeReader reads routes in turn, as fast as it is answered. A refusal
// (503 with Retry-After when the readers' share is taken) makes it pause
// as the warriors do after one.
func (l *load) routeReader(ctx context.Context, routes []func() (string, string), start int) {
	c := client()
	for i := start; ctx.Err() == nil; i++ {
		endpoint, path := routes[i%len(routes)]()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, l.base+path, nil)
		code, _, err := l.do(c, endpoint, req)
		if err != nil || code >= 300 && code != http.StatusNotFound {
			pause(ctx, code)
		}
	}
}

// readers runs warriors alone and beside readers in turn, alone first and
// last (A B A B A B A), and notes each run beside readers against the mean
// of the runs alone just before and just after it: on a machine others
// share, the load drifts within minutes, and a run compared with its two
// neighbours is compared with the same minutes.
func (b *bench) readers(ctx context.Context, name string, warriors, readers int, itemsOnly bool) error {
	// One fill for every run, with the checkpoint it causes taken before
	// the first: the runs start alike.
	const pairs = 3
	perSecond := 6000
	if err := b.drain(ctx); err != nil {
		return err
	}
	n := b.o.queue
	if n == 0 {
		n = perSecond * (2*pairs + 1) * int(b.o.duration/time.Second+1)
	}
	if _, err := b.fill(n, fmt.Sprintf("item:%d:", time.Now().UnixNano())); err != nil {
		return err
	}
	if _, err := b.pool.Exec(ctx, "VACUUM ANALYZE todo"); err != nil {
		return err
	}
	if _, err := b.pool.Exec(ctx, "CHECKPOINT"); err != nil {
		return err
	}
	what := "item status, the board, stats.json and /projects.json"
	if itemsOnly {
		what = "item status"
	}
	runAlone := func() *row {
		return b.measure(ctx, name+" alone", warriors, func(ctx context.Context, l *load) []func() {
			var fs []func()
			for i := range warriors {
				fs = append(fs, func() { l.warrior(ctx, fmt.Sprintf("w%d", i), 1) })
			}
			return fs
		}, fmt.Sprintf("%d single warriors alone", warriors))
	}
	var ratios []string
	before := runAlone()
	for range pairs {
		if ctx.Err() != nil {
			return nil
		}
		var reads func() float64
		with := b.measure(ctx, name, warriors+readers, func(ctx context.Context, l *load) []func() {
			var fs []func()
			for i := range warriors {
				fs = append(fs, func() { l.warrior(ctx, fmt.Sprintf("w%d", i), 1) })
			}
			routes := l.readerRoutes(itemsOnly)
			for i := range readers {
				fs = append(fs, func() { l.routeReader(ctx, routes, i) })
			}
			reads = func() float64 { return float64(l.stats.total() - l.stats.count("request") - l.stats.count("done")) }
			return fs
		}, "")
		after := runAlone()
		alone := (before.itemsPerS + after.itemsPerS) / 2
		ratio := with.itemsPerS / alone
		ratios = append(ratios, strconv.FormatFloat(ratio, 'f', 2, 64))
		with.note = fmt.Sprintf("%d single warriors beside %d readers of %s: %.0f reads/s; %.2f × the warriors alone in the runs just before and after (%.0f items/s)",
			warriors, readers, what, reads()/b.o.duration.Seconds(), ratio, alone)
		before = after
	}
	b.rows[len(b.rows)-1].note += "; the " + strconv.Itoa(pairs) + " runs beside readers: " + strings.Join(ratios, ", ") + " ×"
	return nil
}
