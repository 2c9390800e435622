package items

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"net/netip"
	"slices"
	"strings"
	"time"

	"tracker/db"
	"tracker/naming"
	"tracker/projects"
	"tracker/refusal"
)

// ClaimRequest is a warrior asking for work.
type ClaimRequest struct {
	Downloader string
	Version    string
	IP         netip.Addr // the zero Addr when unknown
	Max        int        // items wanted, at least 1
}

// claimOp is one request's share of a batch of claims.
type claimOp struct {
	live         *projects.Live
	req          ClaimRequest
	want         int
	onlyReclaims bool
	// typeSlots are the limited types the request holds a due slot of: it
	// may hand out one item of each.
	typeSlots map[string]bool

	// Results, set by every run.
	names    []string
	params   map[string]json.RawMessage
	usedType map[string]bool
	// reclaimed: some item handed out had been handed out before.
	reclaimed bool
	// carried is the bytes the answer carries, as the claim statements
	// count them (answer_bytes: names and parameters as sent); full, that
	// an item was left queued for want of room under MaxAnswerBytes: the
	// answer is complete.
	carried int64
	full    bool
}

func (o *claimOp) left() int {
	if o.full {
		return 0
	}
	return o.want - len(o.names)
}

// MaxAnswerBytes bounds what one answer carries, as sent: the names of its
// items and their parameters. A claim stops handing a request items once
// the next one would take its answer past it, and leaves that item and the
// ones after it queued. The first item of an answer is always handed out:
// its name and parameters (at most naming.MaxNameBytes and
// MaxDocumentBytes, escaped) are well under the bound.
const MaxAnswerBytes = 4 << 20

// handOut adds an item to the request's answer, with its parameters
// ("" when it has none) and what it takes in the answer as the claim
// counted it.
func (o *claimOp) handOut(name, params string, sent int64) {
	o.names = append(o.names, name)
	o.carried += sent
	if params != "" {
		if o.params == nil {
			o.params = map[string]json.RawMessage{}
		}
		o.params[name] = json.RawMessage(params)
	}
}

// Handout is what a request gets: the names of the items, and the
// parameters of those that have some.
type Handout struct {
	Names  []string
	Params map[string]json.RawMessage
}

// ExpiredClaimsWindow is how far back a project's expired_claims_limit
// counts a downloader's expired claims.
const ExpiredClaimsWindow = time.Hour

