package items

import (
	"context"
	"errors"
	"time"

	"tracker/kept"
	"tracker/projects"
	"tracker/refusal"
)

// Statuses answers the public lookups of items' status, keeping each
// answer for ttl: a page polling an item, or many volunteers looking up the
// same one, costs the database one lookup per item per ttl. Its answers are
// as fresh as the ttl says; an action on an item looks it up with
// Engine.LookupNow.
type Statuses struct {
	engine *Engine
	ttl    time.Duration
	kept   *kept.Cache[statusKey, statusEntry]
}

type statusKey struct {
	project     int32
	shard, name string
}

// statusEntry is a lookup's answer: an item unknown is an answer too,
// kept as any other; a failure is not.
type statusEntry struct {
	st  ItemStatus
	err error // nil or ErrUnknownItem
}

// NewStatuses keeps the lookups of engine for ttl (0: none kept), at most
// max of them.
func NewStatuses(engine *Engine, ttl time.Duration, max int) *Statuses {
	return &Statuses{engine: engine, ttl: ttl, kept: kept.New[statusKey, statusEntry](ttl, max)}
}

// SetClock makes the cache tell the age of its entries by now (tests).
func (s *Statuses) SetClock(now func() time.Time) { s.kept.SetClock(now) }

// Lookup is Engine.LookupInShard, answered from what was read within the
// ttl when there is one. The status returned is shared: read it, do not
// change it.
func (s *Statuses) Lookup(ctx context.Context, live *projects.Live, shard, name string) (ItemStatus, error) {
	if s.ttl <= 0 {
		return s.engine.LookupInShard(ctx, live, shard, name)
	}
	if err := ValidShard(shard); err != nil {
		return ItemStatus{}, refusal.New(refusal.Invalid, "", err)
	}
	e, err := s.kept.Get(ctx, statusKey{project: live.ID, shard: shard, name: name}, func(ctx context.Context) (statusEntry, error) {
		st, err := s.engine.LookupInShard(ctx, live, shard, name)
		if err != nil && !errors.Is(err, ErrUnknownItem) {
			return statusEntry{}, err
		}
		return statusEntry{st: st, err: err}, nil
	})
	if err != nil {
		return ItemStatus{}, err
	}
	return e.st, e.err
}

// Len is how many answers are kept (tests).
func (s *Statuses) Len() int { return s.kept.Len() }
