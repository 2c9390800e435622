package stats

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/sync/singleflight"

	"tracker/db"
	"tracker/loops"
	"tracker/projects"
	"tracker/sites"
)

// Hub keeps each watched project's board fresh, once a second, for every
// viewer this process serves: the database sees one set of queries per
// project per second however many pages are open. A project nobody has
// asked about for idleAfter is dropped until someone asks again.
type Hub struct {
	pool     *pgxpool.Pool
	q        *db.Queries
	projects *projects.Store
	log      *slog.Logger
	// sites keeps the frontier's summary of projects whose items have
	// sites (see sitesOf).
	sites *sites.Store
	every time.Duration
	// now tells the time a viewer last asked for a board and whether a
	// watch has gone idle.
	now func() time.Time

	// loops are the boards' refresh loops, one a watched project.
	loops *loops.Group

	// mu guards watched; a watch's own mu is taken after it, never before.
	mu      sync.Mutex
	watched map[int32]*watch
	// first shares a project's first read among the viewers asking for
	// it at once.
	first singleflight.Group
}

const (
	// idleAfter: a project's board stops refreshing this long after its
	// last viewer.
	idleAfter = 30 * time.Second
	// historyKept bounds the counter samples kept for the moving averages.
	historyKept = time.Hour
)

// watch is one project's live state.
type watch struct {
	project projects.Project

	mu       sync.Mutex
	board    *Board
	json     []byte
	frames   *Frames       // the board's events on the live stream
	changed  chan struct{} // closed and replaced at each new board
	seq      int64
	wanted   time.Time
	history  []sample
	rankings *rankings
	// What StatsJSON made last.
	classicCache
	// charts are the charts BoardChart read last, by span.
	charts map[Span]Chart
}

// sample is a project's counters at one moment.
type sample struct {
	at                                                        time.Time
	done, bytes, requests, served, reclaimServed, roundTripMs int64
}

func NewHub(pool *pgxpool.Pool, store *projects.Store, log *slog.Logger) *Hub {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Hub{pool: pool, q: db.Of(pool), projects: store, sites: sites.NewStore(pool), log: log, every: time.Second, now: time.Now,
		loops: loops.NewGroup(context.Background()), watched: map[int32]*watch{}}
}

// Close stops every refresh loop.
func (h *Hub) Close() { h.loops.Stop() }

// watchOf returns the project's watch, starting its refresh loop if
// needed, and marks it wanted.
func (h *Hub) watchOf(p projects.Project) *watch {
	h.mu.Lock()
	defer h.mu.Unlock()
	w := h.watched[p.ID]
	if w == nil {
		w = &watch{project: p, changed: make(chan struct{})}
		h.watched[p.ID] = w
		h.loops.Go(func(ctx context.Context) { h.loop(ctx, w) })
	}
	w.mu.Lock()
	w.project = p // the latest configuration seen
	w.wanted = h.now()
	w.mu.Unlock()
	return w
}

func (h *Hub) loop(ctx context.Context, w *watch) {
	loops.Every(ctx, h.every, func(ctx context.Context) bool {
		if h.dropIfIdle(w) {
			return false
		}
		if err := h.refresh(ctx, w); err != nil && ctx.Err() == nil {
			h.log.Warn("refreshing a leaderboard", "project", w.project.Slug, "err", err)
		}
		return true
	})
}

// dropIfIdle forgets the watch when nobody has asked for it for idleAfter,
// and reports whether it did. The check and the removal are one step under
// both locks: a viewer either marks the watch wanted before it (and the loop
// goes on) or finds it gone after it (and starts a new one), never gets a
// watch whose loop has ended.
func (h *Hub) dropIfIdle(w *watch) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	w.mu.Lock()
	defer w.mu.Unlock()
	if h.now().Sub(w.wanted) <= idleAfter {
		return false
	}
	if h.watched[w.project.ID] == w {
		delete(h.watched, w.project.ID)
	}
	return true
}

// Board returns the project's latest board, its JSON and a channel closed
// when a newer one is ready.
func (h *Hub) Board(ctx context.Context, p projects.Project) (*Board, []byte, <-chan struct{}, error) {
	w, err := h.ready(ctx, p)
	if err != nil {
		return nil, nil, nil, err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.board, w.json, w.changed, nil
}

// Frames returns the project's latest board as the live stream's events
// and a channel closed when a newer one is ready (see Board).
func (h *Hub) Frames(ctx context.Context, p projects.Project) (*Frames, <-chan struct{}, error) {
	w, err := h.ready(ctx, p)
	if err != nil {
		return nil, nil, err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.frames, w.changed, nil
}

// ready returns the project's watch once it has a board: the first call
// for a project reads the board at once, and the calls that come
// meanwhile wait for that read.
func (h *Hub) ready(ctx context.Context, p projects.Project) (*watch, error) {
	w := h.watchOf(p)
	w.mu.Lock()
	b := w.board
	w.mu.Unlock()
	if b == nil {
		_, err, _ := h.first.Do(strconv.Itoa(int(p.ID)), func() (any, error) {
			w.mu.Lock()
			read := w.board != nil
			w.mu.Unlock()
			if read {
				return nil, nil
			}
			// Shared by every waiting viewer: not ended by the first one's end.
			ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
			defer cancel()
			return nil, h.refresh(ctx, w)
		})
		if err != nil {
			return nil, err
		}
	}
	return w, nil
}

// refresh reads a new board and hands it to the waiting viewers.
func (h *Hub) refresh(ctx context.Context, w *watch) error {
	w.mu.Lock()
	// Clipped: read appends its sample to the history, and two refreshes
	// at once (a first viewer's and the loop's) must not both write into
	// the spare room of the one array.
	p, history := w.project, slices.Clip(w.history)
	w.mu.Unlock()

	r, err := h.rankingsOf(ctx, w)
	if err != nil {
		return err
	}
	b, s, err := h.read(ctx, p, history, r)
	if err != nil {
		return err
	}
	if p.Config.Sited() {
		if b.Sites, err = h.sitesOf(ctx, p); err != nil {
			return err
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.history = append(trimHistory(w.history, s.at), s)
	w.seq++
	b.Seq = w.seq
	js, err := json.Marshal(b)
	if err != nil {
		return err
	}
	frames, err := framesOf(b, js, w.board, w.json)
	if err != nil {
		return err
	}
	w.board, w.json, w.frames = b, js, frames
	close(w.changed)
	w.changed = make(chan struct{})
	return nil
}

func trimHistory(h []sample, now time.Time) []sample {
	i := 0
	for i < len(h) && now.Sub(h[i].at) > historyKept {
		i++
	}
	return h[i:]
}
