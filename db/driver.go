package db

import "context"

// A Driver runs the operations a kind of database runs its own way, and
// says how its data lies where that changes what the domain does. The
// domain calls its driver for these, and never asks which database it is
// on (package db/drivers picks the driver).
//
// Postgres is PostgreSQL's: the statements of db/queries as sqlc made
// them. Citus's (package db/citus) runs the statements written for it,
// the "if citus" parts of db/queries and db/fragments, generated from the
// same sources; where PostgreSQL runs one statement it may run several,
// one after the other in the caller's transaction. The conformance suite
// (db/drivers) holds both to the same answers.
type Driver interface {
	// Name names the kind of database, for logs and tests.
	Name() string
	// GenericPlans reports whether a statement's generic plan serves
	// each of its executions: the hot statements then run on theirs
	// rather than being planned anew each time (see items' batches).
	GenericPlans() bool
	// DoneByDay reports that done's partitions are days every project
	// shares, rather than each project's own: a project's completions
	// are deleted row by row, and archived from the days.
	DoneByDay() bool
	// ProjectsApart reports that each project's rows lie apart from the
	// others' (on a node of their own): a statement writes one project's
	// rows, so work over several projects goes project by project.
	ProjectsApart() bool

	TodoAddUnseen(ctx context.Context, q *Queries, arg TodoAddUnseenParams) (TodoAddUnseenRow, error)
	DoneRecordBatch(ctx context.Context, q *Queries, arg DoneRecordBatchParams) ([]DoneRecordBatchRow, error)
	SeenIDsOfNames(ctx context.Context, q *Queries, arg SeenIDsOfNamesParams) ([]int64, error)
	TodoMove(ctx context.Context, q *Queries, arg TodoMoveParams) (int64, error)
	TodoMoveItems(ctx context.Context, q *Queries, arg TodoMoveItemsParams) (int64, error)
	ClaimsTakeSlots(ctx context.Context, q *Queries, arg ClaimsTakeSlotsParams) ([]ClaimsTakeSlotsRow, error)
	SitesTake(ctx context.Context, q *Queries, arg SitesTakeParams) ([]SitesTakeRow, error)
	// DoneTalliesFold folds a batch of tallies: of any project here, of
	// arg's project only where ProjectsApart (arg.NextSeq unread).
	DoneTalliesFold(ctx context.Context, q *Queries, arg DoneTalliesFoldParams) (int64, error)
	FeedPrune(ctx context.Context, q *Queries, feedKept int32) (int64, error)
	ClaimExpiriesPrune(ctx context.Context, q *Queries, arg ClaimExpiriesPruneParams) (int64, error)
	BooksOrphans(ctx context.Context, q *Queries) ([]BooksOrphansRow, error)
	BooksSeenElsewhereCount(ctx context.Context, q *Queries, projectID int32) (int64, error)
}

// DB is what q's statements run on (a pool, a connection or a
// transaction, as q was made with): a driver runs its own statements there.
func (q *Queries) DB() DBTX { return q.db }

// Postgres is PostgreSQL's driver.
var Postgres Driver = postgres{}

type postgres struct{}

func (postgres) Name() string        { return "postgres" }
func (postgres) GenericPlans() bool  { return true }
func (postgres) DoneByDay() bool     { return false }
func (postgres) ProjectsApart() bool { return false }

func (postgres) TodoAddUnseen(ctx context.Context, q *Queries, arg TodoAddUnseenParams) (TodoAddUnseenRow, error) {
	return q.TodoAddUnseen(ctx, arg)
}

func (postgres) DoneRecordBatch(ctx context.Context, q *Queries, arg DoneRecordBatchParams) ([]DoneRecordBatchRow, error) {
	return q.DoneRecordBatch(ctx, arg)
}

func (postgres) SeenIDsOfNames(ctx context.Context, q *Queries, arg SeenIDsOfNamesParams) ([]int64, error) {
	return q.SeenIDsOfNames(ctx, arg)
}

func (postgres) TodoMove(ctx context.Context, q *Queries, arg TodoMoveParams) (int64, error) {
	return q.TodoMove(ctx, arg)
}

func (postgres) TodoMoveItems(ctx context.Context, q *Queries, arg TodoMoveItemsParams) (int64, error) {
	return q.TodoMoveItems(ctx, arg)
}

func (postgres) ClaimsTakeSlots(ctx context.Context, q *Queries, arg ClaimsTakeSlotsParams) ([]ClaimsTakeSlotsRow, error) {
	return q.ClaimsTakeSlots(ctx, arg)
}

func (postgres) SitesTake(ctx context.Context, q *Queries, arg SitesTakeParams) ([]SitesTakeRow, error) {
	return q.SitesTake(ctx, arg)
}

func (postgres) DoneTalliesFold(ctx context.Context, q *Queries, arg DoneTalliesFoldParams) (int64, error) {
	return q.DoneTalliesFold(ctx, arg)
}

func (postgres) FeedPrune(ctx context.Context, q *Queries, feedKept int32) (int64, error) {
	return q.FeedPrune(ctx, feedKept)
}

func (postgres) ClaimExpiriesPrune(ctx context.Context, q *Queries, arg ClaimExpiriesPruneParams) (int64, error) {
	return q.ClaimExpiriesPrune(ctx, arg)
}

func (postgres) BooksOrphans(ctx context.Context, q *Queries) ([]BooksOrphansRow, error) {
	return q.BooksOrphans(ctx)
}

func (postgres) BooksSeenElsewhereCount(ctx context.Context, q *Queries, projectID int32) (int64, error) {
	return q.BooksSeenElsewhereCount(ctx, projectID)
}
