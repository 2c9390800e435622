// Package items is the item engine: queueing names, handing them out to
// warriors as claims, and recording their completion, all in PostgreSQL.
package items

import (
	"context"
	"errors"
	"log/slog"
	"net/netip"
	"runtime"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/sync/singleflight"

	"tracker/db"
	"tracker/db/drivers"
	"tracker/naming"
	"tracker/projects"
	"tracker/refusal"
)

// Engine hands out and completes the items of every project.
type Engine struct {
	pool   *pgxpool.Pool
	q      *db.Queries
	log    *slog.Logger
	claims *batcher[claimOp]
	dones  *batcher[doneOp]
	// memory is what the engine remembers between calls, shared by every
	// Engine On makes of it: one a process.
	*memory
}

// memory is an engine's: hints that make the next statement cheaper,
// counts not yet written, and lists read once a second.
type memory struct {
	// backfeeds holds a token for each backfeed post being written.
	backfeeds chan struct{}

	// heads remembers, per stretch of a queue, the id of the last item this
	// process claimed there. Claims start after it instead of walking the
	// index entries that earlier claims left dead in front of the first
	// live item (docs/DESIGN.md, "Head hints": this keeps a claim's cost flat).
	mu    sync.Mutex
	heads map[stretch]int64
	// requeued is, per project, the count of items put back behind queue
	// heads (by any process) when this process last looked.
	requeued map[int32]int64
	// counts are the item requests not yet written to the counters.
	counts        map[int32]*requestCounts
	countsFlushed time.Time
	// expired are, per project, the downloaders over its
	// expired_claims_limit (see tooManyExpired).
	expired      map[int32]*expiredList
	expiredReads singleflight.Group

	// sites remembers, per project, the ids of the sites it queued items
	// of (see siteIDs).
	sitesMu    sync.Mutex
	sites      map[int32]map[string]int32
	sitesKnown int

	// drv is the database's driver, once known.
	drv drivers.Known
}

// stretch is one run of a queue's index: a queue and a type ("" for items
// of unlimited types).
type stretch struct {
	project int32
	queue   string
	typ     string
}

// Batching (see batcher): one claim and one completion transaction at a
// time, operations waiting for the running one and sharing the next; more
// beside it only when it is slow; and operations in one.
//
// More in flight made batches smaller and each item dearer for PostgreSQL:
// with 64 single warriors, four at a time ran at half the rate of one, and
// letting the next batch run its statements while the last one commits
// cost a third (docs/BENCHMARKS.md, "Changelog", commit 0a5ce36).
const (
	maxBatches     = 4
	slowBatchAfter = 100 * time.Millisecond
	maxBatchOps    = 256
)

func NewEngine(pool *pgxpool.Pool, log *slog.Logger) *Engine {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return newEngine(pool, log, &memory{
		heads:     make(map[stretch]int64),
		requeued:  make(map[int32]int64),
		counts:    make(map[int32]*requestCounts),
		expired:   make(map[int32]*expiredList),
		sites:     make(map[int32]map[string]int32),
		backfeeds: make(chan struct{}, max(2, runtime.GOMAXPROCS(0))),
	})
}

func newEngine(pool *pgxpool.Pool, log *slog.Logger, m *memory) *Engine {
	e := &Engine{pool: pool, q: db.Of(pool), log: log, memory: m}
	e.claims = &batcher[claimOp]{pool: pool, maxBatches: maxBatches, slowAfter: slowBatchAfter, maxOps: maxBatchOps, run: e.runClaims, begin: e.batchBegin}
	e.dones = &batcher[doneOp]{pool: pool, maxBatches: maxBatches, slowAfter: slowBatchAfter, maxOps: maxBatchOps, run: e.runDones, begin: e.batchBegin}
	return e
}

// On is e running its statements on pool (the admin panel's, the public
// reads'), remembering what e remembers: one engine a process, whichever
// side's connections a caller may use. Its claims and completions batch
// apart from e's, on pool.
func (e *Engine) On(pool *pgxpool.Pool) *Engine { return newEngine(pool, e.log, e.memory) }

// driver is the database's driver, asked the first time (and again after
// a failed question).
func (e *Engine) driver(ctx context.Context) (db.Driver, error) { return e.drv.Of(ctx, e.pool) }

// batchBegin gives the statements that open a batch's transaction.
func (e *Engine) batchBegin(ctx context.Context) ([]string, error) {
	d, err := e.driver(ctx)
	if err != nil || !d.GenericPlans() {
		return []string{"BEGIN"}, err
	}
	return batchBegin, nil
}

