// Package books checks a project's books: every item ever accepted is in
// exactly one state, no item is out with two warriors, and the counters
// equal the rows they summarise. It is the `tracker check` command and a
// helper of the tests that load the tracker.
package books

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"tracker/projects"
)

// Report is a project's books.
type Report struct {
	Project string `json:"project"`
	// Rows: items ever seen, queued, out, completions in the hot table,
	// archived items (with a file), and the items neither queued, out,
	// done nor archived (discarded or drained).
	Seen      int64   `json:"seen"`
	Queued    int64   `json:"queued"`
	Claimed   int64   `json:"claimed"`
	DoneRows  int64   `json:"done_rows"`
	Archived  int64   `json:"archived"`
	Elsewhere int64   `json:"elsewhere"`
	Checks    []Check `json:"checks"`
	Balanced  bool    `json:"balanced"`
}

// Check is one rule of the books.
type Check struct {
	Name  string `json:"name"`
	OK    bool   `json:"ok"`
	Want  int64  `json:"want"`
	Found int64  `json:"found"`
}

// Of checks the project's books from one snapshot of the database.
func Of(ctx context.Context, pool *pgxpool.Pool, p projects.Project) (Report, error) {
	r := Report{Project: p.Slug}
	err := pgx.BeginTxFunc(ctx, pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		one := func(sql string, dst *int64) error {
			return tx.QueryRow(ctx, sql, p.ID).Scan(dst)
		}
		var (
			todoDup, queuedAndOut, doneBoth                 int64
			doneCounter, claimsCounter, bytesCounter        int64
			archivedCounter, discardedCounter, droppedCount int64
			doneBytes, archivedBytes, archivedItems         int64
			downloaderItems, downloaderBytes                int64
			queuesCounted                                   int64
		)
		for _, q := range []struct {
			sql string
			dst *int64
		}{
			{`SELECT count(*) FROM seen WHERE project_id = $1`, &r.Seen},
			{`SELECT count(*) FROM todo WHERE project_id = $1`, &r.Queued},
			{`SELECT count(*) FROM claims WHERE project_id = $1`, &r.Claimed},
			{`SELECT count(*) FROM done WHERE project_id = $1`, &r.DoneRows},
			{`SELECT count(*) FROM archived WHERE project_id = $1`, &r.Archived},
			// Seen, and in no table of a state: discarded by archival or drained.
			{`SELECT count(*) FROM seen s WHERE s.project_id = $1
			    AND NOT EXISTS (SELECT 1 FROM todo t WHERE t.project_id = $1 AND t.id = s.id)
			    AND NOT EXISTS (SELECT 1 FROM claims c WHERE c.project_id = $1 AND c.hash = s.hash)
			    AND NOT EXISTS (SELECT 1 FROM done d WHERE d.project_id = $1 AND d.id = s.id)
			    AND NOT EXISTS (SELECT 1 FROM archived a WHERE a.project_id = $1 AND a.hash = s.hash)`, &r.Elsewhere},
			{`SELECT count(*) - count(DISTINCT id) FROM todo WHERE project_id = $1`, &todoDup},
			{`SELECT count(*) FROM todo t JOIN claims c ON c.project_id = t.project_id AND c.id = t.id WHERE t.project_id = $1`, &queuedAndOut},
			{`SELECT count(*) FROM claims c WHERE c.project_id = $1
			    AND EXISTS (SELECT 1 FROM done d WHERE d.project_id = $1 AND d.id = c.id AND d.done_at > c.claimed_at)`, &doneBoth},
			{`SELECT coalesce(sum(value), 0)::bigint FROM counters WHERE project_id = $1 AND name = 'done'`, &doneCounter},
			{`SELECT coalesce(sum(value), 0)::bigint FROM counters WHERE project_id = $1 AND name = 'claims'`, &claimsCounter},
			{`SELECT coalesce(sum(value), 0)::bigint FROM counters WHERE project_id = $1 AND name = 'bytes'`, &bytesCounter},
			{`SELECT coalesce(sum(value), 0)::bigint FROM counters WHERE project_id = $1 AND name = 'archived'`, &archivedCounter},
			{`SELECT coalesce(sum(value), 0)::bigint FROM counters WHERE project_id = $1 AND name = 'discarded'`, &discardedCounter},
			{`SELECT coalesce(sum(value), 0)::bigint FROM counters WHERE project_id = $1 AND name = 'dropped'`, &droppedCount},
			{`SELECT coalesce(sum(bytes), 0)::bigint FROM done WHERE project_id = $1`, &doneBytes},
			{`SELECT coalesce(sum(bytes), 0)::bigint FROM archives WHERE project_id = $1`, &archivedBytes},
			{`SELECT coalesce(sum(items), 0)::bigint FROM archives WHERE project_id = $1`, &archivedItems},
			{`SELECT (SELECT coalesce(sum(items), 0) FROM downloaders WHERE project_id = $1)
			       + (SELECT coalesce(sum(items), 0) FROM done_tallies WHERE project_id = $1)`, &downloaderItems},
			{`SELECT (SELECT coalesce(sum(bytes), 0) FROM downloaders WHERE project_id = $1)
			       + (SELECT coalesce(sum(bytes), 0) FROM done_tallies WHERE project_id = $1)`, &downloaderBytes},
			// Every queue's counter against its rows: the number of queues
			// whose counter is off.
			{`SELECT count(*) FROM (
			    SELECT q.queue FROM
			      (SELECT substr(name, 7) AS queue, sum(value) AS n FROM counters WHERE project_id = $1 AND name LIKE 'queue:%' GROUP BY 1) q
			      FULL JOIN (SELECT queue, count(*) AS n FROM todo WHERE project_id = $1 GROUP BY 1) t ON t.queue = q.queue
			    WHERE coalesce(q.n, 0) <> coalesce(t.n, 0)) off`, &queuesCounted},
		} {
			if err := one(q.sql, q.dst); err != nil {
				return fmt.Errorf("%w in %s", err, q.sql)
			}
		}
		add := func(name string, want, found int64) {
			r.Checks = append(r.Checks, Check{Name: name, OK: want == found, Want: want, Found: found})
		}
		add("no item is queued twice", 0, todoDup)
		add("no item is queued and out at once", 0, queuedAndOut)
		add("no item out is also done after its claim", 0, doneBoth)
		add("items neither queued, out, done nor archived were discarded or drained", discardedCounter+droppedCount, r.Elsewhere)
		add("the claims counter counts the claims", r.Claimed, claimsCounter)
		add("the queue counters count the queues (queues off)", 0, queuesCounted)
		add("the done counter counts the completions, archived ones included", r.DoneRows+archivedItems, doneCounter)
		add("the archive counters count the archives", archivedItems, archivedCounter+discardedCounter)
		add("the bytes counter sums the completions' bytes", doneBytes+archivedBytes, bytesCounter)
		add("the downloaders' items add up to the completions", doneCounter, downloaderItems)
		add("the downloaders' bytes add up to the bytes", bytesCounter, downloaderBytes)
		return nil
	})
	r.Balanced = err == nil
	for _, c := range r.Checks {
		r.Balanced = r.Balanced && c.OK
	}
	return r, err
}
