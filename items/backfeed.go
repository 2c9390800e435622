package items

import (
	"bytes"
	"context"
	"fmt"

	"tracker/projects"
)

// Backfeed limits: grab scripts post a few hundred names at a time.
const (
	MaxBackfeedBody  = 16 << 20
	MaxBackfeedNames = 100_000
)

// contextSeparator is how an item carries context after its name: what
// backfeed's itemseparator is stored as, and what item_hash stops at.
const contextSeparator = "\x1f"

// ParseBackfeed splits a backfeed body into item names. Names are separated
// by delim (NUL by default), usually with one trailing; empty names are
// skipped. With sep set, a name may carry context after that byte; it is
// kept with the item (stored after a unit separator, 0x1F) but only the part
// before it identifies the item.
func ParseBackfeed(body []byte, delim, sep []byte) ([]string, error) {
	if len(delim) == 0 {
		delim = []byte{0}
	}
	var names []string
	for part := range bytes.SplitSeq(body, delim) {
		if len(part) == 0 {
			continue
		}
		name := string(part)
		if len(sep) > 0 {
			if key, ctx, found := bytes.Cut(part, sep); found {
				name = string(key) + contextSeparator + string(ctx)
			}
		}
		if err := ValidName(name); err != nil {
			return nil, fmt.Errorf("item %d: %w", len(names)+1, err)
		}
		if name[0] == contextSeparator[0] {
			return nil, fmt.Errorf("item %d: empty name before the item separator", len(names)+1)
		}
		names = append(names, name)
		if len(names) > MaxBackfeedNames {
			return nil, fmt.Errorf("more than %d items in one post", MaxBackfeedNames)
		}
	}
	return names, nil
}

// Backfeed queues the names the project has never seen into its backfeed
// queue and returns how many were new and how many were duplicates. At most
// a few posts are written at once per process: a backfeed statement is long
// (milliseconds for a few hundred names), and many at once would starve the
// warriors' claims and completions of the database's time. Grab scripts
// wait their turn; they retry patiently anyway.
func (e *Engine) Backfeed(ctx context.Context, p projects.Project, names []string) (fresh, dups int64, err error) {
	select {
	case e.backfeeds <- struct{}{}:
		defer func() { <-e.backfeeds }()
	case <-ctx.Done():
		return 0, 0, ctx.Err()
	}
	for start := 0; start < len(names); start += addBatch {
		batch := names[start:min(start+addBatch, len(names))]
		n, err := e.queue(ctx, p, "backfeed", batch)
		if err != nil {
			return fresh, dups, err
		}
		fresh += n
		dups += int64(len(batch)) - n
	}
	return fresh, dups, nil
}
