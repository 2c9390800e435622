// Package books checks a project's books: every item ever accepted is in
// exactly one state, no item is out with two warriors, the counters equal
// the rows they summarise, and every row a project keeps beside its items
// (sites, visits, scores, parameters, tags, expired claims, statistics,
// dictionaries) agrees with them; and the tracker's own: no row of a
// project that does not exist, no malformed warrior record. It is the
// `tracker check` command and a helper of the tests that load the tracker.
// docs/DESIGN.md lists the rules.
package books

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"tracker/db"
	"tracker/db/drivers"
	"tracker/projects"
	"tracker/users"
)

// Report is a project's books, or the tracker's (Project empty: the rules
// that are no project's).
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
	// AtMost marks a bound: the rule holds when what was found is at most
	// what was wanted (archival, pruning and purges take rows away from
	// one side only).
	AtMost bool `json:"at_most,omitempty"`
}

// rule is a rule of the books: what it says, the tables whose rows it
// reads, and what it wants and finds.
type rule[L any] struct {
	name   string
	tables []string
	atMost bool
	eval   func(l *L) (want, found int64)
}

func (r rule[L]) check(l *L) Check {
	want, found := r.eval(l)
	ok := want == found
	if r.atMost {
		ok = found <= want
	}
	return Check{Name: r.name, OK: ok, Want: want, Found: found, AtMost: r.atMost}
}

// snapshot is the transaction every check reads in: one moment of the
// database, changing nothing.
var snapshot = pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}

// Of checks the project's books from one snapshot of the database.
func Of(ctx context.Context, pool *pgxpool.Pool, p projects.Project) (Report, error) {
	r := Report{Project: p.Slug}
	err := pgx.BeginTxFunc(ctx, pool, snapshot, func(tx pgx.Tx) error {
		var err error
		r, err = of(ctx, db.Of(tx), p)
		return err
	})
	if err != nil {
		r.Balanced = false
	}
	return r, err
}

// Tracker checks the tracker's own books (the rules that are no
// project's) from one snapshot of the database.
func Tracker(ctx context.Context, pool *pgxpool.Pool) (Report, error) {
	var r Report
	err := pgx.BeginTxFunc(ctx, pool, snapshot, func(tx pgx.Tx) error {
		var err error
		r, err = tracker(ctx, db.Of(tx))
		return err
	})
	if err != nil {
		r.Balanced = false
	}
	return r, err
}

// ledger is what the rules of a project read, figures of a fixed set of
// statements (see read), none of which runs per item.
type ledger struct {
	p projects.Project
	r *Report
	// Counters by name, their shards summed.
	counters map[string]int64

	todoDup, queuedAndOut, outAndDone, addressesAlone int64
	doneBytes, archivesBytes, archivesItems           int64
	downloadersItems, downloadersBytes                int64
	queuesOff, revisitsElsewhere, sitesOff, sitesGone int64
	outOfStretch, paramsUntracked, scoresUntracked    int64
	dictionaries, backfeedMinutes, feed, volunteers   int64
	archivedElsewhere, dictionariesMisnumbered        int64
	sitesDone                                         db.BooksSitesDoneRow
	refs                                              db.BooksSeenReferencesRow
	expiries                                          db.BooksClaimExpiriesRow
	series                                            db.BooksSeriesRow
}

func (l *ledger) counter(name string) int64 { return l.counters[name] }