// Request hands up to req.Max items to a warrior, with the parameters of
// those that have some, or refuses with a *Refusal saying why. The order
// (the project's claims limit aside, which leaves only expired claims): the
// downloader's own queue, todo, backfeed, secondary, redo, then expired
// claims when reclaiming is on; in a project with sites, items with a site
// come after the items without one, by site (fromSites); in a recurring project the bands of due
// items scored 1 and above come before todo, the lower ones after redo
// (naming.ServedQueues). Within a queue, items of rate-limited types come
// first, one per due slot. Requests arriving together are served by the
// same statements.
func (e *Engine) Request(ctx context.Context, live *projects.Live, req ClaimRequest) (Handout, error) {
	if err := naming.ValidNick(req.Downloader); err != nil {
		return Handout{}, refusal.New(refusal.Invalid, "invalid-downloader", err)
	}
	if err := naming.ValidVersion(req.Version); err != nil {
		return Handout{}, refusal.New(refusal.Invalid, "invalid-version", err)
	}
	p, cfg := live.Project, live.Project.Config
	if cfg.Finished {
		// The warrior's next update (every 10 minutes) drops the project.
		return Handout{}, &Refusal{Reason: ReasonFinished, Detail: "the project is finished", RetryAfter: time.Hour}
	}
	if cfg.Paused {
		return Handout{}, &Refusal{Reason: ReasonPaused, Detail: "the project is paused", RetryAfter: 5 * time.Minute}
	}
	if cfg.MinVersion != "" && naming.CompareVersions(req.Version, cfg.MinVersion) < 0 {
		return Handout{}, &Refusal{Reason: ReasonVersion, Detail: fmt.Sprintf("version %q is older than the required %q: update the project", req.Version, cfg.MinVersion)}
	}
	if b, blocked := live.Blocks.Match(req.Downloader, req.IP); blocked {
		return Handout{}, &Refusal{Reason: ReasonBlocked, Detail: strings.TrimSpace(b.Kind + " blocked " + b.Reason)}
	}

	op := &claimOp{live: live, req: req, want: max(req.Max, 1)}
	if cfg.ClaimsLimit > 0 {
		out, err := e.q.CounterGet(ctx, db.CounterGetParams{ProjectID: p.ID, Name: "claims"})
		if err != nil {
			return Handout{}, err
		}
		if out >= cfg.ClaimsLimit {
			op.onlyReclaims = true
		} else {
			op.want = int(min(int64(op.want), cfg.ClaimsLimit-out))
		}
	}
	if cfg.DownloaderClaimsLimit > 0 {
		mine, err := e.q.ClaimsCountByDownloader(ctx, db.ClaimsCountByDownloaderParams{ProjectID: p.ID, Downloader: req.Downloader})
		if err != nil {
			return Handout{}, err
		}
		if mine >= cfg.DownloaderClaimsLimit {
			return Handout{}, &Refusal{Reason: ReasonDownloaderClaimsLimit, RetryAfter: time.Minute,
				Detail: fmt.Sprintf("%s holds %d claims, the most one downloader may", req.Downloader, mine)}
		}
		op.want = int(min(int64(op.want), cfg.DownloaderClaimsLimit-mine))
	}
	if cfg.ExpiredClaimsLimit > 0 {
		expired, err := e.tooManyExpired(ctx, live, req.Downloader, req.IP)
		if err != nil {
			return Handout{}, err
		}
		if expired > 0 {
			return Handout{}, &Refusal{Reason: ReasonTooManyExpired, RetryAfter: 5 * time.Minute,
				Detail: fmt.Sprintf("%d claims of %s from this address expired in the last hour, the most the project allows: finish the items you take", expired, req.Downloader)}
		}
	}
	// Rate slots are taken before the claim, outside its transaction: they
	// commit without waiting for the disk, which a claim must not.
	if cfg.RateLimit > 0 {
		wait, err := e.q.RateTake(ctx, db.RateTakeParams{ProjectID: p.ID, Key: "", PerMinute: cfg.RateLimit})
		if err != nil {
			return Handout{}, err
		}
		if wait > 0 {
			return Handout{}, &Refusal{Reason: ReasonRateLimited, RetryAfter: seconds(wait),
				Detail: fmt.Sprintf("the project hands out %d items a minute", cfg.RateLimit)}
		}
		// One item per due slot: the limit stays smooth however requests bunch.
		op.want = 1
	}
	typeSlots, typeWait, err := e.takeTypeSlots(ctx, p)
	if err != nil {
		e.refund(p, cfg.RateLimit > 0, nil)
		return Handout{}, err
	}
	op.typeSlots = typeSlots

	err = e.claims.do(ctx, op)
	unused := map[string]bool{}
	for typ := range typeSlots {
		unused[typ] = err != nil || !op.usedType[typ]
	}
	e.refund(p, cfg.RateLimit > 0 && (err != nil || len(op.names) == 0), unused)
	if err != nil {
		return Handout{}, err
	}
	if len(op.names) > 0 {
		return Handout{Names: op.names, Params: op.params}, nil
	}
	switch {
	case op.onlyReclaims:
		return Handout{}, &Refusal{Reason: ReasonClaimsLimit, RetryAfter: time.Minute,
			Detail: fmt.Sprintf("%d items are out, the most the project allows at once", cfg.ClaimsLimit)}
	case len(typeWait) > 0:
		return Handout{}, &Refusal{Reason: ReasonTypeRateLimited, RetryAfter: soonest(typeWait),
			Detail: "the items left are of types handed out at a limited rate"}
	}
	if r, err := e.sitesWaiting(ctx, live); r != nil || err != nil {
		return Handout{}, cmp.Or(err, error(r))
	}
	return Handout{}, &Refusal{Reason: ReasonNoItems}
}

// runClaims serves a batch of requests, project by project.
func (e *Engine) runClaims(ctx context.Context, q *db.Queries, ops []*claimOp) error {
	for _, o := range ops {
		o.names, o.params, o.usedType, o.reclaimed = nil, nil, map[string]bool{}, false
		o.carried, o.full = 0, false
	}
	byProject := map[int32][]*claimOp{}
	var order []int32
	for _, o := range ops {
		id := o.live.ID
		if _, ok := byProject[id]; !ok {
			order = append(order, id)
		}
		byProject[id] = append(byProject[id], o)
	}
	for _, id := range order {
		if err := e.claimFor(ctx, q, byProject[id]); err != nil {
			return err
		}
	}
	return e.countRequests(ctx, q, ops)
}

