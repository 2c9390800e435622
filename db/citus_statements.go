package db

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// The statements that read or write seen, as a Citus database runs them.
// There seen is spread over the workers by the name's hash (see
// CitusLayout), and every other table of a project lives on the project's
// one worker: a statement joining seen with them would be split by Citus
// into a dozen statements each sent on its own. So the seen half of such a
// statement runs alone (over every worker, in the same transaction), and
// the rest, on the project's worker, takes what it found as parameters.
//
// Each variant is made from the statement sqlc generated, by replacing
// the parts that read or write seen: a change to the statement carries
// over, and one that moves a replaced part fails every test at start
// (mustReplace).

// mustReplace replaces the one occurrence of old in statement s.
func mustReplace(name, s, old, new string) string {
	if n := strings.Count(s, old); n != 1 {
		panic(fmt.Sprintf("db: the Citus variant of %s: %d occurrences of %q, want 1", name, n, old))
	}
	return strings.Replace(s, old, new, 1)
}

// between returns the text of s from the end of start to the beginning of
// end, which must each occur once.
func between(name, s, start, end string) string {
	if strings.Count(s, start) != 1 || strings.Count(s, end) != 1 {
		panic(fmt.Sprintf("db: the Citus variant of %s: %q or %q not found once", name, start, end))
	}
	_, after, _ := strings.Cut(s, start)
	part, _, _ := strings.Cut(after, end)
	return part
}

// nextParam is the number of the first parameter after statement s's.
func nextParam(s string) int {
	n := 0
	for _, m := range paramRE.FindAllStringSubmatch(s, -1) {
		i, _ := strconv.Atoi(m[1])
		n = max(n, i)
	}
	return n + 1
}

var paramRE = regexp.MustCompile(`\$(\d+)`)

// TodoAddUnseen's parts. Its parameters: $1 shard, $2 shuffle, $3 id
// block, $4 names, $5 keys, $6 params, $7 sites, $8 tags, $9 project, and
// more (the queues, ...); the variants add theirs after them.
var (
	todoAddUnseenBatch = between("TodoAddUnseen", todoAddUnseen, "WITH batch AS MATERIALIZED (", "), fresh AS (")
	todoAddUnseenFresh = between("TodoAddUnseen", todoAddUnseen, "), fresh AS (", "), again AS (")

	// seenAddBatch records a batch's keys in seen, on every worker, and
	// returns the ids of the names the project had not seen.
	seenAddBatch = "-- name: SeenAddBatch (Citus)\nWITH batch AS MATERIALIZED (" + todoAddUnseenBatch + ")" + todoAddUnseenFresh

	// seenOfBatch finds the ids the batch's keys had in seen before.
	seenOfBatch = "-- name: SeenOfBatch (Citus)\nWITH batch AS MATERIALIZED (" + todoAddUnseenBatch + `)
SELECT seen.hash, seen.id FROM batch JOIN seen ON seen.project_id = $9 AND seen.hash = batch.hash`

	// todoAddSeen is TodoAddUnseen with seen's part done. Its three more
	// parameters: the ids seen took (their low 20 bits are their place in
	// the batch, shuffled or not), the keys seen before and their ids.
	todoAddSeen = func() string {
		n := nextParam(todoAddUnseen)
		fresh, hashes, ids := fmt.Sprintf("$%d", n), fmt.Sprintf("$%d", n+1), fmt.Sprintf("$%d", n+2)
		s := mustReplace("TodoAddUnseen", todoAddUnseen, "), fresh AS ("+todoAddUnseenFresh+"), again AS (",
			"), fresh AS (\n    SELECT f.id FROM unnest("+fresh+"::bigint[]) AS f (id)\n), again AS (")
		s = mustReplace("TodoAddUnseen", s, "(floor(random() * 1099511627776)::bigint << 23) | ((($3::bigint << 20) | b.ord) & 8388607)",
			"(SELECT f.id FROM unnest("+fresh+"::bigint[]) AS f (id) WHERE f.id & 1048575 = b.ord)")
		return mustReplace("TodoAddUnseen", s, "FROM batch JOIN seen ON seen.project_id = $9 AND seen.hash = batch.hash",
			"FROM batch JOIN unnest("+hashes+"::bytea[], "+ids+"::bigint[]) AS seen (hash, id) ON seen.hash = batch.hash")
	}()
)

