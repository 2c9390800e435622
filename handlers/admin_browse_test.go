package handlers_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"tracker/users"
)

// browsePage reads a page of the queue browser: the names listed and the
// pager's links.
type browsePage struct {
	names                   []string
	first, prev, next, last string
}

func (c *adminClient) browse(t *testing.T, path string) browsePage {
	t.Helper()
	a := c.get(t, path)
	if a.status != 200 {
		t.Fatalf("%s: %d %s %s", path, a.status, a.reason, a.body)
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(a.body))
	if err != nil {
		t.Fatal(err)
	}
	var p browsePage
	doc.Find(`[data-testid="browse-item"] code`).Each(func(_ int, s *goquery.Selection) { p.names = append(p.names, s.Text()) })
	p.first = doc.Find(`[data-testid="browse-first-top"]`).AttrOr("href", "")
	p.prev = doc.Find(`[data-testid="browse-prev-top"]`).AttrOr("href", "")
	p.next = doc.Find(`[data-testid="browse-next-top"]`).AttrOr("href", "")
	p.last = doc.Find(`[data-testid="browse-last-top"]`).AttrOr("href", "")
	return p
}

// The browser pages a queue by key, forward by its Next links to the end
// and back by its Previous links to the start: each item once, in order,
// no link past an end; Last is the end's page. Cursors and page sizes out
// of bounds are refused with their reason.
func TestAdminBrowsePaging(t *testing.T) {
	t.Parallel()
	var names []string
	for i := range 250 {
		names = append(names, fmt.Sprintf("%s:%03d", []string{"post", "user"}[i%2], i))
	}
	f := setup(t, names...)
	f.set(t, "type_limits=post:600") // two stretches of the queue, merged by id
	f.user(t, "root", users.RoleAdmin)
	c := f.adminClient(t)
	c.login(t, "root", "correct horse battery")

	var forward []string
	page := c.browse(t, "/admin/projects/test/browse?source=todo&per=100")
	if page.prev != "" || page.first != "" {
		t.Fatalf("the first page links back: %q %q", page.prev, page.first)
	}
	last := page.last
	for pages := 1; ; pages++ {
		forward = append(forward, page.names...)
		if page.next == "" {
			if pages != 3 {
				t.Fatalf("%d pages", pages)
			}
			break
		}
		page = c.browse(t, page.next)
		if page.prev == "" || page.first == "" {
			t.Fatal("a later page has no way back")
		}
	}
	if !slices.Equal(forward, names) {
		t.Fatalf("forward: %d names, in order: %v", len(forward), slices.Equal(forward, names))
	}
	if page.last != "" {
		t.Fatalf("the last page links to a last page: %q", page.last)
	}
	// Back from the end.
	page = c.browse(t, last)
	if !slices.Equal(page.names, names[150:]) || page.next != "" {
		t.Fatalf("last page: %d names from %v, next %q", len(page.names), page.names[:1], page.next)
	}
	var backward []string
	for page.prev != "" {
		page = c.browse(t, page.prev)
		backward = append(page.names, backward...)
	}
	if !slices.Equal(backward, names[:150]) {
		t.Fatalf("backward: %d names", len(backward))
	}
	// The claims are paged by their time and id.
	f.set(t, "max_multi=200")
	out, _ := f.request(t, "alice", 150)
	if len(out) <= 100 {
		t.Fatalf("claimed %d", len(out))
	}
	page = c.browse(t, "/admin/projects/test/browse?source=claims&per=100")
	if len(page.names) != 100 || !strings.Contains(page.next, "after=") {
		t.Fatalf("claims: %d, next %q", len(page.names), page.next)
	}
	if next := c.browse(t, page.next); len(next.names) != len(out)-100 || next.next != "" || slices.Contains(page.names, next.names[0]) {
		t.Fatalf("claims, second page: %d of %d", len(next.names), len(out))
	}

	for path, reason := range map[string]string{
		"/admin/projects/test/browse?per=0":                                    "bad-page-size",
		"/admin/projects/test/browse?per=501":                                  "bad-page-size",
		"/admin/projects/test/browse?after=abc":                                "bad-cursor",
		"/admin/projects/test/browse?source=claims&after=1.x":                  "bad-cursor",
		"/admin/projects/test/browse?after=5&before=9":                         "bad-cursor",
		"/admin/projects/test/browse?source=claims&after=-99999999999999999.1": "bad-cursor",
		"/admin/projects/test/browse?source=downloader:a%20b":                  "unknown-queue",
		"/admin/projects/test/browse?source=nowhere":                           "unknown-queue",
		"/admin/projects/test/browse?contains=((&regex=1":                      "bad-pattern",
		"/admin/projects/test/browse?contains=(%3F%3D.*a)x&regex=1":            "costly-pattern",
		"/admin/projects/test/browse?contains=(a)%5C1&regex=1&source=done":     "costly-pattern",
		"/admin/projects/test/item?find=x&from=todo&after=z.1":                 "bad-cursor",
	} {
		if a := c.get(t, path); a.status != http.StatusBadRequest || a.reason != reason {
			t.Errorf("%s: %d %q, want 400 %s", path, a.status, a.reason, reason)
		}
	}
	// A bad expression is shown beside the filter, to be put right.
	if a := c.get(t, "/admin/projects/test/browse?contains=((&regex=1"); !strings.Contains(a.body, "invalid pattern") ||
		!strings.Contains(a.body, `data-testid="browse-filter"`) {
		t.Errorf("bad pattern page: %s", a.body)
	}
}

