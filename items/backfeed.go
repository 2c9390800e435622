package items

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"tracker/db"
	"tracker/naming"
	"tracker/projects"
	"tracker/refusal"
)

// Backfeed limits: grab scripts post a few hundred names at a time.
const (
	MaxBackfeedBody  = 16 << 20
	MaxBackfeedNames = 100_000
	MaxShardLen      = 64
)

// contextSeparator is how an item carries context after its name (urls-grab
// queues "url\x1Fparams"): what item_hash stops at, so the context does not
// make another item.
const contextSeparator = "\x1f"

// BackfeedEntry is one entry of a backfeed post: Key is what is
// deduplicated, Item what is queued, handed out and reported done. An entry
// without the item separator is its own key and item.
type BackfeedEntry struct {
	Key, Item string
	// Params are the item's parameters as stored (see ParseBackfeed), ""
	// for none.
	Params string
}

// ParseBackfeed splits a backfeed body into entries. Entries are separated
// by delim (NUL by default), usually with one trailing; empty entries are
// skipped. With sep set, an entry is KEY sep ITEM, split at the first sep:
// the ITEM is kept verbatim (urls-grab sends "url sep url sep params" and
// splits what it is handed at the last sep, so it must get "url sep params"
// back, never the key). With params, a post that says it carries them
// (?params=1), an item may end with its parameters after a tab,
// "ITEM<TAB>{...}", as an import line does: whatever follows its first tab
// must be a JSON object, and the parameters are cut off before the item is
// checked as a name, so each is held to its own bound. An entry without a
// separate key is keyed by its item without the parameters.
func ParseBackfeed(body []byte, delim, sep []byte, params bool) ([]BackfeedEntry, error) {
	if len(delim) == 0 {
		delim = []byte{0}
	}
	var entries []BackfeedEntry
	for part := range bytes.SplitSeq(body, delim) {
		if len(part) == 0 {
			continue
		}
		n := len(entries) + 1
		key, item, keyed := part, part, false
		if len(sep) > 0 {
			if k, it, found := bytes.Cut(part, sep); found {
				if len(it) == 0 {
					return nil, fmt.Errorf("item %d: empty item after the item separator", n)
				}
				key, item, keyed = k, it, true
			}
		}
		var doc []byte
		hasDoc := false
		if params {
			if it, d, found := bytes.Cut(item, []byte{'\t'}); found {
				item, doc, hasDoc = it, d, true
				if !keyed {
					key = item
				}
			}
		}
		e := BackfeedEntry{Key: string(key), Item: string(item)}
		if len(e.Key) == 0 || e.Key[0] == contextSeparator[0] {
			return nil, fmt.Errorf("item %d: empty key before the item separator", n)
		}
		if err := naming.ValidName(e.Key); err != nil {
			return nil, fmt.Errorf("item %d: key: %w", n, err)
		}
		if len(e.Item) == 0 || e.Item[0] == contextSeparator[0] {
			return nil, fmt.Errorf("item %d: empty name before the context separator", n)
		}
		if err := naming.ValidName(e.Item); err != nil {
			return nil, fmt.Errorf("item %d: %w", n, err)
		}
		if hasDoc {
			var err error
			if e.Params, err = parseParams(string(doc)); err != nil {
				return nil, fmt.Errorf("item %d: %w", n, err)
			}
		}
		entries = append(entries, e)
		if len(entries) > MaxBackfeedNames {
			return nil, fmt.Errorf("more than %d items in one post", MaxBackfeedNames)
		}
	}
	return entries, nil
}

// ValidShard checks a backfeed shard's name: up to MaxShardLen letters,
// digits, '_' and '-'. The empty name is the project's default scope.
func ValidShard(s string) error {
	if len(s) > MaxShardLen {
		return fmt.Errorf("shard longer than %d characters", MaxShardLen)
	}
	for _, c := range []byte(s) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return errors.New("a shard is letters, digits, '_' and '-'")
		}
	}
	return nil
}