// TodoAddUnseenDistributed is TodoAddUnseen on a Citus database, in three
// statements of the transaction q runs in: the keys seen before (only when
// the project recrawls or the post skips the seen check), the keys added to
// seen, over every worker; then the items queued on the project's worker.
func (q *Queries) TodoAddUnseenDistributed(ctx context.Context, arg TodoAddUnseenParams) (TodoAddUnseenRow, error) {
	batchArgs := []any{arg.Shard, arg.Shuffle, arg.IDBlock, arg.Names, arg.Keys, arg.Params, arg.Sites, arg.Tags, arg.ProjectID}
	var seenHashes [][]byte
	var seenIDs []int64
	if arg.RecrawlAfter > 0 || arg.SkipSeen {
		rows, err := q.db.Query(ctx, seenOfBatch, batchArgs...)
		if err != nil {
			return TodoAddUnseenRow{}, err
		}
		var h []byte
		var id int64
		_, err = pgx.ForEachRow(rows, []any{&h, &id}, func() error {
			seenHashes, seenIDs = append(seenHashes, h), append(seenIDs, id)
			return nil
		})
		if err != nil {
			return TodoAddUnseenRow{}, err
		}
	}
	rows, err := q.db.Query(ctx, seenAddBatch, batchArgs...)
	if err != nil {
		return TodoAddUnseenRow{}, err
	}
	fresh, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return TodoAddUnseenRow{}, err
	}
	if fresh == nil {
		fresh = []int64{}
	}
	return New(variant{q.db, todoAddUnseen, todoAddSeen, []any{fresh, seenHashes, seenIDs}}).TodoAddUnseen(ctx, arg)
}

// doneRecordBatchKnown is DoneRecordBatch with the ids of the names nobody
// holds given (one more parameter) instead of read from seen, the items
// looked for in every stretch of their queues, and the items completed
// from a queue deleted by key: Citus runs the statement's parts one after
// the other, and deletes no rows by addresses another part found; and
// todo_stretches, which reads todo by its name, cannot run inside the
// statement a worker runs for the project's shard.
var doneRecordBatchKnown = func() string {
	ids := between("DoneRecordBatch", doneRecordBatch, "), unclaimed_ids AS (", "), unscheduled AS (")
	s := mustReplace("DoneRecordBatch", doneRecordBatch, "), unclaimed_ids AS ("+ids+"), unscheduled AS (",
		fmt.Sprintf("), unclaimed_ids AS (\n    SELECT k.id FROM unnest($%d::bigint[]) AS k (id)\n), unscheduled AS (", nextParam(doneRecordBatch)))
	stretches := regexp.MustCompile(`SELECT s\.queue, s\.type FROM todo_stretches\(\$\d+\) AS s \(queue, type\)
    WHERE EXISTS \(SELECT 1 FROM unscheduled\) AND s\.queue = ANY\((\$\d+::text\[\])\) AND s\.type = ANY\((\$\d+::text\[\])\)`)
	if len(stretches.FindAllString(s, -1)) != 1 {
		panic("db: the Citus variant of DoneRecordBatch: the stretches probed not found")
	}
	s = stretches.ReplaceAllString(s, `SELECT q.queue, ty.type FROM unnest($1) q (queue), unnest($2) ty (type)
    WHERE EXISTS (SELECT 1 FROM unscheduled)`)
	m := regexp.MustCompile(`(?s)WHERE todo\.ctid = ANY\(ARRAY\(
        SELECT t\.ctid FROM queued_for qf, probed s,
.*?WHERE x\.project_id = (\$\d+) AND .*?OFFSET 0\) t\)\)`)
	if len(m.FindAllString(s, -1)) != 1 {
		panic("db: the Citus variant of DoneRecordBatch: the delete of the items queued not found")
	}
	return m.ReplaceAllString(s, `WHERE todo.project_id = $1 AND (todo.queue, todo.type, todo.id) IN (
        SELECT s.queue, s.type, qf.id FROM queued_for qf, probed s)`)
}()

// DoneRecordBatchDistributed is DoneRecordBatch on a Citus database: known
// are the ids seen has for the reported names nobody holds (see
// SeenIDsOfNamesDistributed), which the statement, on the project's
// worker, cannot read.
func (q *Queries) DoneRecordBatchDistributed(ctx context.Context, arg DoneRecordBatchParams, known []int64) ([]DoneRecordBatchRow, error) {
	if known == nil {
		known = []int64{}
	}
	return New(variant{q.db, doneRecordBatch, doneRecordBatchKnown, []any{known}}).DoneRecordBatch(ctx, arg)
}