// read reads the project's ledger.
func read(ctx context.Context, q *db.Queries, p projects.Project, r *Report) (*ledger, error) {
	l := &ledger{p: p, r: r, counters: map[string]int64{}}
	d, err := drivers.Of(ctx, q.DB())
	if err != nil {
		return nil, err
	}
	elsewhere := func(ctx context.Context, project int32) (int64, error) {
		return d.BooksSeenElsewhereCount(ctx, q, project)
	}
	count := func(dst *int64, f func(context.Context, int32) (int64, error)) func() error {
		return func() (err error) {
			*dst, err = f(ctx, p.ID)
			return err
		}
	}
	for _, c := range []struct {
		name string
		read func() error
	}{
		{"items seen", count(&r.Seen, q.BooksSeenCount)},
		{"items queued", func() error {
			row, err := q.BooksTodo(ctx, db.BooksTodoParams{
				ProjectID: p.ID, LimitedTypes: p.Config.LimitedTypes(), Sited: p.Config.Sited()})
			r.Queued, l.todoDup, l.outOfStretch = row.Queued, row.Duplicates, row.OutOfStretch
			return err
		}},
		{"items out", count(&r.Claimed, q.BooksClaimsCount)},
		{"completions", count(&r.DoneRows, q.BooksDoneCount)},
		{"archived items", count(&r.Archived, q.BooksArchivedCount)},
		// Seen, and in no table of a state: discarded by archival or drained.
		{"items elsewhere", count(&r.Elsewhere, elsewhere)},
		{"items waiting for a visit", count(&r.Revisits, q.BooksRevisitsCount)},
		{"counters", func() error {
			rows, err := q.CountersByProject(ctx, p.ID)
			for _, row := range rows {
				l.counters[row.Name] = row.Value
			}
			return err
		}},
		{"items queued and out", count(&l.queuedAndOut, q.BooksTodoClaimedCount)},
		{"items out and done", count(&l.outAndDone, q.BooksClaimsDoneCount)},
		{"previous holders' addresses", count(&l.addressesAlone, q.BooksLastAddressesAlone)},
		{"completions' bytes", count(&l.doneBytes, q.BooksDoneBytes)},
		{"archives' bytes", count(&l.archivesBytes, q.BooksArchivesBytes)},
		{"archives' items", count(&l.archivesItems, q.BooksArchivesItems)},
		{"downloaders' items", count(&l.downloadersItems, q.BooksDownloadersItems)},
		{"downloaders' bytes", count(&l.downloadersBytes, q.BooksDownloadersBytes)},
		// Every queue's counter against its rows: the number of queues
		// whose counter is off.
		{"queue counters", count(&l.queuesOff, q.BooksQueueCountersOff)},
		{"items waiting for a visit and queued or out", count(&l.revisitsElsewhere, q.BooksRevisitsElsewhereCount)},
		// Every site's counters against its rows: the number of sites
		// whose counters are off.
		{"site counters", count(&l.sitesOff, q.BooksSites)},
		{"items of unknown sites", count(&l.sitesGone, q.BooksSitesMissing)},
		{"sites' completions", func() (err error) {
			l.sitesDone, err = q.BooksSitesDone(ctx, p.ID)
			return err
		}},
		{"parameters of items untracked", count(&l.paramsUntracked, q.BooksItemParamsUntracked)},
		{"scores of items untracked", count(&l.scoresUntracked, q.BooksItemScoresUntracked)},
		{"items named by id", func() (err error) {
			l.refs, err = q.BooksSeenReferences(ctx, p.ID)
			return err
		}},
		{"expired claims", func() (err error) {
			l.expiries, err = q.BooksClaimExpiries(ctx, p.ID)
			return err
		}},
		{"dictionaries", count(&l.dictionaries, q.BooksDictionariesMismatched)},
		{"dictionary ids", count(&l.dictionariesMisnumbered, q.BooksDictionariesMisnumbered)},
		{"backfeed minutes", count(&l.backfeedMinutes, q.BooksBackfeedMinutesOff)},
		{"series", func() (err error) {
			l.series, err = q.BooksSeries(ctx, p.ID)
			return err
		}},
		{"feed and domains", count(&l.feed, q.BooksFeedOff)},
		{"volunteers", count(&l.volunteers, q.BooksVolunteersOff)},
		{"archived items' files", count(&l.archivedElsewhere, q.BooksArchivedElsewhere)},
	} {
		if err := c.read(); err != nil {
			return nil, fmt.Errorf("%s: %w", c.name, err)
		}
	}
	return l, nil
}

// The tables of an item's states, which the rules of tracked items read.
var tracked = []string{"todo", "claims", "revisits", "done"}

