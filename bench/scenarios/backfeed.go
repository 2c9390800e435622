package scenarios

import (
	"context"

	"tracker/bench/load"
)

// backfeed runs grab scripts posting names, half seen before, and the
// yardstick that inserts the same posts into a table keyed like the dedup
// records.
func (b *bench) backfeed(ctx context.Context, name string, n int) error {
	r := b.measure(ctx, name, n, func(ctx context.Context, l *load.Load) []func() {
		var fs []func()
		for i := range n {
			fs = append(fs, func() { l.GrabScript(ctx, i) })
		}
		return fs
	}, "names deduplicated and queued per second; half of each post seen before; the yardstick inserts the same posts into a table keyed like the dedup records")
	if !b.o.Floor || ctx.Err() != nil {
		return nil
	}
	var err error
	r.Yardstick, err = b.insertYardstick(ctx, n)
	return err
}
