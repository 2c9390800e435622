package handlers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"tracker/db/dbtest"
	"tracker/users"
)

// autoWarrior is a warrior set to "auto" (ArchiveTeam's Choice) as seesaw
// runs it: at each update from its HQ it reads the projects file and runs
// what update_warrior_hq selects (seesawSelects).
type autoWarrior struct{ running string }

// update reads the projects file from f's server and the HQ's update.json
// (the same JSON), and returns the file's auto_project ("" for null) and
// what the warrior runs after it.
func (w *autoWarrior) update(t *testing.T, f fixture) (string, string) {
	t.Helper()
	file := f.do(t, "GET", "/projects.json", "")
	hq := f.do(t, "POST", "/api/update.json", `{"warrior":{"warrior_id":"w1","selected_project":"auto"}}`)
	if file.status != 200 || hq.status != 200 || file.body != hq.body {
		t.Fatalf("projects file %d, update.json %d: %q, %q", file.status, hq.status, file.body, hq.body)
	}
	// seesaw reads the key with `"auto_project" in data`: always there.
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(file.body), &raw); err != nil {
		t.Fatal(err)
	}
	if _, ok := raw["auto_project"]; !ok {
		t.Fatalf("no auto_project in %s", file.body)
	}
	var doc seesawFile
	if err := json.Unmarshal([]byte(file.body), &doc); err != nil {
		t.Fatal(err)
	}
	w.running = seesawSelects(doc, "auto", w.running)
	if doc.AutoProject == nil {
		return "", w.running
	}
	return *doc.AutoProject, w.running
}

// A minute passes for the choice of the auto project.
func (f fixture) minutePasses(t *testing.T) {
	t.Helper()
	dbtest.Age(t, f.pool, 61e9, dbtest.AutoChoice())
}

// ArchiveTeam's Choice follows the work: auto_project is a priority list,
// and the projects file names the first project of it that runs with
// items queued. Warriors on "auto" move when it runs dry and come back
// when it has refilled past auto_project_refill (not at its first item);
// a paused, finished or deleted project is passed over. The choice is the
// database's: made at most once a minute, and the same from every
// process. The settings page says which project is chosen and why.
func TestAutoProjectFollowsWork(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setup(t, "t:1", "t:2")
	other := f.second(t) // another process behind the same address
	second := f
	second.project = dbtest.Project(t, f.pool, "second", "Second")
	second.add(t, "todo", "s:1", "s:2", "s:3", "s:4", "s:5")
	third := f
	third.project = dbtest.Project(t, f.pool, "third", "Third")
	if _, err := f.store.SetSettings(ctx, []string{"auto_project=test, second third", "auto_project_refill=3"}); err != nil {
		t.Fatal(err)
	}
	w := &autoWarrior{}
	// Each step, the warrior updates twice: one whose project left the
	// list (finished, deleted) stops it at the first, and starts the auto
	// project at the second.
	step := func(what, want string) {
		t.Helper()
		w.update(t, f)
		auto, runs := w.update(t, f)
		if auto != want || runs != want {
			t.Fatalf("%s: auto_project %q, the warrior runs %q; want %q", what, auto, runs, want)
		}
		if auto, _ := (&autoWarrior{}).update(t, other); auto != want {
			t.Fatalf("%s: the other process names %q, want %q", what, auto, want)
		}
	}

	step("the first of the list with items", "test")
	// test runs dry: the choice stands for a minute.
	if got, a := f.request(t, "alice", 2); len(got) != 2 {
		t.Fatalf("alice got %v: %d %s", got, a.status, a.reason)
	}
	step("within the minute", "test")
	f.minutePasses(t)
	step("test ran dry", "second")

	// test refills: not taken back at its first item, nor below the
	// refill, but once it has 3 queued.
	f.add(t, "todo", "t:3")
	f.minutePasses(t)
	step("one item back in test", "second")
	f.add(t, "todo", "t:4")
	f.minutePasses(t)
	step("two items back in test", "second")
	f.add(t, "todo", "t:5")
	step("three items back in test, within the minute", "second")
	f.minutePasses(t)
	step("test refilled past auto_project_refill", "test")

	// Paused, it is passed over; resumed with its items, taken back.
	f.set(t, "paused=true")
	f.minutePasses(t)
	step("test paused", "second")
	f.set(t, "paused=false")
	f.minutePasses(t)
	step("test resumed", "test")

	// The settings page says which project and why.
	f.user(t, "root", users.RoleAdmin)
	c := f.adminClient(t)
	c.login(t, "root", "correct horse battery")
	f.set(t, "finished=true")
	f.minutePasses(t)
	page := c.get(t, "/admin/settings")
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(page.body))
	if err != nil {
		t.Fatal(err)
	}
	if chosen, reason := doc.Find(`[data-testid="auto-project-chosen"]`).Text(), doc.Find(`[data-testid="auto-project-reason"]`).Text(); chosen != "second" ||
		!strings.Contains(reason, "second has 5 items queued") || !strings.Contains(reason, "test (finished)") {
		t.Fatalf("settings page: chosen %q because %q", chosen, reason)
	}
	step("test finished", "second")

	// second deleted, test finished: third runs, with nothing queued
	// anywhere; warriors wait there for items.
	if err := f.store.MarkDeleting(ctx, second.project); err != nil {
		t.Fatal(err)
	}
	f.minutePasses(t)
	step("second deleted", "third")
	third.set(t, "finished=true")
	f.minutePasses(t)
	step("no project of the list runs", "")
	if page := c.get(t, "/admin/settings"); !strings.Contains(page.body, `data-testid="auto-project-warning"`) {
		t.Fatal("no warning when no project of the list runs")
	}
}