// seenIDsOfNamesSpread is SeenIDsOfNames with the items' own hashes looked
// up in one read of every worker rather than by a probe per name, which
// Citus cannot send to the workers.
var seenIDsOfNamesSpread = func() string {
	own := between("SeenIDsOfNames", seenIDsOfNames, "UNION\n", "OFFSET 0) k\n")
	return mustReplace("SeenIDsOfNames", seenIDsOfNames, "UNION\n"+own+"OFFSET 0) k\n",
		"UNION\nSELECT s.id FROM seen s\nWHERE s.project_id = $1 AND s.item = ANY(ARRAY(SELECT item_hash(n) FROM unnest($2::text[]) AS n)) AND s.item IS NOT NULL\n")
}()

// SeenIDsOfNamesDistributed is SeenIDsOfNames on a Citus database.
func (q *Queries) SeenIDsOfNamesDistributed(ctx context.Context, arg SeenIDsOfNamesParams) ([]int64, error) {
	return New(variant{q.db, seenIDsOfNames, seenIDsOfNamesSpread, nil}).SeenIDsOfNames(ctx, arg)
}

// todoMoveItemsRouted is TodoMoveItems with its rows found by key rather
// than by their addresses. Citus runs the statement's parts one after the
// other on the project's worker, and deletes no rows by addresses another
// part found; nor does it take a subquery that skips locked rows into a
// delete: a move of picked items waits for a claim holding one of them.
var todoMoveItemsRouted = func() string {
	moved := regexp.MustCompile(`(?s)WHERE todo\.project_id = \$1 AND ctid = ANY\(ARRAY\(\s*SELECT t\.ctid\s*` +
		`FROM unnest\(\$2::bigint\[\]\) i \(id\), unnest\((project_limited_types\(\$1\) \|\| ARRAY\['', ':site'\])\) ty \(type\),` +
		`.*?x\.queue = (\$\d+::text).*?x\.name = ANY\((\$\d+::text\[\])\).*?FOR UPDATE SKIP LOCKED\) t\s*\)\)`)
	byAddress := regexp.MustCompile(`(\w+)\.ctid = ANY\(ARRAY\(SELECT x\.ctid FROM (\w+), LATERAL \(\s*` +
		`SELECT s\.ctid FROM \w+ s WHERE s\.project_id = \$1 AND s\.id = \w+\.id OFFSET 0\) x\)\)`)
	if len(moved.FindAllString(todoMoveItems, -1)) != 1 || len(byAddress.FindAllString(todoMoveItems, -1)) != 3 {
		panic("db: the Citus variant of TodoMoveItems: the deletes by address not found")
	}
	s := moved.ReplaceAllString(todoMoveItems,
		"WHERE todo.project_id = $$1 AND todo.queue = $2 AND todo.type = ANY($1) AND todo.id = ANY($$2::bigint[]) AND todo.name = ANY($3)")
	return byAddress.ReplaceAllString(s, "$1.project_id = $$1 AND $1.id = ANY(ARRAY(SELECT $2.id FROM $2))")
}()

// TodoMoveItemsDistributed is TodoMoveItems on a Citus database.
func (q *Queries) TodoMoveItemsDistributed(ctx context.Context, arg TodoMoveItemsParams) (int64, error) {
	return New(variant{q.db, todoMoveItems, todoMoveItemsRouted, nil}).TodoMoveItems(ctx, arg)
}

// variant runs statement to in place of statement from, with extra
// arguments after the generated method's own: the generated code's
// arguments and results serve the variant unchanged.
type variant struct {
	DBTX
	from, to string
	extra    []any
}

func (v variant) swap(sql string, args []any) (string, []any) {
	if sql != v.from {
		return sql, args
	}
	return v.to, append(args, v.extra...)
}

func (v variant) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	sql, args = v.swap(sql, args)
	return v.DBTX.Exec(ctx, sql, args...)
}

func (v variant) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	sql, args = v.swap(sql, args)
	return v.DBTX.Query(ctx, sql, args...)
}

func (v variant) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	sql, args = v.swap(sql, args)
	return v.DBTX.QueryRow(ctx, sql, args...)
}

// booksOrphansSpread is BooksOrphans without its recursive skip scans,
// which Citus does not run over distributed tables: each table's projects
// are read as its distinct project ids, on every worker at once; done's
// from its rows, its partitions being days there.
var booksOrphansSpread = func() string {
	found := between("BooksOrphans", booksOrphans, "found (table_name, id) AS (", "\n)\nSELECT f.table_name")
	found = mustReplace("BooksOrphans", found, `SELECT 'done', substring(c.relname FROM '^done_p([0-9]+)$')::integer
        FROM pg_catalog.pg_inherits i JOIN pg_catalog.pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'done'::regclass`,
		`SELECT DISTINCT 'done', project_id FROM done`)
	// A row for each table, should it hold none (as min() gives).
	found = regexp.MustCompile(`SELECT '(\w+)', (nullif\()?id(, 0\))? FROM \w+_ids`).ReplaceAllString(found,
		"SELECT DISTINCT '$1', ${2}project_id$3 FROM $1 UNION ALL SELECT '$1', NULL")
	_, rest, _ := strings.Cut(booksOrphans, "\n)\nSELECT f.table_name")
	return "-- name: BooksOrphans (Citus)\nWITH found (table_name, id) AS (" + found + "\n)\nSELECT f.table_name" + rest
}()