// projectRules are the rules of a project's books. Each names the tables
// it reads; every table keyed by project is named by at least one rule
// (TestTablesCovered).
var projectRules = []rule[ledger]{
	// An item's state.
	{"no item is queued twice", []string{"todo"}, false,
		func(l *ledger) (int64, int64) { return 0, l.todoDup }},
	{"no item is queued and out at once", []string{"todo", "claims"}, false,
		func(l *ledger) (int64, int64) { return 0, l.queuedAndOut }},
	{"no item out is also done after its claim", []string{"claims", "done"}, false,
		func(l *ledger) (int64, int64) { return 0, l.outAndDone }},
	// A bound: the counters count discards and drains, and an item drained
	// may be done too (a recurring project's, or one queued again after
	// its completion), or queued again after it was discarded.
	{"items neither queued, out, done nor archived are no more than those discarded or drained", []string{"seen", "todo", "claims", "done", "archived", "counters"}, true,
		func(l *ledger) (int64, int64) { return l.counter("discarded") + l.counter("dropped"), l.r.Elsewhere }},
	{"every queued item is in its stretch, and none by site in a project without sites", []string{"todo"}, false,
		func(l *ledger) (int64, int64) { return 0, l.outOfStretch }},
	{"every previous holder's address kept with an item queued or out has its holder's nick", []string{"todo", "claims"}, false,
		func(l *ledger) (int64, int64) { return 0, l.addressesAlone }},

	// The counters.
	{"the claims counter counts the claims", []string{"claims", "counters"}, false,
		func(l *ledger) (int64, int64) { return l.r.Claimed, l.counter("claims") }},
	{"the queue counters count the queues (queues off)", []string{"todo", "counters"}, false,
		func(l *ledger) (int64, int64) { return 0, l.queuesOff }},
	{"the done counter counts the completions, archived ones included", []string{"done", "archives", "counters"}, false,
		func(l *ledger) (int64, int64) { return l.r.DoneRows + l.archivesItems, l.counter("done") }},
	{"the archive counters count the archives", []string{"archives", "counters"}, false,
		func(l *ledger) (int64, int64) { return l.archivesItems, l.counter("archived") + l.counter("discarded") }},
	{"the bytes counter sums the completions' bytes", []string{"done", "archives", "counters"}, false,
		func(l *ledger) (int64, int64) { return db.AddBytes(l.doneBytes, l.archivesBytes), l.counter("bytes") }},
	{"the revisits counter counts the items waiting for a visit", []string{"revisits", "counters"}, false,
		func(l *ledger) (int64, int64) { return l.r.Revisits, l.counter("revisits") }},
	{"no counter is below zero (counters)", []string{"counters"}, false,
		func(l *ledger) (int64, int64) {
			var below int64
			for _, v := range l.counters {
				if v < 0 {
					below++
				}
			}
			return 0, below
		}},
	{"the reclaimed completions are no more than the completions", []string{"counters"}, true,
		func(l *ledger) (int64, int64) { return l.counter("done"), l.counter("done_reclaimed") }},

	// The downloaders and the statistics folded from the tallies.
	{"the downloaders' items add up to the completions", []string{"downloaders", "done_tallies", "counters"}, false,
		func(l *ledger) (int64, int64) { return l.counter("done"), l.downloadersItems }},
	{"the downloaders' bytes add up to the bytes", []string{"downloaders", "done_tallies", "counters"}, false,
		func(l *ledger) (int64, int64) { return l.counter("bytes"), l.downloadersBytes }},
	{"every downloader's hours add up to its totals (downloaders off)", []string{"downloaders", "downloader_hours"}, false,
		func(l *ledger) (int64, int64) { return 0, l.series.DownloadersOff }},
	{"the hourly series adds up to the downloaders' items", []string{"series_hours", "downloaders"}, false,
		func(l *ledger) (int64, int64) { return l.series.DownloadersItems, l.series.HoursItems }},
	{"the hourly series adds up to the downloaders' bytes", []string{"series_hours", "downloaders"}, false,
		func(l *ledger) (int64, int64) { return l.series.DownloadersBytes, l.series.HoursBytes }},
	{"no hour of the series holds less than its minutes (hours off)", []string{"series_minutes", "series_hours"}, false,
		func(l *ledger) (int64, int64) { return 0, l.series.MinutesOff }},
	{"every feed entry credits items, and no domain's bytes are below zero", []string{"feed", "domain_totals"}, false,
		func(l *ledger) (int64, int64) { return 0, l.feed }},

	// Archives.
	{"every archived item's file is one of the project's archives", []string{"archived", "archives"}, false,
		func(l *ledger) (int64, int64) { return 0, l.archivedElsewhere }},

	// Sites.
	{"the site counters count their items queued and out (sites off)", []string{"sites", "todo", "claims"}, false,
		func(l *ledger) (int64, int64) { return 0, l.sitesOff }},
	{"every item queued, out or waiting for a visit by site has its site", []string{"todo", "claims", "revisits", "sites"}, false,
		func(l *ledger) (int64, int64) { return 0, l.sitesGone }},
	{"every completion by site has its site", []string{"done", "sites"}, false,
		func(l *ledger) (int64, int64) { return 0, l.sitesDone.Unknown }},
	{"no site counts fewer completions or bytes than the hot table holds (sites off)", []string{"sites", "done"}, false,
		func(l *ledger) (int64, int64) { return 0, l.sitesDone.Short }},
	{"the sites' completions beyond the hot table are no more than the archived ones", []string{"sites", "done", "archives"}, true,
		func(l *ledger) (int64, int64) { return l.archivesItems, l.sitesDone.BeyondItems }},
	{"the sites' bytes beyond the hot table are no more than the archived ones", []string{"sites", "done", "archives"}, true,
		func(l *ledger) (int64, int64) { return l.archivesBytes, l.sitesDone.BeyondBytes }},

	// Visits, scores, parameters, tags and expired claims: rows by item id.
	{"no item waiting for a visit is also queued, out or waiting twice", []string{"revisits", "todo", "claims"}, false,
		func(l *ledger) (int64, int64) { return 0, l.revisitsElsewhere }},
	{"every item waiting for a visit is one the project has seen", []string{"revisits", "seen"}, false,
		func(l *ledger) (int64, int64) { return 0, l.refs.RevisitsUnseen }},
	{"every score is of an item queued, out, waiting for a visit or done", slices.Concat([]string{"item_scores"}, tracked), false,
		func(l *ledger) (int64, int64) { return 0, l.scoresUntracked }},
	{"every item's parameters are of an item queued, out, waiting for a visit or done", slices.Concat([]string{"item_params"}, tracked), false,
		func(l *ledger) (int64, int64) { return 0, l.paramsUntracked }},
	{"every update tag is of an item the project has seen", []string{"item_tags", "seen"}, false,
		func(l *ledger) (int64, int64) { return 0, l.refs.TagsUnseen }},
	{"every expired claim is of an item the project has seen", []string{"claim_expiries", "seen"}, false,
		func(l *ledger) (int64, int64) { return 0, l.refs.ExpiriesUnseen }},
	{"no claim expired before it was made", []string{"claim_expiries"}, false,
		func(l *ledger) (int64, int64) { return 0, l.expiries.Backwards }},
	{"the expired claims kept are no more than the reclaims counted", []string{"claim_expiries", "counters"}, true,
		func(l *ledger) (int64, int64) { return l.counter("reclaims"), l.expiries.Kept }},

	// The rest of a project's rows.
	{"every dictionary's SHA-256 is that of its bytes", []string{"dictionaries"}, false,
		func(l *ledger) (int64, int64) { return 0, l.dictionaries }},
	{"every dictionary's id is ten digits (a Unix second), and no old id is", []string{"dictionaries"}, false,
		func(l *ledger) (int64, int64) { return 0, l.dictionariesMisnumbered }},
	{"every backfeed minute is a whole minute and counts new items", []string{"backfeed_minutes"}, false,
		func(l *ledger) (int64, int64) { return 0, l.backfeedMinutes }},
	{"every volunteer day counts volunteers and every mark is 16 bytes", []string{"volunteer_days", "volunteer_marks"}, false,
		func(l *ledger) (int64, int64) { return 0, l.volunteers }},
}

