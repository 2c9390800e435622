// Package kept holds values read from the database for a short while, so
// that the many requests asking the same within that while cost one read:
// a project's live view for the warrior routes, an item's public status,
// the pages every volunteer reads alike. It imports no other package of
// the tracker.
package kept

import (
	"context"
	"fmt"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
)

// ReadTimeout bounds a read the waiting requests share: it is not ended by
// the end of the request that started it, so it needs an end of its own.
const ReadTimeout = 10 * time.Second

// Cache holds values by key for ttl. A value older than that is read again
// by one of the requests that find it so, the others waiting for that
// read. A failed read is kept by no one: the next request reads again. At
// most max values are kept: when full, the expired ones go, and all of
// them when that leaves it more than half full (a flood of keys asked once
// each), so making room costs a pass over the entries only once per many
// reads. With a ttl of 0 every Get reads.
type Cache[K comparable, V any] struct {
	ttl   time.Duration
	max   int
	now   func() time.Time
	group singleflight.Group

	mu      sync.Mutex
	entries map[K]entry[V]
}

type entry[V any] struct {
	v  V
	at time.Time // when its read began: the value is no older
}

// New keeps values for ttl, at most max of them.
func New[K comparable, V any](ttl time.Duration, max int) *Cache[K, V] {
	return &Cache[K, V]{ttl: ttl, max: max, now: time.Now, entries: map[K]entry[V]{}}
}

// SetClock makes the cache tell the age of its values by now (tests).
func (c *Cache[K, V]) SetClock(now func() time.Time) { c.now = now }

// Get is key's value, read by read when none younger than the ttl is kept.
func (c *Cache[K, V]) Get(ctx context.Context, key K, read func(context.Context) (V, error)) (V, error) {
	if c.ttl <= 0 {
		return read(ctx)
	}
	c.mu.Lock()
	e, ok := c.entries[key]
	c.mu.Unlock()
	if ok && c.now().Sub(e.at) < c.ttl {
		return e.v, nil
	}
	// %#v quotes the strings of a key, so two keys never share a read.
	v, err, _ := c.group.Do(fmt.Sprintf("%#v", key), func() (any, error) {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ReadTimeout)
		defer cancel()
		start := c.now()
		v, err := read(ctx)
		if err == nil {
			c.keep(key, entry[V]{v: v, at: start})
		} else {
			c.Forget(key) // an expired value is never answered: let it go
		}
		return v, err
	})
	if err != nil {
		var zero V
		return zero, err
	}
	return v.(V), nil
}

// Forget drops key's value: the next Get reads it.
func (c *Cache[K, V]) Forget(key K) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.entries, key)
}

func (c *Cache[K, V]) keep(key K, e entry[V]) {
	if c.max <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[key]; !ok && len(c.entries) >= c.max {
		now := c.now()
		for k, old := range c.entries {
			if now.Sub(old.at) >= c.ttl {
				delete(c.entries, k)
			}
		}
		if len(c.entries) > c.max/2 {
			clear(c.entries)
		}
	}
	c.entries[key] = e
}

// Len is how many values are kept.
func (c *Cache[K, V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}
