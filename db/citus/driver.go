package citus

import (
	"context"

	"tracker/db"
)

// Driver is Citus's (see db.Driver). There the tables keyed by project
// are spread over the workers by project, each project's rows on one
// worker, and seen by the name's hash over all of them (db.CitusLayout): a
// statement joining seen with a project's tables would be split by Citus
// into a dozen statements each sent on its own, so seen's part of such a
// statement runs alone (on every worker, in the same transaction) and the
// rest, on the project's worker, takes what it found as parameters. The
// statements are this package's, made by sqlc from the "if citus" parts
// of db/queries and db/fragments (their text is in db/expanded/citus).
var Driver db.Driver = driver{}

type driver struct{}

func (driver) Name() string { return "citus" }

// GenericPlans: a statement's plan is the worker's, made from the text
// the coordinator sends it, and the coordinator routes a statement to its
// worker by the values of its parameters: it makes no generic plan of a
// statement of many CTEs, so the choice is left to it.
func (driver) GenericPlans() bool { return false }

// DoneByDay: done has one level of partitions there, days every project
// shares (see done_partitions_ensure).
func (driver) DoneByDay() bool { return true }

// ProjectsApart: each project's rows are on its worker.
func (driver) ProjectsApart() bool { return true }

// TodoAddUnseen runs in three statements of q's transaction: the keys
// seen before (only when the project recrawls or the post skips the seen
// check) and the keys added to seen, over every worker; then the items
// queued on the project's worker.
func (driver) TodoAddUnseen(ctx context.Context, q *db.Queries, arg db.TodoAddUnseenParams) (db.TodoAddUnseenRow, error) {
	c := New(q.DB())
	// The batch as both seen statements read it (todo_add_batch).
	batch := SeenAddBatchParams{ProjectID: arg.ProjectID, Shard: arg.Shard, Shuffle: arg.Shuffle,
		IDBlock: arg.IDBlock, Names: arg.Names, Keys: arg.Keys, Params: arg.Params, Sites: arg.Sites, Tags: arg.Tags}
	var seenHashes [][]byte
	var seenIDs []int64
	if arg.RecrawlAfter > 0 || arg.SkipSeen {
		rows, err := c.SeenOfBatch(ctx, SeenOfBatchParams(batch))
		if err != nil {
			return db.TodoAddUnseenRow{}, err
		}
		for _, r := range rows {
			seenHashes, seenIDs = append(seenHashes, r.Hash), append(seenIDs, r.ID)
		}
	}
	fresh, err := c.SeenAddBatch(ctx, batch)
	if err != nil {
		return db.TodoAddUnseenRow{}, err
	}
	row, err := c.TodoAddUnseen(ctx, TodoAddUnseenParams{Shard: arg.Shard, Shuffle: arg.Shuffle, FreshIDs: fresh,
		IDBlock: arg.IDBlock, Names: arg.Names, Keys: arg.Keys, Params: arg.Params, Sites: arg.Sites, Tags: arg.Tags,
		SeenHashes: seenHashes, SeenIDs: seenIDs, RecrawlAfter: arg.RecrawlAfter, ProjectID: arg.ProjectID,
		SkipSeen: arg.SkipSeen, Queues: arg.Queues, Queue: arg.Queue, Source: arg.Source})
	return db.TodoAddUnseenRow(row), err
}

// DoneRecordBatch looks up the ids of the names nobody holds (usually
// none) first, from seen on every worker, and gives them to the
// statement, which runs on the project's worker.
func (driver) DoneRecordBatch(ctx context.Context, q *db.Queries, arg db.DoneRecordBatchParams) ([]db.DoneRecordBatchRow, error) {
	var names []string
	for _, r := range arg.Requests {
		names = append(names, r.Names...)
	}
	held, err := q.ClaimsNamesHeld(ctx, db.ClaimsNamesHeldParams{ProjectID: arg.ProjectID, Names: names})
	if err != nil {
		return nil, err
	}
	listed := make(map[string]bool, len(names))
	for _, name := range held {
		listed[name] = true
	}
	var unheld []string
	for _, name := range names {
		if !listed[name] {
			listed[name] = true
			unheld = append(unheld, name)
		}
	}
	c := New(q.DB())
	unclaimed := []int64{}
	if len(unheld) > 0 {
		if unclaimed, err = c.SeenIDsOfNames(ctx, SeenIDsOfNamesParams{ProjectID: arg.ProjectID, Names: unheld}); err != nil {
			return nil, err
		}
	}
	rows, err := c.DoneRecordBatch(ctx, DoneRecordBatchParams{Requests: arg.Requests, ProjectID: arg.ProjectID,
		ClaimerNetwork: arg.ClaimerNetwork, UnclaimedIDs: unclaimed, Recurring: arg.Recurring, Queues: arg.Queues,
		Types: arg.Types, RevisitAfter: arg.RevisitAfter, RetireBelow: arg.RetireBelow, LogNames: arg.LogNames})
	return convert(rows, func(r DoneRecordBatchRow) db.DoneRecordBatchRow { return db.DoneRecordBatchRow(r) }), err
}