// An action on a selection moves, drops, releases or queues again the
// items ticked and nothing else, once confirmed with their count; and a
// selection that is empty or names nothing there changes nothing.
func TestAdminBrowseSelection(t *testing.T) {
	t.Parallel()
	f := setup(t, "a:1", "a:2", "a:3", "a:4", "a:5", "b:1")
	f.add(t, "secondary", "s:1")
	f.user(t, "root", users.RoleAdmin)
	c := f.adminClient(t)
	c.login(t, "root", "correct horse battery")
	p := "/admin/projects/test/browse/"
	list := func(source string) []string { return c.browse(t, "/admin/projects/test/browse?source="+source).names }

	// Moved: the ticked names of the queue, not s:1 ticked though in
	// secondary, and the page comes back.
	form := url.Values{"source": {"todo"}, "to": {"redo"}, "name": {"a:2", "a:4", "s:1"}, "prefix": {"a:"}}
	a := c.confirmed(t, p+"move", form, "moves 2 items ticked from todo to redo")
	if a.status != http.StatusSeeOther || !strings.Contains(a.header.Get("Location"), "/browse?") ||
		!strings.Contains(a.header.Get("Location"), "prefix=a%3A") || !strings.Contains(c.flash(t, a), "Moved 2 items from todo to redo") {
		t.Fatalf("move: %d %s", a.status, a.header.Get("Location"))
	}
	if got := list("redo"); !slices.Equal(got, []string{"a:2", "a:4"}) {
		t.Fatalf("redo: %v", got)
	}
	if got := list("todo"); !slices.Equal(got, []string{"a:1", "a:3", "a:5", "b:1"}) {
		t.Fatalf("todo: %v", got)
	}
	if got := list("secondary"); !slices.Equal(got, []string{"s:1"}) {
		t.Fatalf("secondary: %v", got)
	}
	// Dropped.
	if a := c.confirmed(t, p+"drop", url.Values{"source": {"todo"}, "name": {"b:1"}, "confirm": {"todo"}}, "drops 1 items ticked from todo"); !strings.Contains(c.flash(t, a), "Dropped 1 items") {
		t.Fatalf("drop: %d", a.status)
	}
	if s := f.summary(t); s.Queues["todo"] != 3 || s.Queues["redo"] != 2 || s.Queues["secondary"] != 1 {
		t.Fatalf("after the drop: %v", s.Queues)
	}
	// Released: only the claim ticked.
	out, _ := f.request(t, "alice", 3)
	if a := c.confirmed(t, p+"release", url.Values{"source": {"claims"}, "name": {out[0], "s:1"}}, "releases 1 claims"); !strings.Contains(c.flash(t, a), "Released 1 claims") {
		t.Fatalf("release: %d", a.status)
	}
	if got := list("claims"); len(got) != 2 || slices.Contains(got, out[0]) {
		t.Fatalf("claims: %v", got)
	}
	// Done, then one queued again.
	f.done(t, "alice", out[1], out[2])
	if a := c.confirmed(t, p+"requeue", url.Values{"source": {"done"}, "queue": {"backfeed"}, "name": {out[2]}}, "queues 1 completed items"); !strings.Contains(c.flash(t, a), "Queued 1 completed items again in backfeed") {
		t.Fatalf("requeue: %d", a.status)
	}
	if got := list("backfeed"); !slices.Equal(got, []string{out[2]}) {
		t.Fatalf("backfeed: %v", got)
	}

	// Refused, with nothing changed: nothing ticked, names in no list,
	// a move to the same queue, claims moved as if a queue, a confirmed
	// form with too many names.
	before := f.summary(t)
	for _, bad := range []struct {
		action string
		form   url.Values
		reason string
	}{
		{"move", url.Values{"source": {"todo"}, "to": {"redo"}}, "nothing-selected"},
		{"move", url.Values{"source": {"todo"}, "to": {"redo"}, "name": {"never:1"}}, "nothing-left"},
		{"move", url.Values{"source": {"todo"}, "to": {"todo"}, "name": {"a:1"}}, "same-queue"},
		{"drop", url.Values{"source": {"claims"}, "name": {"a:1"}}, "not-a-queue"},
		{"requeue", url.Values{"source": {"todo"}, "name": {"a:1"}}, "not-requeued"},
		{"move", url.Values{"source": {"todo"}, "to": {"redo"}, "name": make([]string, 1001), "confirmed": {"1"}}, "too-many-selected"},
		{"move", url.Values{"source": {"nowhere"}, "to": {"redo"}, "name": {"a:1"}}, "unknown-queue"},
		{"move", url.Values{"source": {"todo"}, "to": {"bogus"}, "name": {"a:1"}}, "unknown-queue"},
		{"requeue", url.Values{"source": {"done"}, "queue": {"bogus"}, "name": {"a:1"}}, "unknown-queue"},
	} {
		a := c.post(t, p+bad.action, bad.form)
		if a.status != http.StatusBadRequest || a.reason != bad.reason {
			t.Errorf("%s %v: %d %q, want 400 %s", bad.action, bad.form, a.status, a.reason, bad.reason)
		}
	}
	if after := f.summary(t); !sameCounts(after.Queues, before.Queues) || after.Claims != before.Claims {
		t.Fatalf("a refused action changed %v into %v", before.Queues, after.Queues)
	}
}

