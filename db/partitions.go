package db

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// The statements on a project's completion partitions (done_pN, and its day
// partitions done_pN_YYYYMMDD that DonePartitions lists; on Citus the day
// partitions done_YYYYMMDD that every project shares, which
// DoneDayPartitions lists). They name the partition as a table: an
// identifier cannot be a bind parameter, so sqlc, which checks statements
// against the schema's fixed tables, cannot hold them. Each quotes the name
// it is given, and reads the project's rows only: a day partition of plain
// PostgreSQL holds no other, one of Citus every project's.

// DonePartitionCount counts the project's completions in a day partition.
// Not sqlc: the table is the partition's name.
func DonePartitionCount(ctx context.Context, conn DBTX, part string, projectID int32) (int64, error) {
	var n int64
	err := conn.QueryRow(ctx, "SELECT count(*) FROM "+pgx.Identifier{part}.Sanitize()+" WHERE project_id = $1", projectID).Scan(&n)
	return n, err
}

// DonePartitionHolds reports whether a day partition holds completions of
// the project. Not sqlc: the table is the partition's name.
func DonePartitionHolds(ctx context.Context, conn DBTX, part string, projectID int32) (bool, error) {
	var holds bool
	err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM "+pgx.Identifier{part}.Sanitize()+" WHERE project_id = $1)", projectID).Scan(&holds)
	return holds, err
}

// DonePartitionTotalsRow is what an archive records of a day partition.
type DonePartitionTotalsRow struct {
	Items       int64
	Bytes       int64
	FirstDoneAt *time.Time
	LastDoneAt  *time.Time
}

// DonePartitionTotals counts the project's completions in a day partition
// and their bytes, with the first and last completion times (nil when it
// has none); the bytes saturate at the largest bigint, like every byte
// total. Not sqlc: the table is the partition's name.
func DonePartitionTotals(ctx context.Context, conn DBTX, part string, projectID int32) (DonePartitionTotalsRow, error) {
	var r DonePartitionTotalsRow
	err := conn.QueryRow(ctx, "SELECT count(*), LEAST(coalesce(sum(bytes), 0), 9223372036854775807)::bigint, min(done_at), max(done_at) FROM "+
		pgx.Identifier{part}.Sanitize()+" WHERE project_id = $1", projectID).Scan(&r.Items, &r.Bytes, &r.FirstDoneAt, &r.LastDoneAt)
	return r, err
}

// donePartitionRecords renders one completion as the JSON line an archive
// keeps, with its bytes and time, in completion order.
const donePartitionRecords = `SELECT json_build_object(
	'id', id, 'item', name, 'downloader', downloader, 'version', version, 'bytes', bytes,
	'domains', domains, 'client_id', client_id, 'claimed_at', claimed_at, 'done_at', done_at,
	'claim_count', claim_count, 'ip', ip, 'result', result)::text, bytes, done_at
FROM %s WHERE project_id = $1 ORDER BY done_at, id`

// DonePartitionRecords calls fn with each of the project's completions in a
// day partition, in order of completion: the JSON line an archive keeps of
// it (times in the session's zone: see TransactionTimeZoneUTC), its bytes
// and its time. An error from fn stops the read and is returned. Not sqlc:
// the table is the partition's name.
func DonePartitionRecords(ctx context.Context, conn DBTX, part string, projectID int32, fn func(line string, bytes int64, doneAt time.Time) error) error {
	rows, err := conn.Query(ctx, fmt.Sprintf(donePartitionRecords, pgx.Identifier{part}.Sanitize()), projectID)
	if err != nil {
		return err
	}
	defer rows.Close()
	var (
		line   string
		bytes  int64
		doneAt time.Time
	)
	for rows.Next() {
		if err := rows.Scan(&line, &bytes, &doneAt); err != nil {
			return err
		}
		if err := fn(line, bytes, doneAt); err != nil {
			return err
		}
	}
	return rows.Err()
}

// DonePartitionArchivedInsert records the project's items of a day
// partition as held by the archive archiveID. An item done twice (requeued
// by an admin) is found in its latest archive. Not sqlc: the table is the
// partition's name.
func DonePartitionArchivedInsert(ctx context.Context, conn DBTX, part string, projectID, archiveID int32) error {
	_, err := conn.Exec(ctx, `
		INSERT INTO archived (project_id, hash, archive_id)
		SELECT DISTINCT ON (item_hash(name)) project_id, item_hash(name), $2 FROM `+pgx.Identifier{part}.Sanitize()+`
		WHERE project_id = $1
		ORDER BY item_hash(name)
		ON CONFLICT (project_id, hash) DO UPDATE SET archive_id = excluded.archive_id`, projectID, archiveID)
	return err
}