func of(ctx context.Context, q *db.Queries, p projects.Project) (Report, error) {
	r := Report{Project: p.Slug}
	l, err := read(ctx, q, p, &r)
	if err != nil {
		return r, err
	}
	r.Balanced = true
	for _, rl := range projectRules {
		c := rl.check(l)
		r.Checks = append(r.Checks, c)
		r.Balanced = r.Balanced && c.OK
	}
	return r, nil
}

// keyedTables are the tables with a project_id column. BooksOrphans reads
// each; a table added to the schema must be added here and there.
var keyedTables = []string{
	"archived", "archives", "audit_log", "backfeed_minutes", "blocks", "claim_expiries", "claims", "counters",
	"dictionaries", "domain_totals", "done", "done_tallies", "downloader_hours", "downloaders", "feed",
	"item_batches", "item_params", "item_scores", "item_tags", "project_admins", "rate_limits", "revisits", "seen",
	"series_hours", "series_minutes", "sites", "todo", "upload_targets", "uploads", "volunteer_days",
	"volunteer_marks",
}

// trackerLedger is what the tracker's rules read.
type trackerLedger struct {
	// Per table keyed by project, the projects that do not exist its rows
	// belong to.
	orphans  map[string]int64
	warriors int64
	// long counts the rows holding a text an admin entered past its
	// bound (projects.MaxBlockReason and the like).
	long int64
	// tokens counts the API tokens not of the form users.CreateToken
	// writes.
	tokens int64
}