// ErrNotHeld is a release naming an item another downloader holds, or,
// in a project with claimer_network, one claimed from another network.
var ErrNotHeld = errors.New("item claimed by another downloader")

// Release gives claimed items back to their queue, in their old place. With
// downloader set, only that downloader's claims may be released: when
// another holds any of the items, nothing is released and the error is
// ErrNotHeld. It returns the names released. The release comes from no
// address the tracker knows (an admin's, a tool's): ReleaseFrom is a
// warrior's.
func (e *Engine) Release(ctx context.Context, p projects.Project, names []string, downloader string) ([]string, error) {
	return e.ReleaseFrom(ctx, p, names, downloader, netip.Addr{})
}

// ReleaseFrom is Release for a client at address from: the downloader's
// claims made from another network than from's (another IPv4 /24, IPv6
// /48) are counted (release_other_network), and in a project with
// claimer_network refused as another downloader's are (ErrNotHeld).
func (e *Engine) ReleaseFrom(ctx context.Context, p projects.Project, names []string, downloader string, from netip.Addr) ([]string, error) {
	if err := validNames(names); err != nil {
		return nil, err
	}
	if downloader != "" { // "" is an admin's release of anyone's claims
		if err := naming.ValidNick(downloader); err != nil {
			return nil, refusal.New(refusal.Invalid, "invalid-downloader", err)
		}
	}
	return e.release(ctx, p, names, downloader, from, false)
}

// ReleaseOwn is a warrior's release that names no downloader, as a grab
// script may send for an item it turns down: the claims made from from's
// network (an IPv4 /24, an IPv6 /48) are given back, whoever holds them.
// When any item named was claimed from another network, or from an
// address not known, nothing is released and the error is ErrNotHeld: a
// stranger elsewhere releases nothing. A release is no expiry, so none
// counts towards expired_claims_limit.
func (e *Engine) ReleaseOwn(ctx context.Context, p projects.Project, names []string, from netip.Addr) ([]string, error) {
	if err := validNames(names); err != nil {
		return nil, err
	}
	return e.release(ctx, p, names, "", from, true)
}

// validNames refuses names of which one is no item name (invalid-item).
func validNames(names []string) error {
	for _, n := range names {
		if err := naming.ValidName(n); err != nil {
			return refusal.New(refusal.Invalid, "invalid-item", err)
		}
	}
	return nil
}

func (e *Engine) release(ctx context.Context, p projects.Project, names []string, downloader string, from netip.Addr, byNetwork bool) ([]string, error) {
	var rows []db.ClaimsReleaseRow
	err := db.WithTx(ctx, e.pool, func(q *db.Queries) error {
		if err := q.ProjectStretchesShare(ctx, p.ID); err != nil {
			return err
		}
		var err error
		rows, err = q.ClaimsRelease(ctx, db.ClaimsReleaseParams{ProjectID: p.ID, Names: names, Downloader: downloader,
			IP: addrOrNil(from), ClaimerNetwork: p.Config.ClaimerNetwork, ByNetwork: byNetwork})
		return err
	})
	if err != nil {
		return nil, err
	}
	var released []string
	for _, r := range rows {
		if r.Refused {
			return nil, ErrNotHeld
		}
		released = append(released, r.Name)
	}
	if len(released) > 0 {
		// The items went back behind this process's heads: look from the
		// start again. Other processes find them when a claim of theirs
		// comes back short.
		e.forgetHeads(p.ID)
	}
	return released, nil
}

// noticeRequeued forgets the project's heads when items went back behind
// them since this process last looked: a release or a reclaim in another
// process, or the reclaim job. The project's counters say so, within the
// project cache's lifetime.
func (e *Engine) noticeRequeued(live *projects.Live) {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := live.Summary.Requeued
	last, seen := e.requeued[live.ID]
	switch {
	case !seen:
		e.requeued[live.ID] = n
	case n > last:
		e.forgetHeadsLocked(live.ID)
		e.requeued[live.ID] = n
	}
}

func (e *Engine) forgetHeads(project int32) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.forgetHeadsLocked(project)
}

func (m *memory) forgetHeadsLocked(project int32) {
	for s := range m.heads {
		if s.project == project {
			delete(m.heads, s)
		}
	}
}

func addrOrNil(a netip.Addr) *netip.Addr {
	if !a.IsValid() {
		return nil
	}
	return &a
}

// seconds turns a database's fractional seconds into a duration.
func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
