package scenarios

import (
	"context"
	"fmt"

	"tracker/bench/load"
)

// mixed runs multi warriors, grab scripts and single warriors together,
// as a busy project has them.
func (b *bench) mixed(ctx context.Context, name string, n int) error {
	if err := b.refill(ctx, 60_000); err != nil {
		return err
	}
	b.measure(ctx, name, n, func(ctx context.Context, l *load.Load) []func() {
		var fs []func()
		for i := range n {
			switch i % 4 {
			case 0:
				fs = append(fs, func() { l.Warrior(ctx, fmt.Sprintf("m%d", i), b.o.Multi) })
			case 1:
				fs = append(fs, func() { l.GrabScript(ctx, 1000+i) })
			default:
				fs = append(fs, func() { l.Warrior(ctx, fmt.Sprintf("s%d", i), 1) })
			}
		}
		return fs
	}, "a quarter multi warriors, a quarter grab scripts, half single warriors; items/s counts completions and backfed names")
	return nil
}

// lookup runs single warriors beside readers of item status and the
// project list.
func (b *bench) lookup(ctx context.Context, name string, n int) error {
	if err := b.refill(ctx, 40_000); err != nil {
		return err
	}
	b.measure(ctx, name, n+8, func(ctx context.Context, l *load.Load) []func() {
		var fs []func()
		for i := range n {
			fs = append(fs, func() { l.Warrior(ctx, fmt.Sprintf("w%d", i), 1) })
		}
		for range 8 {
			fs = append(fs, func() { l.Reader(ctx) })
		}
		return fs
	}, fmt.Sprintf("%d single warriors, 8 readers of item status and the project list", n))
	return nil
}
