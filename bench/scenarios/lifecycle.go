package scenarios

import (
	"bufio"
	"context"
	"fmt"
	"strconv"
	"time"
	"tracker/bench/load"
	"tracker/bench/report"
)

// The item lifecycle's scenarios: the warrior loads with every lifecycle
// feature on, to set beside the same loads with them off, and a recurring
// project's claims with a small list and with a large one.

// lifecycleKeys turn on what a request or a done may pay for: items that
// fail after five hand-outs (claims expire after an hour), the
// expired-claims check on every request.
var lifecycleKeys = []string{"max_claims=5", "reclaim_ttl=3600", "expired_claims_limit=100000"}

// lifecycleOff puts the project back as the other scenarios want it.
var lifecycleOff = []string{"max_claims=0", "reclaim_ttl=0", "expired_claims_limit=0"}

// lifecycle runs the warrior scenario with the lifecycle's switches on
// (the keys above), and with documents the items with parameters and the
// dones with a result for each item.
func (b *bench) lifecycle(ctx context.Context, name string, clients, n, perSecond int, documents bool) error {
	if _, err := b.cli("", append([]string{"project", "set", b.project}, lifecycleKeys...)...); err != nil {
		return err
	}
	defer b.cli("", append([]string{"project", "set", b.project}, lifecycleOff...)...)
	if !documents {
		if err := b.refill(ctx, perSecond); err != nil {
			return err
		}
	} else {
		if err := b.drain(ctx); err != nil {
			return err
		}
		count := b.o.Queue
		if count == 0 {
			count = perSecond * int(b.o.Duration/time.Second+1)
		}
		prefix := fmt.Sprintf("item:%d:", time.Now().UnixNano())
		if _, err := b.fillLines(b.project, count, func(w *bufio.Writer, i int) {
			w.WriteString(prefix)
			w.WriteString(strconv.Itoa(i))
			w.WriteString("\t{\"depth\":2,\"shard\":")
			w.WriteString(strconv.Itoa(i % 16))
			w.WriteString("}\n")
		}); err != nil {
			return err
		}
	}
	note := "max_claims, reclaim_ttl, expired_claims_limit on"
	if documents {
		note += "; parameters on every item, a result with every done"
	}
	b.measure(ctx, name, clients, func(ctx context.Context, l *load.Load) []func() {
		l.Results = documents
		var fs []func()
		for i := range clients {
			fs = append(fs, func() { l.Warrior(ctx, fmt.Sprintf("w%d", i), n) })
		}
		return fs
	}, note)
	return nil
}

// recurring runs single warriors on recurring projects of a small and a
// large list, each item due again 2 s after its visit, the dones reporting
// outcomes: a claim should cost the same whatever the list's size.
func (b *bench) recurring(ctx context.Context, clients int) error {
	if _, err := b.cli("", "jobs", "set", "revisit", "--every", "1s"); err != nil {
		return err
	}
	for _, size := range []int{b.o.RecurringSmall, b.o.RecurringLarge} {
		slug := fmt.Sprintf("recurring-%d", size)
		if _, err := b.cli("", "project", "create", slug); err != nil {
			return err
		}
		if _, err := b.cli("", "project", "set", slug, "mode=recurring", "revisit_after=2"); err != nil {
			return err
		}
		took, err := b.fillLines(slug, size, func(w *bufio.Writer, i int) {
			w.WriteString("tor:")
			w.WriteString(strconv.Itoa(i))
			w.WriteByte('\n')
		})
		if err != nil {
			return err
		}
		b.pool.Exec(ctx, "VACUUM ANALYZE todo")
		project := b.project
		b.project = slug
		b.measure(ctx, fmt.Sprintf("recurring %s", report.Short(size)), clients, func(ctx context.Context, l *load.Load) []func() {
			l.Outcomes = true
			var fs []func()
			for i := range clients {
				fs = append(fs, func() { l.Warrior(ctx, fmt.Sprintf("r%d", i), 1) })
			}
			return fs
		}, fmt.Sprintf("%d items tracked (imported in %s), each due 2 s after its visit; dones report outcomes", size, took.Round(time.Second)))
		b.project = project
	}
	return nil
}
