package items

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"tracker/db"
	"tracker/naming"
	"tracker/projects"
	"tracker/refusal"
)

// ErrUnknownItem means the project never saw the name.
var ErrUnknownItem = errors.New("the project has no such item")

// Item states.
const (
	StatusTodo     = "todo"
	StatusClaimed  = "claimed"
	StatusDone     = "done"
	StatusArchived = "archived"
	// StatusDiscarded is a completion archived in a project's discard mode:
	// only its dedup record is left.
	StatusDiscarded = "discarded"
	// StatusFailed is an item in the error queue: handed out max_claims
	// times, the last claim expired.
	StatusFailed = "failed"
	// StatusScheduled is an item of a recurring project waiting for its
	// next visit; StatusRetired one whose score fell below retire_below.
	StatusScheduled = "scheduled"
	StatusRetired   = "retired"
)

// ExpiredClaim is a claim of an item that ran out.
type ExpiredClaim struct {
	Downloader string    `json:"downloader,omitempty"`
	ClaimedAt  time.Time `json:"claimed_at"`
	ExpiredAt  time.Time `json:"expired_at"`
}

// ItemStatus is where an item stands.
type ItemStatus struct {
	Name       string     `json:"item"`
	Status     string     `json:"status"`
	Queue      string     `json:"queue,omitempty"`
	ClaimCount int32      `json:"claim_count"`
	Downloader string     `json:"downloader,omitempty"`
	ClaimedAt  *time.Time `json:"claimed_at,omitempty"`
	DoneAt     *time.Time `json:"done_at,omitempty"`
	// Archive is the file, under the archive directory, holding an
	// archived item's completion.
	Archive string `json:"archive,omitempty"`
	// Expired are the item's claims that ran out, oldest first (the first
	// 100; those older than a month are forgotten unless the item failed).
	Expired []ExpiredClaim `json:"expired_claims,omitempty"`
	// Params are the item's parameters; Result what its completion
	// reported, with Downloader (the node that ran it), ClaimedAt (start)
	// and DoneAt (end).
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	// Score is the item's score in a recurring project, and DueAt when a
	// scheduled item's next visit is due.
	Score *float64   `json:"score,omitempty"`
	DueAt *time.Time `json:"due_at,omitempty"`

	// The item's id, and its name as queued (its key may differ): what
	// completing it by hand acts on. Empty item once it left the hot tables.
	id   int64
	item string
}

// Public is what anyone may see of the item in a project without
// public_items: where it stands, never who holds or did it (a claim's
// holder is the nick that completes or releases it; the nicks themselves
// are on the pages, so only claimer_network holds off one who guesses),
// nor its parameters or result.
func (st ItemStatus) Public() ItemStatus {
	st.Downloader, st.Params, st.Result = "", nil, nil
	if st.Expired != nil {
		// A copy: the caller's status keeps its nicks.
		expired := make([]ExpiredClaim, len(st.Expired))
		for i, x := range st.Expired {
			expired[i] = ExpiredClaim{ClaimedAt: x.ClaimedAt, ExpiredAt: x.ExpiredAt}
		}
		st.Expired = expired
	}
	return st
}

// Lookup finds an item by its backfeed key in the project's default scope
// or by the name it was queued under (the part before any context separator
// identifies it). It reads every table from one snapshot, so an item moving
// between them meanwhile is seen in one place, never in none.
//
// It looks for a queued item in the queues of live's summary: a queue that
// came to hold items since the project was read is missed (for a second,
// the project cache's life). An action on the item looks it up with
// LookupNow.
func (e *Engine) Lookup(ctx context.Context, live *projects.Live, name string) (ItemStatus, error) {
	return e.LookupInShard(ctx, live, "", name)
}

// LookupNow is Lookup in every queue that holds items now: for an action
// that must not act on a stale answer (an admin's on an item).
func (e *Engine) LookupNow(ctx context.Context, live *projects.Live, name string) (st ItemStatus, err error) {
	err = pgx.BeginTxFunc(ctx, e.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		q := db.Of(tx)
		sum, err := projects.SummaryOf(ctx, q, live.Project)
		if err != nil {
			return err
		}
		now := *live
		now.Summary = sum
		st, err = e.lookup(ctx, q, &now, "", name)
		return err
	})
	return st, err
}

// LookupInShard is Lookup by the key name had in a backfeed shard ("" is the
// default scope), or else by the item's own name.
func (e *Engine) LookupInShard(ctx context.Context, live *projects.Live, shard, name string) (st ItemStatus, err error) {
	if err := ValidShard(shard); err != nil {
		return st, refusal.New(refusal.Invalid, "", err)
	}
	err = pgx.BeginTxFunc(ctx, e.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		st, err = e.lookup(ctx, db.Of(tx), live, shard, name)
		return err
	})
	return st, err
}

