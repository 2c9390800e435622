// Package books checks a project's books: every item ever accepted is in
// exactly one state, no item is out with two warriors, and the counters
// equal the rows they summarise. It is the `tracker check` command and a
// helper of the tests that load the tracker.
package books

import (
	"context"
	"fmt"
	"math"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"tracker/db"
	"tracker/projects"
)

// Report is a project's books.
type Report struct {
	Project string `json:"project"`
	// Rows: items ever seen, queued, out, completions in the hot table,
	// archived items (with a file), and the items neither queued, out,
	// done nor archived (discarded or drained).
	Seen     int64 `json:"seen"`
	Queued   int64 `json:"queued"`
	Claimed  int64 `json:"claimed"`
	DoneRows int64 `json:"done_rows"`
	Archived int64 `json:"archived"`
	// Revisits are a recurring project's items waiting for their next
	// visit.
	Revisits  int64   `json:"revisits"`
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
		q := db.New(tx)
		counter := func(name string) func(context.Context, int32) (int64, error) {
			return func(ctx context.Context, projectID int32) (int64, error) {
				return q.CounterGet(ctx, db.CounterGetParams{ProjectID: projectID, Name: name})
			}
		}
		var (
			todoDup, queuedAndOut, doneBoth                   int64
			doneCounter, claimsCounter, bytesCounter          int64
			archivedCounter, discardedCounter, droppedCount   int64
			doneBytes, archivedBytes, archivedItems           int64
			downloaderItems, downloaderBytes                  int64
			queuesCounted, revisitsCounter, revisitsElsewhere int64
			sitesOff, sitesMissing                            int64
		)
		for _, c := range []struct {
			name string
			read func(context.Context, int32) (int64, error)
			dst  *int64
		}{
			{"items seen", q.BooksSeenCount, &r.Seen},
			{"items queued", q.BooksTodoCount, &r.Queued},
			{"items out", q.BooksClaimsCount, &r.Claimed},
			{"completions", q.BooksDoneCount, &r.DoneRows},
			{"archived items", q.BooksArchivedCount, &r.Archived},
			// Seen, and in no table of a state: discarded by archival or drained.
			{"items elsewhere", q.BooksSeenElsewhereCount, &r.Elsewhere},
			{"items queued twice", q.BooksTodoDuplicates, &todoDup},
			{"items queued and out", q.BooksTodoClaimedCount, &queuedAndOut},
			{"items out and done", q.BooksClaimsDoneCount, &doneBoth},
			{"done counter", counter("done"), &doneCounter},
			{"claims counter", counter("claims"), &claimsCounter},
			{"bytes counter", counter("bytes"), &bytesCounter},
			{"archived counter", counter("archived"), &archivedCounter},
			{"discarded counter", counter("discarded"), &discardedCounter},
			{"dropped counter", counter("dropped"), &droppedCount},
			{"completions' bytes", q.BooksDoneBytes, &doneBytes},
			{"archives' bytes", q.BooksArchivesBytes, &archivedBytes},
			{"archives' items", q.BooksArchivesItems, &archivedItems},
			{"downloaders' items", q.BooksDownloadersItems, &downloaderItems},
			{"downloaders' bytes", q.BooksDownloadersBytes, &downloaderBytes},
			// Every queue's counter against its rows: the number of queues
			// whose counter is off.
			{"queue counters", q.BooksQueueCountersOff, &queuesCounted},
			{"items waiting for a visit", q.BooksRevisitsCount, &r.Revisits},
			{"revisits counter", counter("revisits"), &revisitsCounter},
			{"items waiting for a visit and queued or out", q.BooksRevisitsElsewhereCount, &revisitsElsewhere},
			// Every site's counters against its rows: the number of sites
			// whose counters are off.
			{"site counters", q.BooksSites, &sitesOff},
			{"items of unknown sites", q.BooksSitesMissing, &sitesMissing},
		} {
			n, err := c.read(ctx, p.ID)
			if err != nil {
				return fmt.Errorf("%s: %w", c.name, err)
			}
			*c.dst = n
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
		add("the bytes counter sums the completions' bytes", db.AddBytes(doneBytes, archivedBytes), bytesCounter)
		add("the downloaders' items add up to the completions", doneCounter, downloaderItems)
		add("the downloaders' bytes add up to the bytes", bytesCounter, downloaderBytes)
		add("the revisits counter counts the items waiting for a visit", r.Revisits, revisitsCounter)
		add("no item waiting for a visit is also queued, out or waiting twice", 0, revisitsElsewhere)
		add("the site counters count their items queued and out (sites off)", 0, sitesOff)
		add("every item queued or out by site has its site", 0, sitesMissing)
		return nil
	})
	r.Balanced = err == nil
	for _, c := range r.Checks {
		r.Balanced = r.Balanced && c.OK
	}
	return r, err
}

// Politeness is how a project's sites were served, read back from its
// completions and claims: hand-outs of a site closer together than
// site_interval, and sites that had more than site_claims_limit items out
// at some moment. Both are 0 when every site was served politely under the
// project's present settings.
type Politeness struct {
	UnderInterval int64 `json:"under_interval"`
	OverLimit     int64 `json:"over_limit"`
}

// PolitenessOf checks the politeness of the project's sites.
func PolitenessOf(ctx context.Context, pool *pgxpool.Pool, p projects.Project) (Politeness, error) {
	var r Politeness
	err := pgx.BeginTxFunc(ctx, pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		q := db.New(tx)
		var err error
		r.UnderInterval, err = q.BooksSitesUnderInterval(ctx, db.BooksSitesUnderIntervalParams{
			ProjectID: p.ID, Interval: pgtype.Interval{Microseconds: p.Config.SiteInterval * 1e6, Valid: true}})
		if err != nil {
			return err
		}
		limit := p.Config.SiteClaimsLimit
		if limit == 0 {
			limit = math.MaxInt64
		}
		r.OverLimit, err = q.BooksSitesOverLimit(ctx, db.BooksSitesOverLimitParams{ProjectID: p.ID, SiteLimit: limit})
		return err
	})
	return r, err
}
