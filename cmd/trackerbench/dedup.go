package main

import (
	"bufio"
	"context"
	"fmt"
	"strconv"
	"time"
)

// dedupSweep measures how backfeed holds up as a project's dedup records
// grow: the backfeed load (8 grab scripts posting 400 names, half of them
// seen) into a project that has seen 1,000,000 names, then into the same
// project once it has seen large.
func (b *bench) dedupSweep(ctx context.Context, large int) error {
	const small = 1_000_000
	const project = "dedup"
	key, err := b.createProject(project, "Dedup at scale")
	if err != nil {
		return err
	}
	prefix := fmt.Sprintf("dedup:%d:", time.Now().UnixNano())
	imported := 0
	seen := func(n int) (time.Duration, error) {
		from := imported
		imported = n
		return b.fillLines(project, n-from, func(w *bufio.Writer, i int) {
			w.WriteString(prefix)
			w.WriteString(strconv.Itoa(from + i))
			w.WriteByte('\n')
		})
	}
	backfeed := func(name string) *row {
		return b.measureOn(ctx, project, key, name, 8, func(ctx context.Context, l *load) []func() {
			var fs []func()
			for i := range 8 {
				fs = append(fs, func() { l.grabScript(ctx, i) })
			}
			return fs
		}, "")
	}
	if _, err := seen(small); err != nil {
		return err
	}
	smallRow := backfeed("backfeed-1M-seen")
	smallRow.note = "backfeed (8 grab scripts, 400 names a post, half seen) into a project that has seen 1,000,000 names"
	start := time.Now()
	if _, err := seen(large); err != nil {
		return err
	}
	filled := time.Since(start)
	largeRow := backfeed(fmt.Sprintf("backfeed-%dM-seen", large/1_000_000))
	largeRow.note = fmt.Sprintf("the same once it has seen %d names: %.2f × with 1,000,000 (importing the %d more took %.0f s)",
		large, largeRow.itemsPerS/smallRow.itemsPerS, large-small, filled.Seconds())
	return nil
}
