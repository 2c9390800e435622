package items

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"tracker/db"
	"tracker/projects"
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
)

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
}

// Lookup finds an item by name (the part before any context separator).
// It reads every table from one snapshot, so an item moving between them
// meanwhile is seen in one place, never in none.
func (e *Engine) Lookup(ctx context.Context, live *projects.Live, name string) (st ItemStatus, err error) {
	err = pgx.BeginTxFunc(ctx, e.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		st, err = e.lookup(ctx, e.q.WithTx(tx), live, name)
		return err
	})
	return st, err
}

func (e *Engine) lookup(ctx context.Context, q *db.Queries, live *projects.Live, name string) (ItemStatus, error) {
	p := live.Project
	name, _, _ = strings.Cut(name, contextSeparator)
	st := ItemStatus{Name: name}
	id, err := q.SeenGet(ctx, db.SeenGetParams{ProjectID: p.ID, Name: name})
	if errors.Is(err, pgx.ErrNoRows) {
		return st, ErrUnknownItem
	}
	if err != nil {
		return st, err
	}

	claim, err := q.ClaimGet(ctx, db.ClaimGetParams{ProjectID: p.ID, Name: name})
	switch {
	case err == nil:
		st.Status, st.Queue, st.ClaimCount, st.Downloader = StatusClaimed, claim.Queue, claim.ClaimCount, claim.Downloader
		st.ClaimedAt = &claim.ClaimedAt
		return st, nil
	case !errors.Is(err, pgx.ErrNoRows):
		return st, err
	}

	// Queued before done: a completed item an admin queued again is
	// queued. The standard queues always, and the downloaders' queues that held
	// items when the project was last read.
	queues := live.Summary.QueueNames()
	todo, err := q.TodoGet(ctx, db.TodoGetParams{
		ProjectID: p.ID,
		Queues:    queues,
		Types:     append(p.Config.LimitedTypes(), ""),
		ID:        id,
	})
	switch {
	case err == nil:
		st.Status, st.Queue, st.ClaimCount = StatusTodo, todo.Queue, todo.ClaimCount
		return st, nil
	case !errors.Is(err, pgx.ErrNoRows):
		return st, err
	}
	done, err := q.DoneGet(ctx, db.DoneGetParams{ProjectID: p.ID, ID: id})
	switch {
	case err == nil:
		st.Status, st.ClaimCount, st.Downloader = StatusDone, done.ClaimCount, done.Downloader
		st.ClaimedAt, st.DoneAt = &done.ClaimedAt, &done.DoneAt
		return st, nil
	case !errors.Is(err, pgx.ErrNoRows):
		return st, err
	}

	// Seen, and in no hot table: its completion was archived.
	arc, err := q.ArchiveForItem(ctx, db.ArchiveForItemParams{ProjectID: p.ID, Name: name})
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