// A list names each project once, at most 20 of them, each a slug: the
// settings page refuses anything else and changes nothing.
func TestAutoProjectListRefused(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ctx := context.Background()
	if _, err := f.store.SetSettings(ctx, []string{"auto_project=test"}); err != nil {
		t.Fatal(err)
	}
	many := make([]string, 21)
	for i := range many {
		many[i] = fmt.Sprintf("p%d", i)
	}
	for _, list := range []string{"test, test", "test, Not A Slug", strings.Join(many, ",")} {
		if _, err := f.store.SetSettings(ctx, []string{"auto_project=" + list}); err == nil {
			t.Errorf("auto_project=%s taken", list)
		}
	}
	if s, err := f.store.Settings(ctx); err != nil || s.AutoProject != "test" {
		t.Fatalf("after refusals: %q %v", s.AutoProject, err)
	}
}

// With few items about: when the chosen project runs dry and only a
// project ahead of it has items, fewer than auto_project_refill, warriors
// go there rather than idle; with none queued anywhere they wait on the
// project chosen, which still runs, instead of being stopped by a null.
func TestAutoProjectWithFewItems(t *testing.T) {
	t.Parallel()
	f := setup(t)
	second := f
	second.project = dbtest.Project(t, f.pool, "second", "Second")
	second.add(t, "todo", "s:1", "s:2")
	if _, err := f.store.SetSettings(context.Background(), []string{"auto_project=test,second", "auto_project_refill=3"}); err != nil {
		t.Fatal(err)
	}
	w := &autoWarrior{}
	want := func(what, slug string) {
		t.Helper()
		if auto, runs := w.update(t, f); auto != slug || runs != slug {
			t.Fatalf("%s: auto_project %q, the warrior runs %q; want %q", what, auto, runs, slug)
		}
	}
	want("only second has items", "second")
	if a := f.do(t, "POST", "/second/request", `{"downloader":"alice"}`); a.status != 200 {
		t.Fatalf("request: %d %s", a.status, a.reason)
	}
	f.minutePasses(t)
	want("second still has an item", "second")
	if a := f.do(t, "POST", "/second/request", `{"downloader":"alice"}`); a.status != 200 {
		t.Fatalf("request: %d %s", a.status, a.reason)
	}
	f.minutePasses(t)
	want("nothing queued anywhere", "second")
	f.add(t, "todo", "t:1", "t:2")
	f.minutePasses(t)
	want("second dry, test ahead with fewer than the refill", "test")
}
