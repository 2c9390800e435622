package projects

import (
	"context"
	"time"

	"tracker/kept"
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
	kept  *kept.Cache[string, *Live]
}

// maxCached bounds the projects a Cache keeps: far more than a tracker
// runs. Only projects that exist are kept, so requests for made-up slugs
// cannot grow it.
const maxCached = 100_000

// CacheOption changes how a Cache works.
type CacheOption func(*Cache)

// WithClock makes the cache tell the age of its entries by now instead of
// time.Now.
func WithClock(now func() time.Time) CacheOption {
	return func(c *Cache) { c.kept.SetClock(now) }
}

func NewCache(store *Store, ttl time.Duration, opts ...CacheOption) *Cache {
	c := &Cache{store: store, kept: kept.New[string, *Live](ttl, maxCached)}
	for _, o := range opts {
		o(c)
	}
	return c
}

// Get returns the live view of a project, reading it when the cached one is
// older than the ttl. Concurrent requests for the same project share one
// read.
func (c *Cache) Get(ctx context.Context, slug string) (*Live, error) {
	return c.kept.Get(ctx, slug, func(ctx context.Context) (*Live, error) { return c.load(ctx, slug) })
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
