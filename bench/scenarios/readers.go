package scenarios

import (
	"context"
	"fmt"
	"tracker/bench/load"
)

// Readers beside warriors: whether volunteers reading item status, the
// board, stats.json and the project list slow the warriors down. The
// warriors run alone and beside the readers in turn on one queue, so the
// ratios compare minutes of one machine (which other people share) rather
// than runs of different hours.

// readers runs warriors alone and beside readers in turn (beside).
func (b *bench) readers(ctx context.Context, name string, warriors, readers int, itemsOnly bool) error {
	what := "item status, the board, stats.json and /projects.json"
	if itemsOnly {
		what = "item status"
	}
	return b.beside(ctx, name, warriors, others{
		count: readers,
		start: func(ctx context.Context, l *load.Load) []func() {
			var fs []func()
			routes := l.ReaderRoutes(itemsOnly)
			for i := range readers {
				fs = append(fs, func() { l.RouteReader(ctx, routes, i) })
			}
			return fs
		},
		did: func(l *load.Load) string {
			reads := float64(l.Stats.Total() - l.Stats.Count("request") - l.Stats.Count("done"))
			return fmt.Sprintf("%d readers of %s: %.0f reads/s", readers, what, reads/b.o.Duration.Seconds())
		},
	})
}
