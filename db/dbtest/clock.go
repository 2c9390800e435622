package dbtest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// The tracker's clock is the database's: every statement of the engine and
// the jobs reads now() there, so that processes sharing a database share one
// clock. A test does not wait for time to pass; it moves the rows instead,
// through the hooks below, and says so in the tracker's terms:
//
//	dbtest.Age(t, pool, time.Hour, dbtest.Claims(p.ID))           // the claims are an hour old
//	dbtest.Age(t, pool, 72*time.Hour, dbtest.Completions(p.ID))   // completed three days ago
//	dbtest.Due(t, pool, dbtest.Revisits(p.ID, "t:4"))             // t:4's visit is due
//
// Age and Due fail the test when a selection moves no row, or misses a row
// it names: a hook that silently moves nothing would make a test pass by
// accident. Pass is Age for a step that lets time pass over whatever there
// is (a model's "a day passes"), none included.

// T is what the hooks need of a test: a *testing.T or *testing.B, or a
// property test's *rapid.T (which is no testing.TB).
type T interface {
	Helper()
	Fatalf(format string, args ...any)
}

// Rows selects rows time moves for: those of one kind (claims,
// completions, sites, ...) of a project, or of the named items in it; or
// the tracker's own (warriors, a job). Make one with Claims,
// ExpiredClaims, Completions, CompletionsWithin, Revisits, Sites,
// BackfeedMinutes, SeriesMinutes, Warriors, Job or AutoChoice.
type Rows struct {
	what  string // what the rows are, for a failure's message
	table string
	times []string // the columns Age moves: every time the rows hold
	due   string   // the column Due sets; "" for rows never due
	// unit is what the times are whole multiples of (a minute bucket
	// stays a whole minute); 0 for any.
	unit  time.Duration
	conds []cond
	// key is the column names are matched on, and names the values a
	// selection must find, each at least once.
	key   string
	names []string
	// done: completions of project, which land in their day's partition.
	done    bool
	project int32
}

// cond is a condition of a selection, its argument written as ?.
type cond struct {
	sql string
	arg any
}

// projectRows are a project's rows of table, or those of the named items.
func projectRows(what, table string, project int32, times []string, names []string) Rows {
	r := Rows{what: fmt.Sprintf("%s of project %d", what, project), table: table, times: times,
		conds: []cond{{"project_id = ?", project}}, project: project}
	return r.named("name", names)
}

// named narrows r to the rows whose key is one of names (none: all).
func (r Rows) named(key string, names []string) Rows {
	if len(names) == 0 {
		return r
	}
	r.key = key
	r.names = slices.Compact(slices.Sorted(slices.Values(names)))
	r.what += fmt.Sprintf(" (%s)", strings.Join(r.names, ", "))
	r.conds = append(slices.Clip(r.conds), cond{key + " = ANY(?)", r.names})
	return r
}

// Claims are the project's claims (items out), or those of the named
// items; Age moves when they were made (claimed_at), so they expire as
// claims of that age do.
func Claims(project int32, names ...string) Rows {
	return projectRows("claims", "claims", project, []string{"claimed_at"}, names)
}

// ExpiredClaims are the project's records of claims that expired; Age
// moves when they were made and when they expired (claimed_at,
// expired_at), so they leave the window a downloader's expiries are
// counted over.
func ExpiredClaims(project int32) Rows {
	return projectRows("expired claims", "claim_expiries", project, []string{"claimed_at", "expired_at"}, nil)
}

// Completions are the project's completions (done), or those of the
// named items; Age moves when they were handed out and done (claimed_at,
// done_at). Each lands in the partition of its new day, made first when
// missing, as housekeeping made it when that day came: the archive job
// takes it once the day is over.
func Completions(project int32, names ...string) Rows {
	r := projectRows("completions", "done", project, []string{"claimed_at", "done_at"}, names)
	r.done = true
	return r
}

// CompletionsWithin are the project's completions done within the last d:
// those made since a model's last day passed.
func CompletionsWithin(project int32, d time.Duration) Rows {
	r := Completions(project)
	r.what = fmt.Sprintf("completions of project %d of the last %s", project, d)
	r.conds = append(slices.Clip(r.conds), cond{"done_at > now() - ?::interval", d})
	return r
}

// Revisits are the project's scheduled visits (mode=recurring), or those
// of the named items; Age and Due move when they are due (due_at).
func Revisits(project int32, names ...string) Rows {
	r := projectRows("revisits", "revisits", project, []string{"due_at"}, names)
	r.due = "due_at"
	return r
}

// Sites are the project's sites, or the named ones (a.example); Age moves
// when each is due and when it last handed out (due_at, last_at), Due only
// when it is due: the hand-outs keep their times.
func Sites(project int32, names ...string) Rows {
	r := projectRows("sites", "sites", project, []string{"due_at", "last_at"}, names)
	r.due = "due_at"
	return r
}

// BackfeedMinutes are the project's minute counts of new backfed items in
// shard (minute); they move by whole minutes.
func BackfeedMinutes(project int32, shard string) Rows {
	return Rows{what: fmt.Sprintf("backfeed minutes of project %d, shard %q", project, shard), table: "backfeed_minutes",
		times: []string{"minute"}, unit: time.Minute, conds: []cond{{"project_id = ?", project}, {"shard = ?", shard}}}
}

// SeriesMinutes are the minute buckets of the project's statistics series
// (minute); they move by whole minutes.
func SeriesMinutes(project int32) Rows {
	return Rows{what: fmt.Sprintf("series minutes of project %d", project), table: "series_minutes",
		times: []string{"minute"}, unit: time.Minute, conds: []cond{{"project_id = ?", project}}}
}