func (driver) SeenIDsOfNames(ctx context.Context, q *db.Queries, arg db.SeenIDsOfNamesParams) ([]int64, error) {
	return New(q.DB()).SeenIDsOfNames(ctx, SeenIDsOfNamesParams(arg))
}

func (driver) TodoMove(ctx context.Context, q *db.Queries, arg db.TodoMoveParams) (int64, error) {
	return New(q.DB()).TodoMove(ctx, TodoMoveParams(arg))
}

func (driver) TodoMoveItems(ctx context.Context, q *db.Queries, arg db.TodoMoveItemsParams) (int64, error) {
	return New(q.DB()).TodoMoveItems(ctx, TodoMoveItemsParams{ProjectID: arg.ProjectID, FromQueue: arg.FromQueue,
		IDs: arg.IDs, Names: arg.Names, ToQueue: arg.ToQueue, Queues: arg.Queues, Types: arg.Types})
}

func (driver) ClaimsTakeSlots(ctx context.Context, q *db.Queries, arg db.ClaimsTakeSlotsParams) ([]db.ClaimsTakeSlotsRow, error) {
	rows, err := New(q.DB()).ClaimsTakeSlots(ctx, ClaimsTakeSlotsParams(arg))
	return convert(rows, func(r ClaimsTakeSlotsRow) db.ClaimsTakeSlotsRow { return db.ClaimsTakeSlotsRow(r) }), err
}

func (driver) SitesTake(ctx context.Context, q *db.Queries, arg db.SitesTakeParams) ([]db.SitesTakeRow, error) {
	rows, err := New(q.DB()).SitesTake(ctx, SitesTakeParams(arg))
	return convert(rows, func(r SitesTakeRow) db.SitesTakeRow { return db.SitesTakeRow(r) }), err
}

// DoneTalliesFold folds arg's project only (the fold goes project by
// project there, each on its worker), and leaves the watermark alone.
func (driver) DoneTalliesFold(ctx context.Context, q *db.Queries, arg db.DoneTalliesFoldParams) (int64, error) {
	return New(q.DB()).DoneTalliesFold(ctx, DoneTalliesFoldParams{ProjectID: arg.ProjectID, Max: arg.Max,
		DomainsKept: arg.DomainsKept, FeedKept: arg.FeedKept})
}

func (driver) FeedPrune(ctx context.Context, q *db.Queries, feedKept int32) (int64, error) {
	return New(q.DB()).FeedPrune(ctx, feedKept)
}

func (driver) ClaimExpiriesPrune(ctx context.Context, q *db.Queries, arg db.ClaimExpiriesPruneParams) (int64, error) {
	return New(q.DB()).ClaimExpiriesPrune(ctx, ClaimExpiriesPruneParams(arg))
}

func (driver) BooksOrphans(ctx context.Context, q *db.Queries) ([]db.BooksOrphansRow, error) {
	rows, err := New(q.DB()).BooksOrphans(ctx)
	return convert(rows, func(r BooksOrphansRow) db.BooksOrphansRow { return db.BooksOrphansRow(r) }), err
}

func (driver) BooksSeenElsewhereCount(ctx context.Context, q *db.Queries, projectID int32) (int64, error) {
	return New(q.DB()).BooksSeenElsewhereCount(ctx, projectID)
}

// convert gives the rows of this package's statement as db's type of
// them: the same fields, generated twice.
func convert[From, To any](rows []From, to func(From) To) []To {
	if rows == nil {
		return nil
	}
	out := make([]To, len(rows))
	for i, r := range rows {
		out[i] = to(r)
	}
	return out
}