func sameCounts(a, b map[string]int64) bool {
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return len(a) == len(b)
}

// An item's page tells its life: queued by an import, claimed and done
// with its bytes, moved by an admin (the audit entry naming it); and the
// finder lists items by the start of their names, a page at a time.
func TestAdminItemTimeline(t *testing.T) {
	t.Parallel()
	f := setup(t, "t:1", "t:2", "u:1")
	f.user(t, "root", users.RoleAdmin)
	c := f.adminClient(t)
	c.login(t, "root", "correct horse battery")
	c.confirmed(t, "/admin/projects/test/browse/move", url.Values{"source": {"todo"}, "to": {"secondary"}, "name": {"t:2"}}, "moves 1 items")
	out, _ := f.request(t, "alice", 1)
	f.done(t, "alice", out...)

	a := c.get(t, "/admin/projects/test/item?name=t:1")
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(a.body))
	if err != nil || a.status != 200 {
		t.Fatalf("%d %v", a.status, err)
	}
	if got := doc.Find(`[data-testid="item-status"]`).Text(); got != "done" {
		t.Fatalf("status %q", got)
	}
	var kinds []string
	doc.Find(`[data-testid="timeline"] > li`).Each(func(_ int, s *goquery.Selection) { kinds = append(kinds, s.AttrOr("data-testid", "")) })
	if !slices.Equal(kinds, []string{"event-queued", "event-done"}) {
		t.Fatalf("t:1's events: %v", kinds)
	}
	if done := doc.Find(`[data-testid="event-done"]`).Text(); !strings.Contains(done, "alice") || !strings.Contains(done, "100 B") {
		t.Fatalf("done event: %q", done)
	}
	// Its bytes by domain are a table, not a JSON object.
	if row := doc.Find(`[data-testid="event-done"] [data-testid="event-domains"] tbody tr`); row.Length() != 1 ||
		row.Find("td").First().Text() != "data" || row.Find("td").Last().Text() != "100 B" ||
		strings.Contains(doc.Find(`[data-testid="event-done"]`).Text(), `{"data"`) {
		t.Fatalf("bytes by domain: %q", doc.Find(`[data-testid="event-done"]`).Text())
	}
	if queued := doc.Find(`[data-testid="event-queued"]`).Text(); !strings.Contains(queued, "Queued in todo") || !strings.Contains(queued, "import") {
		t.Fatalf("queued event: %q", queued)
	}
	a = c.get(t, "/admin/projects/test/item?name=t:2")
	if !strings.Contains(a.body, `data-testid="event-audit"`) || !strings.Contains(a.body, "queue.move") {
		t.Fatalf("t:2 lacks its move: %s", a.body)
	}
	if a := c.get(t, "/admin/projects/test/item?name=never:1"); a.status != 200 || !strings.Contains(a.body, `data-testid="item-unknown"`) {
		t.Fatalf("unknown item: %d", a.status)
	}
	// The finder: t:2 queued in secondary, t:1 done; u:1 not.
	a = c.get(t, "/admin/projects/test/item?find=t:")
	doc, _ = goquery.NewDocumentFromReader(strings.NewReader(a.body))
	var found []string
	doc.Find(`[data-testid="find-result"]`).Each(func(_ int, s *goquery.Selection) {
		found = append(found, s.Find("td").First().Text()+" "+s.Find("td").Last().Text())
	})
	if !slices.Equal(found, []string{"t:2 queued in secondary", "t:1 done"}) {
		t.Fatalf("found %q", found)
	}
}
