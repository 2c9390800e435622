package scenarios

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
	"tracker/bench/load"
	"tracker/bench/report"
)

// others are the clients run beside the warriors.
type others struct {
	// count is how many there are.
	count int
	// before, when not nil, runs ahead of each run beside the warriors,
	// outside its measured time; after, when not nil, after it.
	before func(context.Context) error
	after  func()
	// start starts them for a run; did says what they did in it.
	start func(context.Context, *load.Load) []func()
	did   func(*load.Load) string
}

// beside runs single warriors alone and beside others (readers, a client
// holding connections, admins searching) in turn, alone first and last (A
// B A B A B A), and notes each run beside the others against the mean of
// the runs alone just before and just after it: on a machine others share,
// the load drifts within minutes, and a run compared with its two
// neighbours is compared with the same minutes.
func (b *bench) beside(ctx context.Context, name string, warriors int, o others) error {
	// One fill for every run, with the checkpoint it causes taken before
	// the first: the runs start alike.
	const pairs = 3
	perSecond := 6000
	if err := b.drain(ctx); err != nil {
		return err
	}
	n := b.o.Queue
	if n == 0 {
		n = perSecond * (2*pairs + 1) * int(b.o.Duration/time.Second+1)
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
	singles := func(ctx context.Context, l *load.Load) []func() {
		var fs []func()
		for i := range warriors {
			fs = append(fs, func() { l.Warrior(ctx, fmt.Sprintf("w%d", i), 1) })
		}
		return fs
	}
	runAlone := func() *report.Row {
		return b.measure(ctx, name+" alone", warriors, singles, fmt.Sprintf("%d single warriors alone", warriors))
	}
	var ratios []string
	before := runAlone()
	for range pairs {
		if ctx.Err() != nil {
			return nil
		}
		if o.before != nil {
			if err := o.before(ctx); err != nil {
				return err
			}
		}
		var did func() string
		with := b.measure(ctx, name, warriors+o.count, func(ctx context.Context, l *load.Load) []func() {
			did = func() string { return o.did(l) }
			return append(singles(ctx, l), o.start(ctx, l)...)
		}, "")
		if o.after != nil {
			o.after()
		}
		after := runAlone()
		alone := (before.ItemsPerS + after.ItemsPerS) / 2
		ratio := with.ItemsPerS / alone
		ratios = append(ratios, strconv.FormatFloat(ratio, 'f', 2, 64))
		with.Note = fmt.Sprintf("%d single warriors beside %s; %.2f × the warriors alone in the runs just before and after (%.0f items/s)",
			warriors, did(), ratio, alone)
		before = after
	}
	b.rows[len(b.rows)-1].Note += "; the " + strconv.Itoa(pairs) + " runs beside the others: " + strings.Join(ratios, ", ") + " ×"
	return nil
}