// claimFor serves the requests of one project: one statement per stretch
// of a queue for all of them, in the order they came.
func (e *Engine) claimFor(ctx context.Context, q *db.Queries, ops []*claimOp) error {
	live := ops[0].live
	e.noticeRequeued(live)
	types := append(live.Config.LimitedTypes(), "")
	queueing := func(o *claimOp) bool { return !o.onlyReclaims && o.left() > 0 }

	// Each request's own downloader queue first, where there is one.
	for _, o := range ops {
		own := naming.DownloaderQueue(o.req.Downloader)
		if live.Queues[own] <= 0 {
			continue
		}
		for _, typ := range types {
			if err := e.fromStretch(ctx, q, live, own, typ, []*claimOp{o}, queueing); err != nil {
				return err
			}
		}
	}
	// The queue walks read only items without a site.
	for _, queue := range naming.ServedQueues(live.Queues) {
		if live.Queues[queue] <= 0 {
			continue
		}
		for _, typ := range types {
			if err := e.fromStretch(ctx, q, live, queue, typ, ops, queueing); err != nil {
				return err
			}
		}
	}
	// Then the items with a site, by site: last of the batch's statements
	// but the reclaims, since the sites it takes stay locked until the
	// batch commits, and completions of their items wait for that.
	if live.Config.Sited() {
		if err := e.fromSites(ctx, q, live, ops, queueing); err != nil {
			return err
		}
	}
	return e.fromExpiredClaims(ctx, q, live, ops)
}

// fromStretch hands out items of one stretch of a queue to the requests
// still wanting some: as many as each wants, or in a limited type's
// stretch one each to the requests holding a slot of that type.
func (e *Engine) fromStretch(ctx context.Context, q *db.Queries, live *projects.Live, queue, typ string, ops []*claimOp, wanting func(*claimOp) bool) error {
	var owners []*claimOp
	for _, o := range ops {
		if !wanting(o) {
			continue
		}
		n := o.left()
		if typ != "" {
			if !o.typeSlots[typ] || o.usedType[typ] {
				continue
			}
			n = 1
		}
		for range n {
			owners = append(owners, o)
		}
	}
	if len(owners) == 0 {
		return nil
	}
	s := stretch{project: live.ID, queue: queue, typ: typ}
	rows, err := e.take(ctx, q, s, owners)
	if err != nil {
		return fmt.Errorf("claim from %s: %w", queue, err)
	}
	for _, r := range rows {
		o := owners[r.Slot-1]
		o.handOut(r.Name, r.Params, r.Sent)
		o.reclaimed = o.reclaimed || r.ClaimCount > 0
		if typ != "" {
			o.usedType[typ] = true
		}
	}
	return nil
}