// Warriors are the records of the warriors of the given ids; Age moves
// when each was first and last seen (first_seen_at, last_seen_at).
func Warriors(ids ...string) Rows {
	r := Rows{what: "warriors", table: "warriors", times: []string{"first_seen_at", "last_seen_at"}}
	if len(ids) == 0 {
		return r
	}
	return r.named("id", ids)
}

// Job is the background job of that name; Due makes its next run due
// (next_run_at), Age moves that too.
func Job(name string) Rows {
	return Rows{what: "job " + name, table: "jobs", times: []string{"next_run_at"}, due: "next_run_at"}.named("name", []string{name})
}

// AutoChoice is the auto project's choice; Age moves when it was made
// (decided_at), so that a minute gone by it is made again.
func AutoChoice() Rows {
	return Rows{what: "auto project choice", table: "auto_choice", times: []string{"decided_at"}}
}

// where renders the selection's conditions, numbering their arguments
// after args.
func (r Rows) where(args []any) (string, []any) {
	if len(r.conds) == 0 {
		return "true", args
	}
	parts := make([]string, len(r.conds))
	for i, c := range r.conds {
		args = append(args, c.arg)
		parts[i] = strings.Replace(c.sql, "?", fmt.Sprintf("$%d", len(args)), 1)
	}
	return strings.Join(parts, " AND "), args
}

// Age lets d pass for the selected rows: every time they hold moves d into
// the past (see each kind for its columns), as if they were made d
// earlier. It fails the test when a selection moves no row, or misses a
// row it names.
func Age(t T, q Querier, d time.Duration, rows ...Rows) {
	t.Helper()
	for _, r := range rows {
		if n := age(t, q, d, r, true); n == 0 {
			t.Fatalf("age %s by %s: no rows", r.what, d)
		}
	}
}

// Pass lets d pass for the selected rows, as Age does, whichever there
// are: none is no failure. It is for a step that lets time pass over a
// project whose rows the test does not know one by one (the model's "a
// day passes"); a test that made the rows it moves uses Age.
func Pass(t T, q Querier, d time.Duration, rows ...Rows) {
	t.Helper()
	for _, r := range rows {
		age(t, q, d, r, false)
	}
}

// Due makes the selected rows due now: their due time (revisits, sites,
// a job) becomes the database's now(), which every later statement's
// clock has reached. It fails the test when a selection moves no row,
// misses a row it names, or is of rows never due.
func Due(t T, q Querier, rows ...Rows) {
	t.Helper()
	for _, r := range rows {
		if r.due == "" {
			t.Fatalf("due %s: they are never due", r.what)
		}
		found(t, q, r)
		where, args := r.where(nil)
		sql := fmt.Sprintf("UPDATE %s SET %s = now() WHERE %s", r.table, r.due, where)
		if n := exec(t, q, sql, args...); n == 0 {
			t.Fatalf("due %s: no rows", r.what)
		}
	}
}

// age moves r's times d into the past and returns how many rows moved;
// named rows must all be there when strict.
func age(t T, q Querier, d time.Duration, r Rows, strict bool) int64 {
	t.Helper()
	if d <= 0 {
		t.Fatalf("age %s by %s: time only moves on", r.what, d)
	}
	if r.unit > 0 && d%r.unit != 0 {
		t.Fatalf("age %s by %s: they move in steps of %s", r.what, d, r.unit)
	}
	if strict {
		found(t, q, r)
	}
	if r.done {
		ensureDays(t, q, d, r)
	}
	// In UTC: Citus updates a column with immutable functions only, and
	// subtracting an interval from a timestamptz depends on the zone.
	set := make([]string, len(r.times))
	for i, c := range r.times {
		set[i] = fmt.Sprintf("%s = (%s AT TIME ZONE 'UTC' - $1::interval) AT TIME ZONE 'UTC'", c, c)
	}
	where, args := r.where([]any{d})
	return exec(t, q, fmt.Sprintf("UPDATE %s SET %s WHERE %s", r.table, strings.Join(set, ", "), where), args...)
}

// exec is MustExec for a T.
func exec(t T, q Querier, sql string, args ...any) int64 {
	t.Helper()
	tag, err := q.Exec(context.Background(), sql, args...)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return tag.RowsAffected()
}

// found fails the test when a row r names is not there.
func found(t T, q Querier, r Rows) {
	t.Helper()
	if len(r.names) == 0 {
		return
	}
	where, args := r.where(nil)
	sql := fmt.Sprintf("SELECT count(DISTINCT %s) FROM %s WHERE %s", r.key, r.table, where)
	var n int
	if err := q.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	if n != len(r.names) {
		t.Fatalf("%s: %d of the %d named are there", r.what, n, len(r.names))
	}
}

// ensureDays makes the partitions of the days (UTC) completions r moved d
// back land on.
func ensureDays(t T, q Querier, d time.Duration, r Rows) {
	t.Helper()
	where, args := r.where([]any{d})
	sql := fmt.Sprintf(`SELECT count(*), min(day), max(day) FROM
		(SELECT (done_at AT TIME ZONE 'UTC' - $1::interval)::date AS day FROM done WHERE %s) moved`, where)
	var n int64
	var first, last *time.Time
	if err := q.QueryRow(context.Background(), sql, args...).Scan(&n, &first, &last); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	if n == 0 {
		return
	}
	exec(t, q, "SELECT done_partitions_ensure($1, $2::date, $3::date)", r.project, *first, *last)
}
