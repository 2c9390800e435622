package handlers

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"tracker/items"
	"tracker/kept"
	"tracker/projects"
	"tracker/volunteers"
	"tracker/warriors"
)

// The public read routes (item status, the board and stats.json, the
// project list, the pages) have a side of the database of their own: a pool
// of a few connections, entered through as many slots. However many
// volunteers read at once, they hold at most those connections and never
// one the warrior routes need; the rest wait for a slot, for a bounded time
// and in bounded numbers, and past either bound are told to come back
// (503 readers-busy with Retry-After). What they read is kept a moment
// (cacheTTL) where fresh enough is fine: an item's status, the project
// list and the settings, the volunteers' counts, a project as the pages
// see it.

// ReaderLimits bound the public read routes' share of the database and of
// the machine.
type ReaderLimits struct {
	// Slots is how many read requests run at once: the readers' pool
	// should have as many connections.
	Slots int
	// Rate is how many reads start a second at most, a read counted by
	// its cost: one unit, and one more for each readerUnitBytes it
	// sends. A read keeps its slot for at least Slots/Rate, and for
	// readerRest times as long as it took; each further unit holds the
	// next slot to come free for Slots/Rate more. Reads served from
	// memory cost little each, but a flood of them, each answered at
	// once, would take the processor from the warriors as surely as reads
	// of the database; a read that takes long (the machine is busy) waits
	// the longer before the next; and a read of a big page costs as many
	// small ones, so a few readers of big pages take no more than their
	// size from the others. 0: no bound but Slots.
	Rate int
	// Waiting is how many more may wait for a slot; past it a read is
	// refused at once.
	Waiting int
	// Wait is how long one waits for a slot before it is refused.
	Wait time.Duration
}

// DefaultReaderLimits: two reads at a time, 2,000 a second, and a queue a
// flood of readers waits in for a second at most.
var DefaultReaderLimits = ReaderLimits{Slots: 2, Rate: 2000, Waiting: 1000, Wait: time.Second}

// readerRetryAfter is the Retry-After of a read refused for want of a slot.
const readerRetryAfter = 1

// readerRest: a read keeps its slot for this many times as long as it took
// (with a Rate), so the reads keep each slot busy an eighth of the time at
// most: on a machine the warriors keep busy reads slow down, and then come
// the less often.
const readerRest = 8

// readerUnitBytes is what a read may send for one unit of the rate: a
// read that sends more costs one more unit for each readerUnitBytes
// (counted as the handler writes them: a page served in its gzip made
// once by its gzip's bytes, an answer compressed as it goes out by the
// bytes compressed).
const readerUnitBytes = 16 << 10

// readerCacheEntries bounds the item statuses kept, readerCachePages the
// rendered pages.
const (
	readerCacheEntries = 10_000
	readerCachePages   = 1000
)

// readSide is what the read routes read through.
type readSide struct {
	gate *readGate
	// live are the projects as the read routes see them, read on the
	// readers' pool: a request for a made-up project costs the warriors
	// nothing.
	live       *projects.Cache
	store      *projects.Store
	statuses   *items.Statuses
	volunteers *volunteers.Counter
	// warriors are the warrior HQ's records, as its maps read them.
	warriors *warriors.Store
	// The project list, the settings and the tracker's volunteer counts,
	// kept for the cache's lifetime; and the pages the same for every
	// viewer (pageKey).
	list     *kept.Cache[struct{}, []projects.Project]
	settings *kept.Cache[struct{}, projects.Settings]
	auto     *kept.Cache[struct{}, projects.AutoChoice]
	counts   *kept.Cache[struct{}, volunteers.Counts]
	pages    *kept.Cache[pageKey, keptPage]
}

// pageKey names a rendered page: its route, project and query.
type pageKey struct {
	route   string
	project int32
	query   string
}

// newReadSide is the public reads' side on pool, engine (the process's
// one) running its lookups there.
func newReadSide(pool *pgxpool.Pool, engine *items.Engine, ttl time.Duration, l ReaderLimits) readSide {
	store := projects.NewStore(pool)
	return readSide{
		gate:       newReadGate(l),
		live:       projects.NewCache(store, ttl),
		store:      store,
		statuses:   items.NewStatuses(engine.On(pool), ttl, readerCacheEntries),
		volunteers: volunteers.New(pool),
		warriors:   warriors.NewStore(pool),
		list:       kept.New[struct{}, []projects.Project](ttl, 1),
		settings:   kept.New[struct{}, projects.Settings](ttl, 1),
		auto:       kept.New[struct{}, projects.AutoChoice](ttl, 1),
		counts:     kept.New[struct{}, volunteers.Counts](ttl, 1),
		pages:      kept.New[pageKey, keptPage](ttl, readerCachePages),
	}
}

// reader adapts a handler of the read routes: it runs in one of the
// readers' slots, which it gives back as soon as its answer starts going
// out (a slow client holds no slot), or is refused when none comes free in
// time; what it sends is counted against the rate as it is written.
func (h *Handler) reader(fn func(http.ResponseWriter, *http.Request) error) func(http.ResponseWriter, *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		g := h.reads.gate
		leave, err := g.enter(r.Context())
		if err != nil {
			return err
		}
		rw := &slotWriter{ResponseWriter: w, leave: leave, gate: g}
		defer rw.free()
		return fn(rw, r)
	}
}

