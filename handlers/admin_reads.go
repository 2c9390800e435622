package handlers

import (
	"net/http"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"tracker/audit"
	"tracker/items"
	"tracker/projects"
	"tracker/sites"
	"tracker/users"
)

// The admin panel's reads (its pages, the queue browser's searches, the
// item finder and an item's page, the counts a bulk change asks the admin
// to confirm) have a side of the database of their own, as the public
// read routes have (readers.go): a pool of a few connections whose
// statements PostgreSQL stops after a few seconds, entered by the panel's
// pages through as many slots. However many admins search at once, and
// however much their searches read, they hold those connections and never
// one of the warriors': before, 30 searches of the queue browser took all
// of the web pool's and the warriors were turned away. A page that finds
// no slot in time is answered 503 admin-busy; a search or a count the
// statement timeout stops, 400 search-too-costly (items.CheckPattern
// refuses the costliest regular expressions before they run).
//
// The changes an admin makes stay on the web pool: they write the rows
// the warriors' claims and completions write, under the same locks, and a
// batch of 5,000 items may rightly take longer than a read may. The bulk
// ones (moving, draining, queueing again or releasing what a selection
// picks, an import, a project's deletion), which may each run for
// minutes, take turns in Bulk slots of their own: however many admins
// start them, they hold at most Bulk of the warriors' connections.

// AdminLimits bound the admin panel's share of the database.
type AdminLimits struct {
	// Conns is the admin reads' pool's size, and how many of the panel's
	// pages read at once.
	Conns int
	// Bulk is how many bulk changes run at once.
	Bulk int
	// Rate is how many pages start a second at most: as a public read
	// does (ReaderLimits.Rate), a page keeps its slot for at least
	// Conns/Rate, and for readerRest times as long as it took, so a
	// search that read for a second rests its slot for seven more and
	// admins searching on and on take a bounded share of the processor
	// from the warriors. 0: no bound but Conns.
	Rate int
	// Waiting is how many more may wait for a turn of each kind; past it
	// one is refused at once.
	Waiting int
	// Wait is how long one waits for a turn before it is refused.
	Wait time.Duration
}

// DefaultAdminLimits: two pages and two bulk changes at a time, and a
// short queue admins wait in for 5 seconds at most.
var DefaultAdminLimits = AdminLimits{Conns: 2, Bulk: 2, Rate: 100, Waiting: 100, Wait: 5 * time.Second}

// errAdminBusy refuses a page or a bulk change that found no turn.
var errAdminBusy = &Error{Status: http.StatusServiceUnavailable, Reason: "admin-busy",
	Msg: "the admin panel is busy with other admins' searches and changes; try again in a moment", RetryAfter: 5}

// adminSide is what the admin panel reads through.
type adminSide struct {
	// gate is the pages' slots, bulk the bulk changes'.
	gate, bulk *readGate
	pool       *pgxpool.Pool
	projects   *projects.Store
	live       *projects.Cache
	items      *items.Engine
	audit      *audit.Log
	users      *users.Store
	sites      *sites.Store
}

// newAdminSide is the admin panel's side on pool, engine (the process's
// one) running its statements there.
func newAdminSide(pool *pgxpool.Pool, engine *items.Engine, ttl time.Duration, l AdminLimits) adminSide {
	store := projects.NewStore(pool)
	return adminSide{
		gate: newGate(ReaderLimits{Slots: l.Conns, Rate: l.Rate, Waiting: l.Waiting, Wait: l.Wait}, errAdminBusy),
		// A change's turn ends with it, not by a rate.
		bulk:     newGate(ReaderLimits{Slots: l.Bulk, Waiting: l.Waiting, Wait: l.Wait}, errAdminBusy),
		pool:     pool,
		projects: store,
		live:     projects.NewCache(store, ttl),
		items:    engine.On(pool),
		audit:    audit.New(pool),
		users:    users.NewStore(pool),
		sites:    sites.NewStore(pool),
	}
}

// adminTurn runs a page of the panel (a GET) in one of the admin reads'
// slots, given back as soon as its answer starts going out, or refuses it
// when none comes free in time. Other requests pass: a change's reads
// (showing a refused form again) are a row or two, and the bulk changes
// take turns of their own (bulk).
func (h *Handler) adminTurn(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			next.ServeHTTP(w, r)
			return
		}
		leave, err := h.adm.gate.enter(r.Context())
		if err != nil {
			h.serveError(w, r, err, true)
			return
		}
		rw := &slotWriter{ResponseWriter: w, leave: leave, gate: h.adm.gate}
		defer rw.free()
		next.ServeHTTP(rw, r)
	})
}

// bulk adapts an admin's bulk change: it runs in one of the bulk slots,
// counts and all, or is refused (admin-busy) when none comes free in time.
func (h *Handler) bulk(fn func(http.ResponseWriter, *http.Request) error) func(http.ResponseWriter, *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		leave, err := h.adm.bulk.enter(r.Context())
		if err != nil {
			return err
		}
		rw := &slotWriter{ResponseWriter: w, leave: leave, gate: h.adm.bulk}
		defer rw.free()
		return fn(rw, r)
	}
}