// Backfeed queues into the project's backfeed queue the items whose key was
// never seen in shard ("" is the project's default scope), and returns how
// many were new and how many were duplicates (see BackfeedPost).
func (e *Engine) Backfeed(ctx context.Context, p projects.Project, shard string, entries []BackfeedEntry) (fresh, dups int64, err error) {
	r, err := e.BackfeedPost(ctx, p, BackfeedOptions{Shard: shard}, entries)
	return r.New, r.Duplicates, err
}

// BackfeedOptions are a backfeed post's query parameters.
type BackfeedOptions struct {
	// Shard is the deduplication scope ("" the project's default one).
	Shard string
	// SkipSeen (skipbloom=1): an entry whose key was seen before is queued
	// again too (it stays seen), unless its item is queued in any queue,
	// the error and retired queues included, out, or waiting for its next
	// visit: a script reports items again that must be done again.
	SkipSeen bool
}

// BackfeedResult tells what a post did.
type BackfeedResult struct {
	// New counts the entries queued, Duplicates those that were not.
	New, Duplicates int64
	// Again counts the entries of New that were seen before and queued
	// only because the post skips the seen check (not those a recrawl
	// queues anyway).
	Again int64
}

// BackfeedPost queues a post's entries into the project's backfeed queue:
// those whose key was never seen in the shard, and with SkipSeen those
// seen before that are nowhere now. At most a few posts are written at
// once per process: a backfeed statement is long (milliseconds for a few
// hundred names), and many at once would starve the warriors' claims and
// completions of the database's time. Grab scripts wait their turn; they
// retry patiently anyway. Each batch of up to 10,000 entries is written by
// one statement, whatever it holds.
func (e *Engine) BackfeedPost(ctx context.Context, p projects.Project, opts BackfeedOptions, entries []BackfeedEntry) (BackfeedResult, error) {
	var r BackfeedResult
	shard := opts.Shard
	if err := ValidShard(shard); err != nil {
		return r, refusal.New(refusal.Invalid, "", err)
	}
	select {
	case e.backfeeds <- struct{}{}:
		defer func() { <-e.backfeeds }()
	case <-ctx.Done():
		return r, ctx.Err()
	}
	for start := 0; start < len(entries); start += addBatch {
		batch := entries[start:min(start+addBatch, len(entries))]
		names, keys := make([]string, len(batch)), make([]string, len(batch))
		var params []string // nil unless an entry has parameters
		for i, en := range batch {
			names[i], keys[i] = en.Item, en.Key
			if en.Params != "" && params == nil {
				params = make([]string, len(batch))
			}
			if params != nil {
				params[i] = en.Params
			}
		}
		n, again, err := e.queueKeyed(ctx, p, "backfeed", shard, opts.SkipSeen, names, keys, params)
		if err != nil {
			e.tallyBackfeed(ctx, p, shard, r.New)
			return r, err
		}
		r.New += n
		r.Again += again
		r.Duplicates += int64(len(batch)) - n
	}
	e.tallyBackfeed(ctx, p, shard, r.New)
	return r, nil
}

// tallyBackfeed adds a post's new items to its shard's minute, for the
// leaderboard: one statement a post, whatever its size. The items are
// queued by then, so a failure here only loses a statistic and must not
// fail the post (the script would post again and find only duplicates); and
// the tally is written even when the client has gone, so nothing queued
// goes uncounted.
func (e *Engine) tallyBackfeed(ctx context.Context, p projects.Project, shard string, fresh int64) {
	if fresh == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := e.q.BackfeedMinutesAdd(ctx, db.BackfeedMinutesAddParams{ProjectID: p.ID, Shard: shard, Items: fresh}); err != nil {
		e.log.Warn("backfeed tally not written", "project", p.Slug, "shard", shard, "new", fresh, "err", err)
	}
}