// readGate is the readers' slots: a fair queue (Go's channel senders wait
// in order), bounded in length and in time. The admin panel's reads take
// turns through one of their own (admin_reads.go).
type readGate struct {
	slots   chan struct{}
	waiting atomic.Int64
	limits  ReaderLimits
	// busy refuses one that found no slot.
	busy *Error
	// hold is how long a read keeps its slot at least (Slots/Rate): a
	// unit of the rate.
	hold time.Duration
	// owed is the slot time the units of reads beyond their first still
	// take: the next slot to come free is held that much longer.
	owed atomic.Int64 // a time.Duration
	// now and after tell the time and give a slot back later: time.Now and
	// time.AfterFunc but in tests.
	now   func() time.Time
	after func(time.Duration, func())
}

func newReadGate(l ReaderLimits) *readGate { return newGate(l, errReadersBusy) }

// newGate is a gate of l's slots that refuses with busy.
func newGate(l ReaderLimits, busy *Error) *readGate {
	g := &readGate{slots: make(chan struct{}, max(1, l.Slots)), limits: l, busy: busy, now: time.Now,
		after: func(d time.Duration, f func()) { time.AfterFunc(d, f) }}
	if l.Rate > 0 {
		g.hold = time.Duration(cap(g.slots)) * time.Second / time.Duration(l.Rate)
	}
	return g
}

// errReadersBusy refuses a read that found no slot.
var errReadersBusy = &Error{Status: http.StatusServiceUnavailable, Reason: "readers-busy",
	Msg: "too many readers at once; try again in a moment", RetryAfter: readerRetryAfter}

// enter takes a slot, waiting for one within the limits, and returns what
// gives it back.
func (g *readGate) enter(ctx context.Context) (func(), error) {
	select {
	case g.slots <- struct{}{}:
		return g.leaver(), nil
	default:
	}
	if g.waiting.Add(1) > int64(g.limits.Waiting) {
		g.waiting.Add(-1)
		return nil, g.busy
	}
	defer g.waiting.Add(-1)
	t := time.NewTimer(g.limits.Wait)
	defer t.Stop()
	select {
	case g.slots <- struct{}{}:
		return g.leaver(), nil
	case <-t.C:
		return nil, g.busy
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// leaver is what gives back a slot just taken: at once, or once the read
// has held it for hold, and for readerRest times as long as it took.
func (g *readGate) leaver() func() {
	if g.hold <= 0 {
		return g.leave
	}
	start := g.now()
	return func() {
		took := g.now().Sub(start)
		if rest := max(g.hold, readerRest*took) - took; rest > 0 {
			g.after(rest, g.leave)
			return
		}
		g.leave()
	}
}

// leave gives a slot back, once it has held it for what reads owe.
func (g *readGate) leave() {
	if owed := time.Duration(g.owed.Swap(0)); owed > 0 {
		g.after(owed, g.leave)
		return
	}
	<-g.slots
}

// charge counts units more of a read's cost against the rate.
func (g *readGate) charge(units int) {
	if g.hold > 0 && units > 0 {
		g.owed.Add(int64(time.Duration(units) * g.hold))
	}
}

// slotWriter gives its request's slot back once, when the answer's head
// is written or the handler returns, and charges the gate a unit for
// each readerUnitBytes written past the first, before they go out.
type slotWriter struct {
	http.ResponseWriter
	leave func()
	once  sync.Once
	gate  *readGate
	sent  int
}

func (s *slotWriter) free() { s.once.Do(s.leave) }

func (s *slotWriter) WriteHeader(code int) {
	s.free()
	s.ResponseWriter.WriteHeader(code)
}

func (s *slotWriter) Write(b []byte) (int, error) {
	s.free()
	before := s.sent / readerUnitBytes
	s.sent += len(b)
	s.gate.charge(s.sent/readerUnitBytes - before)
	return s.ResponseWriter.Write(b)
}

func (s *slotWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// readProject is the request's project as the read routes see it.
func (h *Handler) readProject(r *http.Request) (*projects.Live, error) {
	return h.projectIn(h.reads.live, r)
}

// readList is every project, kept for the cache's lifetime.
func (h *Handler) readList(ctx context.Context) ([]projects.Project, error) {
	return h.reads.list.Get(ctx, struct{}{}, h.reads.store.List)
}

// readSettings are the tracker-wide settings, kept for the cache's
// lifetime.
func (h *Handler) readSettings(ctx context.Context) (projects.Settings, error) {
	return h.reads.settings.Get(ctx, struct{}{}, h.reads.store.Settings)
}

// readAuto is the auto project the projects file names, kept for the
// cache's lifetime.
func (h *Handler) readAuto(ctx context.Context) (projects.AutoChoice, error) {
	return h.reads.auto.Get(ctx, struct{}{}, h.reads.store.AutoChoice)
}