// BooksOrphansDistributed is BooksOrphans on a Citus database.
func (q *Queries) BooksOrphansDistributed(ctx context.Context) ([]BooksOrphansRow, error) {
	return New(variant{q.db, booksOrphans, booksOrphansSpread, nil}).BooksOrphans(ctx)
}

// booksSeenElsewhereSpread is BooksSeenElsewhereCount with the project's
// keys in seen read first, from every worker, then looked for on the
// project's.
var booksSeenElsewhereSpread = mustReplace("BooksSeenElsewhereCount", booksSeenElsewhereCount,
	"SELECT count(*) FROM seen s WHERE s.project_id = $1\n",
	"WITH s AS MATERIALIZED (SELECT s.id, s.hash, s.item FROM seen s WHERE s.project_id = $1)\nSELECT count(*) FROM s WHERE true\n")

// BooksSeenElsewhereCountDistributed is BooksSeenElsewhereCount on a Citus
// database.
func (q *Queries) BooksSeenElsewhereCountDistributed(ctx context.Context, projectID int32) (int64, error) {
	return New(variant{q.db, booksSeenElsewhereCount, booksSeenElsewhereSpread, nil}).BooksSeenElsewhereCount(ctx, projectID)
}

// doneTalliesFoldRouted is DoneTalliesFold for one project only: on Citus
// the fold goes project by project (see stats.Store.Fold), each on its
// project's worker, and Citus sends a delete by rows' addresses to a worker
// only when it names the project. A fold of one project leaves the
// watermark alone, so the variant neither reads nor writes it: it takes the
// project's oldest tallies by their number (@next_seq is not used, but
// named, as a statement's parameters must each be).
var doneTalliesFoldRouted = func() string {
	const head, tail = "WITH mark AS MATERIALIZED (", "), per AS MATERIALIZED ("
	between("DoneTalliesFold", doneTalliesFold, head, tail)
	before, _, _ := strings.Cut(doneTalliesFold, head)
	_, after, _ := strings.Cut(doneTalliesFold, tail)
	return before + `WITH taken AS (
    DELETE FROM done_tallies
    WHERE done_tallies.project_id = $1 AND ctid = ANY(ARRAY(SELECT t.ctid FROM done_tallies t
                                                          WHERE t.project_id = $1 AND $3::bigint IS NOT NULL
                                                          ORDER BY t.seq LIMIT $2))
    RETURNING done_tallies.project_id, done_tallies.downloader, done_tallies.items, done_tallies.bytes,
              done_tallies.version, done_tallies.domains, done_tallies.item, done_tallies.at,
              done_tallies.user_agent, done_tallies.names, done_tallies.seq
` + tail + after
}()

// DoneTalliesFoldDistributed is DoneTalliesFold of one project (arg's, not
// 0) on a Citus database.
func (q *Queries) DoneTalliesFoldDistributed(ctx context.Context, arg DoneTalliesFoldParams) (int64, error) {
	return New(variant{q.db, doneTalliesFold, doneTalliesFoldRouted, nil}).DoneTalliesFold(ctx, arg)
}

// feedPruneRouted is FeedPrune with the rows to delete joined back by
// project and address, which Citus runs on every worker for its shards:
// an address means a row only on its own shard.
var feedPruneRouted = mustReplace("FeedPrune", feedPrune, `DELETE FROM feed
WHERE ctid = ANY(ARRAY(
    SELECT ranked.ctid
    FROM (SELECT f.ctid, row_number() OVER (PARTITION BY f.project_id ORDER BY f.at DESC) AS n FROM feed f) ranked
    WHERE ranked.n > $1::integer
))`, `DELETE FROM feed USING (SELECT f.project_id, f.ctid, row_number() OVER (PARTITION BY f.project_id ORDER BY f.at DESC) AS n FROM feed f) ranked
WHERE feed.project_id = ranked.project_id AND feed.ctid = ranked.ctid AND ranked.n > $1::integer`)

