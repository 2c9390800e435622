package items

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"

	"tracker/projects"
)

// Statuses answers the public lookups of items' status, keeping each
// answer for ttl: a page polling an item, or many volunteers looking up the
// same one, costs the database one lookup per item per ttl. Its answers are
// as fresh as the ttl says; an action on an item looks it up with
// Engine.LookupNow.
type Statuses struct {
	engine *Engine
	ttl    time.Duration
	max    int
	now    func() time.Time
	group  singleflight.Group

	mu      sync.Mutex
	entries map[statusKey]statusEntry
}

type statusKey struct {
	project     int32
	shard, name string
}

type statusEntry struct {
	st     ItemStatus
	err    error // nil or ErrUnknownItem: other failures are not kept
	loaded time.Time
}

// NewStatuses keeps the lookups of engine for ttl (0: none kept), at most
// max of them.
func NewStatuses(engine *Engine, ttl time.Duration, max int) *Statuses {
	return &Statuses{engine: engine, ttl: ttl, max: max, now: time.Now, entries: map[statusKey]statusEntry{}}
}

// SetClock makes the cache tell the age of its entries by now (tests).
func (s *Statuses) SetClock(now func() time.Time) { s.now = now }

// Lookup is Engine.LookupInShard, answered from what was read within the
// ttl when there is one. The status returned is shared: read it, do not
// change it.
func (s *Statuses) Lookup(ctx context.Context, live *projects.Live, shard, name string) (ItemStatus, error) {
	if s.ttl <= 0 {
		return s.engine.LookupInShard(ctx, live, shard, name)
	}
	if err := ValidShard(shard); err != nil {
		return ItemStatus{}, &InvalidError{Err: err}
	}
	key := statusKey{project: live.ID, shard: shard, name: name}
	s.mu.Lock()
	e, ok := s.entries[key]
	s.mu.Unlock()
	if ok && s.now().Sub(e.loaded) < s.ttl {
		return e.st, e.err
	}
	v, err, _ := s.group.Do(strconv.Itoa(int(live.ID))+"\x00"+shard+"\x00"+name, func() (any, error) {
		// Shared by every waiting request: not ended by the first one's end.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		start := s.now()
		st, err := s.engine.LookupInShard(ctx, live, shard, name)
		if err == nil || errors.Is(err, ErrUnknownItem) {
			s.keep(key, statusEntry{st: st, err: err, loaded: start})
		}
		return st, err
	})
	st, _ := v.(ItemStatus)
	return st, err
}

// keep stores an entry, first making room when the cache is full: the
// expired entries go, and all of them when that leaves it more than half
// full (a flood of names looked up once each), so making room costs a pass
// over the entries only once per many lookups.
func (s *Statuses) keep(key statusKey, e statusEntry) {
	if s.max <= 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.entries[key]; !ok && len(s.entries) >= s.max {
		now := s.now()
		for k, old := range s.entries {
			if now.Sub(old.loaded) >= s.ttl {
				delete(s.entries, k)
			}
		}
		if len(s.entries) > s.max/2 {
			clear(s.entries)
		}
	}
	s.entries[key] = e
}

// Len is how many answers are kept (tests).
func (s *Statuses) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.entries)
}
