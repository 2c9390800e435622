package items

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"tracker/db"
	"tracker/projects"
)

// Engine hands out and completes the items of every project.
type Engine struct {
	pool     *pgxpool.Pool
	q        *db.Queries
	projects *projects.Store
	log      *slog.Logger
	commit   *groupCommit

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

// Group commit: transactions in flight at once, and operations in one.
const (
	maxBatches  = 4
	maxBatchOps = 64
)

func NewEngine(pool *pgxpool.Pool, log *slog.Logger) *Engine {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Engine{
		pool:     pool,
		q:        db.New(pool),
		projects: projects.NewStore(pool),
		log:      log,
		commit:   newGroupCommit(pool, maxBatches, maxBatchOps),
		heads:    make(map[stretch]int64),
	}
}

// ClaimRequest is a warrior asking for work.
type ClaimRequest struct {
	Downloader string
	Version    string
	IP         netip.Addr // the zero Addr when unknown
	Max        int        // items wanted, at least 1
}

// Request hands up to req.Max items to a warrior, or refuses with a
// *Refusal saying why. The order (the project's claims limit aside, which
// leaves only expired claims): the downloader's own queue, todo, backfeed,
// secondary, redo, then expired claims when reclaiming is on. Within a
// queue, items of rate-limited types come first, one per due slot.
func (e *Engine) Request(ctx context.Context, live *projects.Live, req ClaimRequest) ([]string, error) {
	p, cfg := live.Project, live.Project.Config
	if cfg.Paused {
		return nil, &Refusal{Reason: ReasonPaused, Detail: "the project is paused", RetryAfter: 5 * time.Minute}
	}
	if cfg.MinVersion != "" && CompareVersions(req.Version, cfg.MinVersion) < 0 {
		return nil, &Refusal{Reason: ReasonVersion, Detail: fmt.Sprintf("version %q is older than the required %q: update the project", req.Version, cfg.MinVersion)}
	}
	if b, blocked := live.Blocks.Match(req.Downloader, req.IP); blocked {
		return nil, &Refusal{Reason: ReasonBlocked, Detail: strings.TrimSpace(b.Kind + " blocked " + b.Reason)}
	}

	want := max(req.Max, 1)
	onlyReclaims := false
	if cfg.ClaimsLimit > 0 {
		out, err := e.q.CounterGet(ctx, db.CounterGetParams{ProjectID: p.ID, Name: "claims"})
		if err != nil {
			return nil, err
		}
		if out >= cfg.ClaimsLimit {
			onlyReclaims = true
		} else {
			want = int(min(int64(want), cfg.ClaimsLimit-out))
		}
	}
	if cfg.DownloaderClaimsLimit > 0 {
		mine, err := e.q.ClaimsCountByDownloader(ctx, db.ClaimsCountByDownloaderParams{ProjectID: p.ID, Downloader: req.Downloader})
		if err != nil {
			return nil, err
		}
		if mine >= cfg.DownloaderClaimsLimit {
			return nil, &Refusal{Reason: ReasonDownloaderClaimsLimit, RetryAfter: time.Minute,
				Detail: fmt.Sprintf("%s holds %d claims, the most one downloader may", req.Downloader, mine)}
		}
		want = int(min(int64(want), cfg.DownloaderClaimsLimit-mine))
	}
	if cfg.RateLimit > 0 {
		wait, err := e.q.RateTake(ctx, db.RateTakeParams{ProjectID: p.ID, Key: "", PerMinute: cfg.RateLimit})
		if err != nil {
			return nil, err
		}
		if wait > 0 {
			return nil, &Refusal{Reason: ReasonRateLimited, RetryAfter: seconds(wait),
				Detail: fmt.Sprintf("the project hands out %d items a minute", cfg.RateLimit)}
		}
		// One item per due slot: the limit stays smooth however requests bunch.
		want = 1
	}

	// Rate slots are taken before the claim, outside its transaction: they
	// commit without waiting for the disk, which a claim must not.
	typeSlots, typeWait, err := e.takeTypeSlots(ctx, p)
	if err != nil {
		return nil, err
	}
	var c *claimer
	err = e.commit.do(req.Downloader, func(ctx context.Context, q *db.Queries) error {
		c = &claimer{e: e, q: q, p: p, queues: live.Queues, req: req, want: want, typeSlots: typeSlots}
		if !onlyReclaims {
			if err := c.fromQueues(ctx); err != nil {
				return err
			}
		}
		return c.fromExpiredClaims(ctx)
	})
	if err != nil {
		e.refund(p, "", typeSlots)
		return nil, err
	}
	e.refund(p, c.projectSlotUnused(), c.typeSlots)
	if len(c.names) > 0 {
		return c.names, nil
	}
	switch {
	case onlyReclaims:
		return nil, &Refusal{Reason: ReasonClaimsLimit, RetryAfter: time.Minute,
			Detail: fmt.Sprintf("%d items are out, the most the project allows at once", cfg.ClaimsLimit)}
	case len(typeWait) > 0:
		return nil, &Refusal{Reason: ReasonTypeRateLimited, RetryAfter: soonest(typeWait),
			Detail: "the items left are of types handed out at a limited rate"}
	}
	return nil, &Refusal{Reason: ReasonNoItems}
}

// takeTypeSlots takes the due slot of every per-type limit: a request may
// hand out one item of each limited type whose slot it got. It returns the
// types it got a slot for and, for the others, the time until theirs.
func (e *Engine) takeTypeSlots(ctx context.Context, p projects.Project) (map[string]bool, map[string]time.Duration, error) {
	slots, waits := map[string]bool{}, map[string]time.Duration{}
	for _, typ := range p.Config.LimitedTypes() {
		wait, err := e.q.RateTake(ctx, db.RateTakeParams{ProjectID: p.ID, Key: typ, PerMinute: p.Config.TypeLimits[typ]})
		if err != nil {
			e.refund(p, "", slots)
			return nil, nil, err
		}
		if wait > 0 {
			waits[typ] = seconds(wait)
		} else {
			slots[typ] = true
		}
	}
	return slots, waits, nil
}

// refund gives back the rate slots a request took but did not use: the
// project's when project is set, and each type's still in slots.
func (e *Engine) refund(p projects.Project, project string, slots map[string]bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	give := func(key string, perMinute int64) {
		if err := e.q.RateRefund(ctx, db.RateRefundParams{ProjectID: p.ID, Key: key, PerMinute: perMinute}); err != nil {
			e.log.Warn("giving back a rate slot", "project", p.Slug, "limit", key, "err", err)
		}
	}
	if project != "" && p.Config.RateLimit > 0 {
		give("", p.Config.RateLimit)
	}
	for typ, unused := range slots {
		if unused {
			give(typ, p.Config.TypeLimits[typ])
		}
	}
}

func soonest(waits map[string]time.Duration) time.Duration {
	first := time.Duration(math.MaxInt64)
	for _, w := range waits {
		first = min(first, w)
	}
	return first
}

// claimer carries one request through the queues, inside a transaction.
type claimer struct {
	e *Engine
	q *db.Queries
	p projects.Project
	// queues holds the sizes of the project's queues that held items
	// lately; the others are not asked.
	queues map[string]int64
	req    ClaimRequest
	want   int
	names  []string
	// typeSlots holds the limited types the request may hand out one item
	// of; a type's entry turns false once its item is claimed.
	typeSlots map[string]bool
}

// projectSlotUnused names the project's rate slot when the request took one
// and handed out nothing, so it goes back.
func (c *claimer) projectSlotUnused() string {
	if c.p.Config.RateLimit > 0 && len(c.names) == 0 {
		return "project"
	}
	return ""
}

func (c *claimer) left() int { return c.want - len(c.names) }

func (c *claimer) fromQueues(ctx context.Context) error {
	queues := append([]string{DownloaderQueue(c.req.Downloader)}, projects.StandardQueues...)
	types := append(c.p.Config.LimitedTypes(), "")
	for _, queue := range queues {
		if c.queues[queue] <= 0 {
			continue
		}
		for _, typ := range types {
			if c.left() <= 0 {
				return nil
			}
			if err := c.fromStretch(ctx, stretch{project: c.p.ID, queue: queue, typ: typ}); err != nil {
				return err
			}
		}
	}
	return nil
}

// fromStretch claims from one stretch of a queue. A limited type's stretch
// gives the one item the request holds a slot for.
func (c *claimer) fromStretch(ctx context.Context, s stretch) error {
	n := c.left()
	if s.typ != "" {
		if !c.typeSlots[s.typ] {
			return nil
		}
		n = 1
	}
	names, err := c.e.take(ctx, c.q, s, c.req, n)
	c.names = append(c.names, names...)
	if s.typ != "" && len(names) > 0 {
		c.typeSlots[s.typ] = false
	}
	return err
}

// fromExpiredClaims hands out claims that outlived the project's reclaim
// TTL times their claim count. Expired claims of rate-limited types are
// left to the reclaim job, which puts them back in their queue.
func (c *claimer) fromExpiredClaims(ctx context.Context) error {
	ttl := c.p.Config.ReclaimTTL
	if ttl <= 0 || c.left() <= 0 {
		return nil
	}
	rows, err := c.q.ClaimsReclaim(ctx, db.ClaimsReclaimParams{
		ProjectID:    c.p.ID,
		Ttl:          pgtype.Interval{Microseconds: ttl * 1e6, Valid: true},
		RefusedTypes: c.p.Config.LimitedTypes(),
		Max:          int32(c.left()),
		Downloader:   c.req.Downloader,
		IP:           addrOrNil(c.req.IP),
		Version:      c.req.Version,
	})
	for _, r := range rows {
		c.names = append(c.names, r.Name)
	}
	return err
}

// take claims up to n items from the head of a stretch. It starts after the
// remembered head and, when that comes back short, looks once more from the
// start of the stretch: items can land behind the head (a release puts an
// item back in its old place; random order scatters new ones).
func (e *Engine) take(ctx context.Context, q *db.Queries, s stretch, req ClaimRequest, n int) ([]string, error) {
	e.mu.Lock()
	after := e.heads[s]
	e.mu.Unlock()

	params := db.ClaimsTakeParams{
		ProjectID:  s.project,
		Queue:      s.queue,
		ItemType:   s.typ,
		AfterID:    after,
		Max:        int32(n),
		Downloader: req.Downloader,
		IP:         addrOrNil(req.IP),
		Version:    req.Version,
	}
	rows, err := q.ClaimsTake(ctx, params)
	if err != nil {
		return nil, fmt.Errorf("claim from %s: %w", s.queue, err)
	}
	if len(rows) < n && after > 0 {
		params.AfterID, params.Max = 0, int32(n-len(rows))
		more, err := q.ClaimsTake(ctx, params)
		if err != nil {
			return nil, fmt.Errorf("claim from %s: %w", s.queue, err)
		}
		rows = append(rows, more...)
	}
	head := int64(0)
	names := make([]string, len(rows))
	for i, r := range rows {
		names[i] = r.Name
		head = max(head, r.ID)
	}
	e.mu.Lock()
	e.heads[s] = head
	e.mu.Unlock()
	return names, nil
}

// Completion is a warrior reporting items done.
type Completion struct {
	Downloader string
	Version    string
	IP         netip.Addr
	Items      []string
	// Bytes per domain, for the whole batch of items.
	Bytes map[string]int64
	// ClientID is the client's "id" value, raw JSON (nil when absent).
	ClientID json.RawMessage
}

// MaxDomains bounds the entries of a done's bytes object.
const MaxDomains = 100

// Validate says why c cannot be recorded, or returns nil.
func (c *Completion) Validate() error {
	if err := ValidNick(c.Downloader); err != nil {
		return err
	}
	if len(c.Items) == 0 {
		return errors.New("no items")
	}
	for _, name := range c.Items {
		if err := ValidName(name); err != nil {
			return err
		}
	}
	if err := ValidVersion(c.Version); err != nil {
		return err
	}
	if len(c.Bytes) > MaxDomains {
		return fmt.Errorf("bytes names more than %d domains", MaxDomains)
	}
	var total int64
	for domain, n := range c.Bytes {
		if domain == "" || len(domain) > 255 || strings.ContainsRune(domain, 0) {
			return fmt.Errorf("bytes: invalid domain name %q", domain)
		}
		if n < 0 {
			return fmt.Errorf("bytes: negative count for %q", domain)
		}
		if total+n < total {
			return errors.New("bytes: total overflows")
		}
		total += n
	}
	return nil
}

// TotalBytes is the sum over the domains.
func (c *Completion) TotalBytes() int64 {
	var total int64
	for _, n := range c.Bytes {
		total += n
	}
	return total
}

// Complete records the claimed items of c as done and credits the
// downloader, all in one transaction. Items not claimed (a repeated done, or
// one never handed out) are ignored. It returns how many items it recorded.
// When the project lists its domains and the done reports bytes for another,
// the items are done but their bytes stay out of the totals.
func (e *Engine) Complete(ctx context.Context, p projects.Project, c Completion) (int64, error) {
	if err := c.Validate(); err != nil {
		return 0, err
	}
	domains, err := json.Marshal(c.Bytes)
	if err != nil {
		return 0, err
	}
	if c.Bytes == nil {
		domains = []byte("{}")
	}
	credited := c.TotalBytes()
	if !p.Config.AcceptsDomains(c.Bytes) {
		e.log.Warn("done reports bytes for domains the project does not list; its bytes stay out of the stats",
			"project", p.Slug, "downloader", c.Downloader, "ip", c.IP, "bytes", string(domains))
		credited = 0
	}
	var completed int64
	err = e.commit.do(c.Downloader, func(ctx context.Context, q *db.Queries) error {
		var err error
		completed, err = q.DoneRecordClaimed(ctx, db.DoneRecordClaimedParams{
			ProjectID:  p.ID,
			Names:      c.Items,
			Bytes:      credited,
			Downloader: c.Downloader,
			Version:    c.Version,
			Domains:    domains,
			ClientID:   []byte(c.ClientID),
			IP:         addrOrNil(c.IP),
		})
		return err
	})
	return completed, err
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