// FeedPruneDistributed is FeedPrune on a Citus database.
func (q *Queries) FeedPruneDistributed(ctx context.Context, feedKept int32) (int64, error) {
	return New(variant{q.db, feedPrune, feedPruneRouted, nil}).FeedPrune(ctx, feedKept)
}

// claimExpiriesPruneKeyed is ClaimExpiriesPrune with the expiries found by
// their project, item and time rather than their rows' addresses, which
// mean a row only on their own shard (an item expires at most once at a
// time).
var claimExpiriesPruneKeyed = func() string {
	s := mustReplace("ClaimExpiriesPrune", claimExpiriesPrune, "WHERE ctid = ANY(ARRAY(\n    SELECT e.ctid FROM claim_expiries e",
		"WHERE (claim_expiries.project_id, claim_expiries.id, claim_expiries.expired_at) IN (\n    SELECT e.project_id, e.id, e.expired_at FROM claim_expiries e")
	return mustReplace("ClaimExpiriesPrune", s, "    LIMIT $2\n))", "    LIMIT $2\n)")
}()

// ClaimExpiriesPruneDistributed is ClaimExpiriesPrune on a Citus database.
func (q *Queries) ClaimExpiriesPruneDistributed(ctx context.Context, arg ClaimExpiriesPruneParams) (int64, error) {
	return New(variant{q.db, claimExpiriesPrune, claimExpiriesPruneKeyed, nil}).ClaimExpiriesPrune(ctx, arg)
}

// claimsTakeSlotsKeyed and sitesTakeKeyed are ClaimsTakeSlots and
// SitesTake deleting the items they hand out by key rather than by the
// addresses their first part found: Citus runs the statements' parts one
// after the other (an INSERT among them) and plans no delete that an
// address reaches from another part, even one it does not read.
var (
	claimsTakeSlotsKeyed = mustReplace("ClaimsTakeSlots", mustReplace("ClaimsTakeSlots", claimsTakeSlots,
		"SELECT r.tid, r.id, r.slot, r.bytes,", "SELECT r.id, r.slot, r.bytes,"),
		"WHERE todo.project_id = $6 AND ctid = ANY(ARRAY(SELECT sized.tid FROM sized WHERE sized.fits))",
		"WHERE todo.project_id = $6 AND todo.queue = $7::text AND todo.type = $8::text\n      AND todo.id = ANY(ARRAY(SELECT sized.id FROM sized WHERE sized.fits))")
	sitesTakeKeyed = func() string {
		s := mustReplace("SitesTake", mustReplace("SitesTake", sitesTake,
			"SELECT r.ord, r.slot, r.tid, r.id, r.bytes,", "SELECT r.ord, r.slot, r.id, r.bytes,"),
			"WHERE todo.project_id = $4 AND ctid = ANY(ARRAY(SELECT sized.tid FROM sized WHERE sized.fits))",
			"WHERE todo.project_id = $4 AND todo.type = ':site' AND todo.id = ANY(ARRAY(SELECT sized.id FROM sized WHERE sized.fits))")
		// The sites paced, by key too: Citus plans no update by
		// addresses either, nor by a lateral join under it.
		paced := regexp.MustCompile(`s\.ctid = ANY\(ARRAY\(\s*SELECT x\.ctid FROM \(SELECT DISTINCT w\.site FROM takes w\) ws,\s*` +
			`LATERAL \(SELECT y\.ctid FROM sites y WHERE y\.project_id = \$\d+ AND y\.id = ws\.site OFFSET 0\) x\)\)`)
		if len(paced.FindAllString(s, -1)) != 1 {
			panic("db: the Citus variant of SitesTake: the update of the sites by address not found")
		}
		return paced.ReplaceAllLiteralString(s, "s.id = ANY(ARRAY(SELECT DISTINCT w.site FROM takes w))")
	}()
)

// ClaimsTakeSlotsDistributed is ClaimsTakeSlots on a Citus database.
func (q *Queries) ClaimsTakeSlotsDistributed(ctx context.Context, arg ClaimsTakeSlotsParams) ([]ClaimsTakeSlotsRow, error) {
	return New(variant{q.db, claimsTakeSlots, claimsTakeSlotsKeyed, nil}).ClaimsTakeSlots(ctx, arg)
}

// SitesTakeDistributed is SitesTake on a Citus database.
func (q *Queries) SitesTakeDistributed(ctx context.Context, arg SitesTakeParams) ([]SitesTakeRow, error) {
	return New(variant{q.db, sitesTake, sitesTakeKeyed, nil}).SitesTake(ctx, arg)
}