func (e *Engine) lookup(ctx context.Context, q *db.Queries, live *projects.Live, shard, name string) (ItemStatus, error) {
	p := live.Project
	key, _, _ := strings.Cut(name, contextSeparator)
	st := ItemStatus{Name: key}
	// The key finds the item's id and its own hash, which its claim and
	// archive are kept under; the id tells this item from a copy of it
	// queued from another shard.
	seen, err := q.SeenFind(ctx, db.SeenFindParams{ProjectID: p.ID, Shard: shard, Name: name})
	if errors.Is(err, pgx.ErrNoRows) {
		return st, ErrUnknownItem
	}
	if err != nil {
		return st, err
	}
	id := seen.ID
	st.id = id
	expired, err := q.ClaimExpiriesOfItem(ctx, db.ClaimExpiriesOfItemParams{ProjectID: p.ID, ID: id})
	if err != nil {
		return st, err
	}
	for _, x := range expired {
		st.Expired = append(st.Expired, ExpiredClaim{Downloader: x.Downloader, ClaimedAt: x.ClaimedAt, ExpiredAt: x.ExpiredAt})
	}
	params, err := q.ItemParamsGet(ctx, db.ItemParamsGetParams{ProjectID: p.ID, ID: id})
	if err != nil {
		return st, err
	}
	if params != "" {
		st.Params = json.RawMessage(params)
	}
	if p.Config.Recurring() {
		score, err := q.ItemScoreGet(ctx, db.ItemScoreGetParams{ProjectID: p.ID, ID: id})
		if err != nil {
			return st, err
		}
		st.Score = &score
	}

	claim, err := q.ClaimOfItem(ctx, db.ClaimOfItemParams{ProjectID: p.ID, Hash: seen.Item, ID: id})
	switch {
	case err == nil:
		st.Name, st.item = claim.Name, claim.Name
		st.Status, st.Queue, st.ClaimCount, st.Downloader = StatusClaimed, claim.Queue, claim.ClaimCount, claim.Downloader
		st.ClaimedAt = &claim.ClaimedAt
		return st, nil
	case !errors.Is(err, pgx.ErrNoRows):
		return st, err
	}

	// Queued before done: a completed item an admin queued again is
	// queued. The standard queues always, and the downloaders' queues that held
	// items when the project was last read.
	todo, err := q.TodoGet(ctx, db.TodoGetParams{ProjectID: p.ID, Queues: naming.QueueNames(live.Summary.Queues), ID: id})
	switch {
	case err == nil:
		st.Name, st.item = todo.Name, todo.Name
		st.Status, st.Queue, st.ClaimCount = StatusTodo, todo.Queue, todo.ClaimCount
		switch todo.Queue {
		case naming.ErrorQueue:
			st.Status = StatusFailed
		case naming.RetiredQueue:
			st.Status = StatusRetired
		}
		return st, nil
	case !errors.Is(err, pgx.ErrNoRows):
		return st, err
	}
	next, err := q.RevisitOfItem(ctx, db.RevisitOfItemParams{ProjectID: p.ID, ID: id})
	switch {
	case err == nil:
		st.Status, st.DueAt = StatusScheduled, &next.DueAt
		// The last visit, as a completed item shows it.
		if done, err := q.DoneGet(ctx, db.DoneGetParams{ProjectID: p.ID, ID: id}); err == nil {
			st.Name, st.item = done.Name, done.Name
			st.ClaimCount, st.Downloader = done.ClaimCount, done.Downloader
			st.ClaimedAt, st.DoneAt = &done.ClaimedAt, &done.DoneAt
			if done.Result != nil {
				st.Result = json.RawMessage(done.Result)
			}
		} else if !errors.Is(err, pgx.ErrNoRows) {
			return st, err
		}
		return st, nil
	case !errors.Is(err, pgx.ErrNoRows):
		return st, err
	}
	done, err := q.DoneGet(ctx, db.DoneGetParams{ProjectID: p.ID, ID: id})
	switch {
	case err == nil:
		st.Name, st.item = done.Name, done.Name
		st.Status, st.ClaimCount, st.Downloader = StatusDone, done.ClaimCount, done.Downloader
		st.ClaimedAt, st.DoneAt = &done.ClaimedAt, &done.DoneAt
		if done.Result != nil {
			st.Result = json.RawMessage(done.Result)
		}
		return st, nil
	case !errors.Is(err, pgx.ErrNoRows):
		return st, err
	}

	// Seen, and in no hot table: its completion was archived.
	arc, err := q.ArchiveForItem(ctx, db.ArchiveForItemParams{ProjectID: p.ID, Hash: seen.Item})
	switch {
	case err == nil:
		st.Status, st.Archive = StatusArchived, arc.Path
		return st, nil
	case !errors.Is(err, pgx.ErrNoRows):
		return st, err
	}
	st.Status = StatusDiscarded
	return st, nil
}
