package db_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"tracker/db"
	"tracker/db/dbtest"
)

// The counters and the sites' counts are kept one way: a statement that
// moves items computes what it changed from the rows it moved and ends
// with the CTEs of db/fragments/counters_add.sql and sites_count.sql,
// which it includes (cmd/sqlinclude). Nothing
// else keeps them (no trigger: a distributed PostgreSQL refuses them on
// its tables), so a statement that moves items and lacks them would
// leave the books wrong.

// Statements that write todo or claims and change no counter: no item
// changes queue or state.
var movesNoCounter = map[string]string{
	"TodoRetype":     "regroups a queue's items by type",
	"TodoUnsite":     "takes the items out of their sites, in their queues",
	"TodoPurgeBatch": "the project is being deleted, its counters with it",
	// ClaimsPurgeBatch: as TodoPurgeBatch.
	"ClaimsPurgeBatch": "the project is being deleted, its counters with it",
}

// Statements that write todo or claims without the sites' CTEs, and why
// their sites stay counted.
var movesNoSiteCount = map[string]string{
	"ClaimsTakeSlots":  "the queue walks hand out items without a site (their type is not ':site')",
	"ClaimsReclaim":    "hands out again, in place, only claims without a site",
	"SitesTake":        "counts its sites in the one update of each it makes to pace them",
	"DoneRecordBatch":  "counts its sites in the one update of each it makes for their completions",
	"TodoRetype":       "never moves an item into the stretch ':site' or out of it",
	"TodoPurgeBatch":   "the project is being deleted, its sites with it",
	"ClaimsPurgeBatch": "the project is being deleted, its sites with it",
}

var (
	queryName = regexp.MustCompile(`(?m)^-- name: (\w+) :\w+$`)
	comment   = regexp.MustCompile(`--[^\n]*`)
	space     = regexp.MustCompile(`\s+`)
	paren     = regexp.MustCompile(` ?([()]) ?`)
	movesRows = regexp.MustCompile(`(?i)(INSERT INTO|DELETE FROM|UPDATE) (todo|claims)\b`)
)

// normal is a statement's text without comments, its spacing made one.
func normal(sql string) string {
	s := space.ReplaceAllString(comment.ReplaceAllString(sql, ""), " ")
	return strings.TrimSuffix(strings.TrimSpace(paren.ReplaceAllString(s, "$1")), ";")
}

// queries reads every named statement as sqlc reads it: db/expanded, the
// statements of db/queries with their fragments put in.
func queries(t *testing.T) map[string]string {
	t.Helper()
	files, err := filepath.Glob("expanded/*.sql")
	if err != nil || len(files) == 0 {
		t.Fatalf("no queries (%v)", err)
	}
	all := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		marks := queryName.FindAllStringSubmatchIndex(text, -1)
		for i, m := range marks {
			end := len(text)
			if i+1 < len(marks) {
				end = marks[i+1][0]
			}
			all[text[m[2]:m[3]]] = normal(text[m[1]:end])
		}
	}
	return all
}

// fragment is db/fragments/name.sql, as normal makes a statement.
func fragment(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("fragments", name+".sql"))
	if err != nil {
		t.Fatal(err)
	}
	return normal(string(b))
}

func TestCountsWrittenOnce(t *testing.T) {
	all := queries(t)
	counted := "counted AS(" + fragment(t, "counters_add") + ")"
	sitesCounted := fragment(t, "sites_count") + ")"

	moving := 0
	for name, sql := range all {
		if name == "CountersAdd" || name == "SitesCount" {
			if !strings.Contains(sql, fragment(t, "counters_add")) && !strings.Contains(sql, sitesCounted) {
				t.Errorf("%s is not its fragment's", name)
			}
			continue
		}
		if n, m := strings.Count(sql, "INSERT INTO counters"), strings.Count(sql, counted); n != m {
			t.Errorf("%s writes the counters other than the fragment counters_add does (%d writes, %d of them its)", name, n, m)
		}
		if !movesRows.MatchString(sql) {
			continue
		}
		moving++
		if _, exempt := movesNoCounter[name]; !exempt && !strings.Contains(sql, counted) {
			t.Errorf("%s moves items and does not count them with the fragment counters_add (as its CTE counted)", name)
		}
		if _, exempt := movesNoSiteCount[name]; !exempt && !strings.Contains(sql, sitesCounted) {
			t.Errorf("%s moves items and does not count their sites with the fragment sites_count", name)
		}
	}
	if moving < 15 {
		t.Errorf("%d statements move items: the pattern finds too few", moving)
	}
	for _, exempt := range []map[string]string{movesNoCounter, movesNoSiteCount} {
		for name := range exempt {
			if sql, ok := all[name]; !ok || !movesRows.MatchString(sql) {
				t.Errorf("%s is exempt but moves no items", name)
			}
		}
	}
}