// DonePartitionItemsPrune deletes the parameters and scores of the items
// the project completed in the day partition of day that nothing else
// holds: not queued (in one of queues, in one of types), not out, not
// scheduled for a visit, not completed on another day still in the hot
// tables. The archive runs it before it drops the day (on Citus, deletes
// the project's completions from it); nothing is read unless the project
// has parameters or scores. It returns the rows
// deleted. Not sqlc: the table is the partition's name.
func DonePartitionItemsPrune(ctx context.Context, conn DBTX, part string, projectID int32, queues, types []string, day time.Time) (int64, error) {
	var n int64
	err := conn.QueryRow(ctx, `
		WITH gone AS (
		    SELECT DISTINCT d.id FROM `+pgx.Identifier{part}.Sanitize()+` d
		    WHERE d.project_id = $1
		      AND (EXISTS (SELECT 1 FROM item_params x WHERE x.project_id = $1)
		           OR EXISTS (SELECT 1 FROM item_scores x WHERE x.project_id = $1))
		      AND (EXISTS (SELECT 1 FROM item_params x WHERE x.project_id = $1 AND x.id = d.id)
		           OR EXISTS (SELECT 1 FROM item_scores x WHERE x.project_id = $1 AND x.id = d.id))
		      AND NOT EXISTS (SELECT 1 FROM todo t
		                      WHERE t.project_id = $1 AND t.queue = ANY($2::text[]) AND t.type = ANY($3::text[]) AND t.id = d.id)
		      AND NOT EXISTS (SELECT 1 FROM claims c WHERE c.hash = item_hash(d.name) AND c.project_id = $1)
		      AND NOT EXISTS (SELECT 1 FROM revisits r WHERE r.project_id = $1 AND r.id = d.id)
		      -- Another day by its time, not by its partition: a Citus
		      -- worker knows the coordinator's tables by other names.
		      AND NOT EXISTS (SELECT 1 FROM done o WHERE o.project_id = $1 AND o.id = d.id AND (o.done_at < $4 OR o.done_at >= $5))
		), unparamed AS (
		    DELETE FROM item_params WHERE item_params.project_id = $1 AND item_params.id = ANY(ARRAY(SELECT gone.id FROM gone))
		    RETURNING 1
		), unscored AS (
		    DELETE FROM item_scores WHERE item_scores.project_id = $1 AND item_scores.id = ANY(ARRAY(SELECT gone.id FROM gone))
		    RETURNING 1
		)
		SELECT (SELECT count(*) FROM unparamed) + (SELECT count(*) FROM unscored)`,
		projectID, queues, types, day, day.AddDate(0, 0, 1)).Scan(&n)
	return n, err
}

// DonePartitionLock takes the lock dropping a day partition takes, early:
// from then on no statement reads the partition until the transaction
// ends, so what is decided from its rows (the receipts to delete) holds
// for every other transaction. Not sqlc: the table is the partition's name.
func DonePartitionLock(ctx context.Context, conn DBTX, part string) error {
	_, err := conn.Exec(ctx, "LOCK TABLE "+pgx.Identifier{part}.Sanitize()+" IN ACCESS EXCLUSIVE MODE")
	return err
}

// DonePartitionUploadsDelete deletes the upload receipts of the items
// project projectID completed in a day partition that ends at dayEnd, but
// of items out again or completed again after it. Not sqlc: the table is
// the partition's name.
func DonePartitionUploadsDelete(ctx context.Context, conn DBTX, part string, projectID int32, dayEnd time.Time) (int64, error) {
	tag, err := conn.Exec(ctx, `
		DELETE FROM uploads u USING (SELECT DISTINCT id, item_hash(name) AS hash FROM `+pgx.Identifier{part}.Sanitize()+` WHERE project_id = $1) d
		WHERE u.project_id = $1 AND u.id = d.id
		  AND NOT EXISTS (SELECT 1 FROM claims c WHERE c.hash = d.hash AND c.project_id = $1 AND c.id = d.id)
		  AND NOT EXISTS (SELECT 1 FROM done o WHERE o.project_id = $1 AND o.id = d.id AND o.done_at >= $2)`,
		projectID, dayEnd)
	return tag.RowsAffected(), err
}

// DonePartitionDelete deletes the project's completions from a day
// partition every project shares (Citus's). Not sqlc: the table is the
// partition's name.
func DonePartitionDelete(ctx context.Context, conn DBTX, part string, projectID int32) (int64, error) {
	tag, err := conn.Exec(ctx, "DELETE FROM "+pgx.Identifier{part}.Sanitize()+" WHERE project_id = $1", projectID)
	return tag.RowsAffected(), err
}

// DonePartitionEmpty reports whether a day partition holds no completion
// at all. Not sqlc: the table is the partition's name.
func DonePartitionEmpty(ctx context.Context, conn DBTX, part string) (bool, error) {
	var empty bool
	err := conn.QueryRow(ctx, "SELECT NOT EXISTS (SELECT 1 FROM "+pgx.Identifier{part}.Sanitize()+")").Scan(&empty)
	return empty, err
}

// DonePartitionDrop drops a day partition with its rows. Not sqlc: the
// table is the partition's name.
func DonePartitionDrop(ctx context.Context, conn DBTX, part string) error {
	_, err := conn.Exec(ctx, "DROP TABLE "+pgx.Identifier{part}.Sanitize())
	return err
}

// DonePartitionsDrop drops a project's branch of done (done_pN) with every
// partition under it, if it exists. Not sqlc: the table's name is made of
// the project's id.
func DonePartitionsDrop(ctx context.Context, conn DBTX, projectID int32) error {
	_, err := conn.Exec(ctx, "DROP TABLE IF EXISTS "+pgx.Identifier{fmt.Sprintf("done_p%d", projectID)}.Sanitize()+" CASCADE")
	return err
}