// take claims one item per slot (owners[i] owns slot i+1, the slots of an
// owner one after another) from the head of a stretch. It starts after the
// remembered head and, when that comes back short, looks once more from
// the start of the stretch for the slots left: items can land behind the
// head (a release puts an item back in its old place; random order
// scatters new ones). An owner an item was left queued for (see
// MaxAnswerBytes) is marked full.
func (e *Engine) take(ctx context.Context, q *db.Queries, s stretch, owners []*claimOp) ([]db.ClaimsTakeSlotsRow, error) {
	e.mu.Lock()
	after := e.heads[s]
	e.mu.Unlock()

	// extra holds the bytes the rows claimed by the first look carry to
	// each owner, not handed out yet. cut is the first item left queued
	// (0: none).
	cut := int64(0)
	claim := func(after int64, owners []*claimOp, extra map[*claimOp]int64) ([]db.ClaimsTakeSlotsRow, error) {
		p := db.ClaimsTakeSlotsParams{
			ProjectID: s.project, Queue: s.queue, ItemType: s.typ, AfterID: after, Max: int32(len(owners)),
			Nicks: make([]string, len(owners)), Versions: make([]string, len(owners)), Ips: make([]string, len(owners)),
			Requests: make([]int32, len(owners)), Carried: make([]int64, len(owners)), Budget: MaxAnswerBytes,
		}
		for i, o := range owners {
			p.Nicks[i], p.Versions[i] = o.req.Downloader, o.req.Version
			if o.req.IP.IsValid() {
				p.Ips[i] = o.req.IP.String()
			}
			if i > 0 {
				p.Requests[i] = p.Requests[i-1]
				if o != owners[i-1] {
					p.Requests[i]++
				}
			}
			p.Carried[i] = o.carried + extra[o]
		}
		d, err := e.driver(ctx)
		if err != nil {
			return nil, err
		}
		rows, err := d.ClaimsTakeSlots(ctx, q, p)
		if err != nil {
			return nil, err
		}
		claimed := rows[:0]
		for _, r := range rows {
			if r.Cut {
				owners[r.Slot-1].full = true
				if cut == 0 || r.ID < cut {
					cut = r.ID
				}
				continue
			}
			claimed = append(claimed, r)
		}
		return claimed, nil
	}
	rows, err := claim(after, owners, nil)
	if err != nil {
		return nil, err
	}
	if len(rows) < len(owners) && after > 0 {
		// The slots left are not always the last ones: an item whose name
		// is out already under another copy leaves its slot empty.
		served := make([]bool, len(owners))
		extra := map[*claimOp]int64{}
		for _, r := range rows {
			served[r.Slot-1] = true
			extra[owners[r.Slot-1]] += r.Sent
		}
		var left []*claimOp
		var slotOf []int32
		for i, o := range owners {
			if !served[i] && !o.full {
				left = append(left, o)
				slotOf = append(slotOf, int32(i+1))
			}
		}
		if len(left) > 0 {
			more, err := claim(0, left, extra)
			if err != nil {
				return nil, err
			}
			for _, r := range more {
				r.Slot = slotOf[r.Slot-1]
				rows = append(rows, r)
			}
		}
	}
	head := int64(0)
	for _, r := range rows {
		head = max(head, r.ID)
	}
	if cut > 0 {
		// The next claim starts at the items left queued.
		head = min(head, cut-1)
	}
	e.mu.Lock()
	e.heads[s] = head
	e.mu.Unlock()
	return rows, nil
}

// fromExpiredClaims hands out claims that outlived the project's reclaim
// TTL times their claim count, to the requests still wanting items. Expired
// claims of rate-limited types are left to the reclaim job, which puts them
// back in their queue.
func (e *Engine) fromExpiredClaims(ctx context.Context, q *db.Queries, live *projects.Live, ops []*claimOp) error {
	ttl := live.Config.ReclaimTTL
	if ttl <= 0 {
		return nil
	}
	for _, o := range ops {
		if o.left() <= 0 {
			continue
		}
		rows, err := q.ClaimsReclaim(ctx, db.ClaimsReclaimParams{
			ProjectID:    live.ID,
			Ttl:          projects.Duration(ttl),
			RefusedTypes: live.Config.LimitedTypes(),
			Max:          int32(o.left()),
			Downloader:   o.req.Downloader,
			IP:           addrOrNil(o.req.IP),
			Version:      o.req.Version,
			MaxClaims:    live.Config.MaxClaims,
			Budget:       MaxAnswerBytes,
			Carried:      o.carried,
		})
		if err != nil {
			return err
		}
		if len(rows) == 0 {
			return nil // none left for the requests after this one either
		}
		for _, r := range rows {
			if r.Cut {
				o.full = true
				continue
			}
			o.handOut(r.Name, r.Params, r.Sent)
			o.reclaimed = true
		}
	}
	return nil
}

// takeTypeSlots takes the due slot of every per-type limit: a request may
// hand out one item of each limited type whose slot it got. It returns the
// types it got a slot for and, for the others, the time until theirs.
func (e *Engine) takeTypeSlots(ctx context.Context, p projects.Project) (map[string]bool, map[string]time.Duration, error) {
	slots, waits := map[string]bool{}, map[string]time.Duration{}
	for _, typ := range p.Config.LimitedTypes() {
		wait, err := e.q.RateTake(ctx, db.RateTakeParams{ProjectID: p.ID, Key: typ, PerMinute: p.Config.TypeLimits[typ]})
		if err != nil {
			e.refund(p, false, slots)
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
// project's when project is true, and each type's marked true in types.
func (e *Engine) refund(p projects.Project, project bool, types map[string]bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	give := func(key string, perMinute int64) {
		if err := e.q.RateRefund(ctx, db.RateRefundParams{ProjectID: p.ID, Key: key, PerMinute: perMinute}); err != nil {
			e.log.Warn("giving back a rate slot", "project", p.Slug, "limit", key, "err", err)
		}
	}
	if project {
		give("", p.Config.RateLimit)
	}
	for _, typ := range slices.Sorted(maps.Keys(types)) {
		if types[typ] {
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