// trackerRules are the rules of the tracker's books: a rule per table
// keyed by project (a project being deleted exists until its purge ends,
// so its rows are no orphans), and the warriors' records.
var trackerRules = func() []rule[trackerLedger] {
	var rs []rule[trackerLedger]
	for _, t := range keyedTables {
		rs = append(rs, rule[trackerLedger]{"no row of " + t + " belongs to a project that does not exist (projects)", []string{t}, false,
			func(l *trackerLedger) (int64, int64) { return 0, l.orphans[t] }})
	}
	return append(rs, rule[trackerLedger]{"every warrior record is well-formed", []string{"warriors"}, false,
		func(l *trackerLedger) (int64, int64) { return 0, l.warriors }},
		rule[trackerLedger]{"every text an admin entered is within its bound", []string{"blocks", "upload_targets", "projects", "settings", "auto_choice"}, false,
			func(l *trackerLedger) (int64, int64) { return 0, l.long }},
		rule[trackerLedger]{"every API token is well-formed: a SHA-256, a scope, a name of one line within its bound", []string{"api_tokens"}, false,
			func(l *trackerLedger) (int64, int64) { return 0, l.tokens }})
}()

func tracker(ctx context.Context, q *db.Queries) (Report, error) {
	var r Report
	l := &trackerLedger{orphans: map[string]int64{}}
	d, err := drivers.Of(ctx, q.DB())
	if err != nil {
		return r, err
	}
	rows, err := d.BooksOrphans(ctx, q)
	if err != nil {
		return r, fmt.Errorf("rows of no project: %w", err)
	}
	for _, row := range rows {
		l.orphans[row.TableName] = row.Projects
	}
	for _, t := range keyedTables {
		if _, ok := l.orphans[t]; !ok {
			return r, fmt.Errorf("rows of no project: %s is not read", t)
		}
	}
	if l.warriors, err = q.BooksWarriorsMalformed(ctx); err != nil {
		return r, fmt.Errorf("warriors: %w", err)
	}
	if l.long, err = longTexts(ctx, q); err != nil {
		return r, err
	}
	if l.tokens, err = q.BooksAPITokensMalformed(ctx, users.MaxTokenName); err != nil {
		return r, fmt.Errorf("API tokens: %w", err)
	}
	r.Balanced = true
	for _, rl := range trackerRules {
		c := rl.check(l)
		r.Checks = append(r.Checks, c)
		r.Balanced = r.Balanced && c.OK
	}
	return r, nil
}

// longTexts counts the rows holding a text an admin entered past its bound.
func longTexts(ctx context.Context, q *db.Queries) (int64, error) {
	blocks, err := q.BooksBlocksLong(ctx, db.BooksBlocksLongParams{MaxReason: projects.MaxBlockReason, MaxNick: projects.MaxBlockNick})
	if err != nil {
		return 0, fmt.Errorf("blocks: %w", err)
	}
	targets, err := q.BooksUploadTargetsLong(ctx, projects.MaxURL)
	if err != nil {
		return 0, fmt.Errorf("upload targets: %w", err)
	}
	ps, err := q.BooksProjectsLong(ctx, db.BooksProjectsLongParams{MaxTitle: projects.MaxTitle, MaxText: projects.MaxText,
		MaxUrl: projects.MaxURL, MaxHost: projects.MaxHost, MaxMinVersion: projects.MaxMinVersion, MaxListed: projects.MaxListed})
	if err != nil {
		return 0, fmt.Errorf("projects: %w", err)
	}
	settings, err := q.BooksSettingsLong(ctx, projects.MaxText)
	if err != nil {
		return 0, fmt.Errorf("settings: %w", err)
	}
	// The auto project's choice: its list is a setting, its reason made
	// of the list's notes.
	auto, err := q.BooksAutoChoiceLong(ctx, db.BooksAutoChoiceLongParams{MaxText: projects.MaxText,
		MaxSlug: projects.MaxSlug, MaxReason: projects.MaxAutoReason})
	if err != nil {
		return 0, fmt.Errorf("auto choice: %w", err)
	}
	return blocks + targets + ps + settings + auto, nil
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

// PolitenessOf checks the politeness of the project's sites. Only
// hand-outs count: a completion made without one (from the queue, by the
// item's last holder, or by an admin by hand) fetched nothing of the site
// when it was made.
func PolitenessOf(ctx context.Context, pool *pgxpool.Pool, p projects.Project) (Politeness, error) {
	var r Politeness
	err := pgx.BeginTxFunc(ctx, pool, snapshot, func(tx pgx.Tx) error {
		q := db.Of(tx)
		var err error
		r.UnderInterval, err = q.BooksSitesUnderInterval(ctx, db.BooksSitesUnderIntervalParams{
			ProjectID: p.ID, Interval: projects.Duration(p.Config.SiteInterval)})
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
