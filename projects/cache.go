package projects

import (
	"context"
	"errors"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
)

// Live is what a warrior request needs to know of its project: the project,
// the blocks that apply to it, and its counts (Queues holds only the queues
// that hold items).
type Live struct {
	Project
	Blocks  Blocks
	Queues  map[string]int64
	Summary Summary
}

// Cache keeps Live views of projects for the warrior routes and the pages,
// which would otherwise read them again for every request: more work than
// the claim itself. An entry lives for ttl, so a change made by any process (a new
// block, a paused project, items queued) takes effect within it. With a ttl
// of 0 every Get reads the database.
type Cache struct {
	store *Store
	ttl   time.Duration
	now   func() time.Time
	group singleflight.Group

	mu      sync.Mutex
	entries map[string]cacheEntry
}

type cacheEntry struct {
	live   *Live
	loaded time.Time
}

// CacheOption changes how a Cache works.
type CacheOption func(*Cache)

// WithClock makes the cache tell the age of its entries by now instead of
// time.Now.
func WithClock(now func() time.Time) CacheOption {
	return func(c *Cache) { c.now = now }
}

func NewCache(store *Store, ttl time.Duration, opts ...CacheOption) *Cache {
	c := &Cache{store: store, ttl: ttl, now: time.Now, entries: map[string]cacheEntry{}}
	for _, o := range opts {
		o(c)
	}
	return c
}

// Get returns the live view of a project, reading it when the cached one is
// older than the ttl. Concurrent requests for the same project share one
// read.
func (c *Cache) Get(ctx context.Context, slug string) (*Live, error) {
	if c.ttl > 0 {
		c.mu.Lock()
		e, ok := c.entries[slug]
		c.mu.Unlock()
		if ok && c.now().Sub(e.loaded) < c.ttl {
			return e.live, nil
		}
	}
	v, err, _ := c.group.Do(slug, func() (any, error) {
		// Shared by every waiting request: not ended by the first one's end.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		// Only projects that exist are kept: requests for made-up slugs
		// must not grow the cache without end. An entry's age counts from
		// the start of its read: what it holds is no older.
		start := c.now()
		live, err := c.load(ctx, slug)
		c.mu.Lock()
		switch {
		case err == nil:
			c.entries[slug] = cacheEntry{live: live, loaded: start}
		case errors.Is(err, ErrNotFound):
			delete(c.entries, slug)
		}
		c.mu.Unlock()
		return live, err
	})
	live, _ := v.(*Live)
	return live, err
}

func (c *Cache) load(ctx context.Context, slug string) (*Live, error) {
	p, err := c.store.Get(ctx, slug)
	if err != nil {
		return nil, err
	}
	blocks, err := c.store.Blocks(ctx, p)
	if err != nil {
		return nil, err
	}
	sum, err := c.store.Summary(ctx, p)
	if err != nil {
		return nil, err
	}
	queues := map[string]int64{}
	for q, n := range sum.Queues {
		if n > 0 {
			queues[q] = n
		}
	}
	return &Live{Project: p, Blocks: blocks, Queues: queues, Summary: sum}, nil
}