// TestCountsAdd: CountersAdd and SitesCount, run as they are, add what
// they are given and nothing when it adds up to nothing; a site that got
// an item back is no longer at its limit, one handed out while it had
// nothing out is its holder's.
func TestCountsAdd(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.New(t)
	q := db.New(pool)
	p := dbtest.Project(t, pool, "counts", "Counts")
	if err := q.CountersAdd(ctx, db.CountersAddParams{ProjectID: p.ID, Names: []string{"b", "a", "b", "z"}, Deltas: []int64{2, 1, 3, 0}}); err != nil {
		t.Fatal(err)
	}
	if err := q.CountersAdd(ctx, db.CountersAddParams{ProjectID: p.ID, Names: []string{"a"}, Deltas: []int64{9223372036854775807}}); err != nil {
		t.Fatal(err)
	}
	got, err := q.CountersByProject(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Name != "a" || got[0].Value != 9223372036854775807 || got[1].Name != "b" || got[1].Value != 5 {
		t.Errorf("counters %+v, want a saturated and b 5 (and no z)", got)
	}

	if err := q.SitesAdd(ctx, db.SitesAddParams{ProjectID: p.ID, Names: []string{"a.example", "b.example"}}); err != nil {
		t.Fatal(err)
	}
	sites, err := q.SitesIDs(ctx, db.SitesIDsParams{ProjectID: p.ID, Names: []string{"a.example", "b.example"}})
	if err != nil || len(sites) != 2 {
		t.Fatalf("sites %v (%v)", sites, err)
	}
	ids := map[string]int32{sites[0].Name: sites[0].ID, sites[1].Name: sites[1].ID}
	a, b := ids["a.example"], ids["b.example"]
	dbtest.MustExec(t, pool, "UPDATE sites SET at_limit = true WHERE project_id = $1", p.ID)
	// a: 3 queued, 2 of them out to x; b: one out and back, one queued.
	if err := q.SitesCount(ctx, db.SitesCountParams{ProjectID: p.ID, Sites: []int32{a, a, b, b, b, 0},
		Queued: []int64{3, -2, 0, 0, 1, 5}, Outs: []int64{0, 2, 1, -1, 0, 1}, Holders: []string{"", "x", "y", "", "", "z"}}); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]struct {
		queued   int64
		out      int32
		atLimit  bool
		download string
	}{"a.example": {1, 2, true, "x"}, "b.example": {1, 0, true, ""}} {
		s, err := q.SiteGet(ctx, db.SiteGetParams{ProjectID: p.ID, Name: name})
		if err != nil {
			t.Fatal(err)
		}
		if s.Queued != want.queued || s.Out != want.out || s.AtLimit != want.atLimit || s.Downloader != want.download {
			t.Errorf("%s: queued %d, out %d, at limit %v, holder %q; want %+v", name, s.Queued, s.Out, s.AtLimit, s.Downloader, want)
		}
	}
	// An item of a comes back: a is under its limit again.
	if err := q.SitesCount(ctx, db.SitesCountParams{ProjectID: p.ID, Sites: []int32{a, a}, Queued: []int64{1, 0}, Outs: []int64{0, -1}, Holders: []string{}}); err != nil {
		t.Fatal(err)
	}
	s, err := q.SiteGet(ctx, db.SiteGetParams{ProjectID: p.ID, Name: "a.example"})
	if err != nil {
		t.Fatal(err)
	}
	if s.Queued != 2 || s.Out != 1 || s.AtLimit || s.Downloader != "x" {
		t.Errorf("a.example after an item came back: queued %d, out %d, at limit %v, holder %q", s.Queued, s.Out, s.AtLimit, s.Downloader)
	}
}
