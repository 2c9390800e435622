package items

import (
	"context"
	"log/slog"
	"net/netip"
	"runtime"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"tracker/db"
	"tracker/projects"
)

// Engine hands out and completes the items of every project.
type Engine struct {
	q      *db.Queries
	log    *slog.Logger
	claims *batcher[claimOp]
	dones  *batcher[doneOp]
	// backfeeds holds a token for each backfeed post being written.
	backfeeds chan struct{}

	// heads remembers, per stretch of a queue, the id of the last item this
	// process claimed there. Claims start after it instead of walking the
	// index entries that earlier claims left dead in front of the first
	// live item (DESIGN.md: this keeps a claim's cost flat).
	mu    sync.Mutex
	heads map[stretch]int64
}

// stretch is one run of a queue's index: a queue and a type ("" for items
// of unlimited types).
type stretch struct {
	project int32
	queue   string
	typ     string
}

// Batching: transactions in flight at once, and operations in one.
const (
	maxBatches  = 4
	maxBatchOps = 256
)

func NewEngine(pool *pgxpool.Pool, log *slog.Logger) *Engine {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	e := &Engine{
		q:         db.New(pool),
		log:       log,
		heads:     make(map[stretch]int64),
		backfeeds: make(chan struct{}, max(2, runtime.GOMAXPROCS(0))),
	}
	e.claims = &batcher[claimOp]{pool: pool, maxBatches: maxBatches, maxOps: maxBatchOps, run: e.runClaims}
	e.dones = &batcher[doneOp]{pool: pool, maxBatches: maxBatches, maxOps: maxBatchOps, run: e.runDones}
	return e
}

// Release gives claimed items back to their queue, in their old place. With
// downloader set, only that downloader's claims are released. It returns the
// names released.
func (e *Engine) Release(ctx context.Context, p projects.Project, names []string, downloader string) ([]string, error) {
	released, err := e.q.ClaimsRelease(ctx, db.ClaimsReleaseParams{
		ProjectID:    p.ID,
		Names:        names,
		Downloader:   downloader,
		LimitedTypes: p.Config.LimitedTypes(),
	})
	if len(released) > 0 {
		// The items went back behind this process's heads: look from the
		// start again. Other processes find them when a claim of theirs
		// comes back short.
		e.forgetHeads(p.ID)
	}
	return released, err
}

func (e *Engine) forgetHeads(project int32) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for s := range e.heads {
		if s.project == project {
			delete(e.heads, s)
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
