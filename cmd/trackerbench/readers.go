package main

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
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

// readers runs warriors alone and beside readers in turn (beside).
func (b *bench) readers(ctx context.Context, name string, warriors, readers int, itemsOnly bool) error {
	what := "item status, the board, stats.json and /projects.json"
	if itemsOnly {
		what = "item status"
	}
	return b.beside(ctx, name, warriors, others{
		count: readers,
		start: func(ctx context.Context, l *load) []func() {
			var fs []func()
			routes := l.readerRoutes(itemsOnly)
			for i := range readers {
				fs = append(fs, func() { l.routeReader(ctx, routes, i) })
			}
			return fs
		},
		did: func(l *load) string {
			reads := float64(l.stats.total() - l.stats.count("request") - l.stats.count("done"))
			return fmt.Sprintf("%d readers of %s: %.0f reads/s", readers, what, reads/b.o.duration.Seconds())
		},
	})
}
