package e2e

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"tracker/db"
	"tracker/db/dbtest"
	"tracker/pgcluster"
)

// seedBoard writes downloaders, their volunteers and queued items straight
// into the tables of project slug: the scale a board must hold at, without
// the hours it would take warriors to make it. The cluster is the data
// directory's, running or not.
func seedBoard(t *testing.T, dir, slug string, downloaders, queued int) {
	t.Helper()
	ctx := context.Background()
	c, err := pgcluster.Acquire(ctx, dir, pgcluster.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Release(context.Background()) })
	pool, err := db.Open(ctx, c.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	var id int32
	if err := pool.QueryRow(ctx, "SELECT id FROM projects WHERE slug = $1", slug).Scan(&id); err != nil {
		t.Fatal(err)
	}
	for _, s := range []struct {
		what, sql string
		args      []any
	}{
		{"seen", `INSERT INTO seen (project_id, hash, id) SELECT $1, item_hash($3 || ':' || g), g FROM generate_series(1, $2::int) g`, []any{id, queued, slug}},
		{"todo", `INSERT INTO todo (project_id, queue, id, name) SELECT $1, 'todo', g, $3 || ':' || g FROM generate_series(1, $2::int) g`, []any{id, queued, slug}},
		{"counters", `INSERT INTO counters (project_id, name, shard, value) VALUES ($1, 'queue:todo', 0, $2::bigint)
			ON CONFLICT (project_id, name, shard) DO UPDATE SET value = counters.value + excluded.value`, []any{id, queued}},
		// Seen over a day, a few hundred in the last 15 minutes; a GiB
		// to 5 TiB each.
		{"downloaders", `INSERT INTO downloaders (project_id, nick, items, bytes, version, first_seen, last_seen)
			SELECT $1, 'volunteer-' || g, 1 + g % 5000, (1 + g % 5000)::bigint * 1073741824, '20261122.01',
			       now() - interval '20 days', now() - (g % 86400) * interval '1 second'
			FROM generate_series(1, $2::int) g`, []any{id, downloaders}},
		{"done", `INSERT INTO counters (project_id, name, shard, value)
			SELECT $1, 'done', 0, sum(items) FROM downloaders WHERE project_id = $1
			UNION ALL SELECT $1, 'bytes', 0, sum(bytes) FROM downloaders WHERE project_id = $1
			ON CONFLICT (project_id, name, shard) DO UPDATE SET value = counters.value + excluded.value`, []any{id}},
		{"volunteers", `INSERT INTO volunteer_days (project_id, day, volunteers) VALUES ($1, current_date, $2)
			ON CONFLICT (project_id, day) DO UPDATE SET volunteers = excluded.volunteers`, []any{id, downloaders}},
	} {
		if _, err := pool.Exec(ctx, s.sql, s.args...); err != nil {
			t.Fatalf("seeding %s: %v", s.what, err)
		}
	}
}

// liveLoad has warriors claim and complete items of project slug until the
// test ends, each item of 64 GiB or more (a done may report up to 1 TiB an
// item), so that they climb the board past the seeded downloaders while it
// is watched.
func liveLoad(t *testing.T, s *server, slug string, warriors int) {
	t.Helper()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	t.Cleanup(func() { close(stop); wg.Wait() })
	for w := range warriors {
		wg.Add(1)
		go func() {
			defer wg.Done()
			nick := fmt.Sprintf("racer-%d", w)
			for {
				select {
				case <-stop:
					return
				default:
				}
				code, body := postQuietly(s.url+"/"+slug+"/request", `{"downloader":"`+nick+`","version":"20261122.01"}`)
				if code != 200 {
					continue // rate limits and the like: ask again
				}
				item := strings.TrimSuffix(strings.TrimPrefix(body, `{"item_name":"`), `"}`)
				postQuietly(s.url+"/"+slug+"/done", fmt.Sprintf(`{"downloader":%q,"version":"20261122.01","item":%q,"bytes":{"data":%d}}`,
					nick, item, int64(w+1)<<36))
			}
		}()
	}
}

// postQuietly is post for a goroutine of the test's: a failure is only
// an answer that is not 200.
func postQuietly(url, body string) (int, string) {
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		return 0, ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// overflowing lists the elements of the board's panels, tables and first
// screen whose content is wider than their box: a value cut off, or drawn
// over its neighbour. Those that cut their text on purpose, with an
// ellipsis (a nick, its whole in the title), are left out.
const overflowing = `(() => {
	const out = [];
	const boxes = document.querySelectorAll("header.project, .summary, .finders, .board-main, .panel, .panels, [data-testid=downloader-stats], [data-testid=neighbours]");
	for (const box of boxes) {
		for (const el of [box, ...box.querySelectorAll("*")]) {
			if (!(el instanceof HTMLElement) || el.closest(".visually-hidden")) continue;
			const cs = getComputedStyle(el);
			if (cs.display === "none" || cs.display === "inline" || cs.textOverflow === "ellipsis") continue;
			if (el.scrollWidth > el.clientWidth + 1) {
				const name = el.tagName.toLowerCase() + (el.className ? "." + String(el.className).trim().replace(/\s+/g, ".") : "") +
					(el.dataset.testid ? "[" + el.dataset.testid + "]" : "");
				out.push(name + " " + JSON.stringify(el.textContent.trim().replace(/\s+/g, " ").slice(0, 60)) + ": " + el.scrollWidth + " px in " + el.clientWidth);
			}
		}
	}
	return [...new Set(out)];
})()`

// A volunteer watches the boards of a project of 20,000 downloaders and of
// one under live load, at 390, 1366 and 1920 px, for several live updates:
// every row the pager promises stays there, ranked 1 to 100; no panel,
// table or cell hides a value; the first screen shows the totals, the
// ranking and the live log; the nick box leads to the downloader's page,
// with their rank and neighbours; a finished project is marked so on the
// home page (after those with work) and on its board; the home page and a
// downloader's page follow the work without a reload.
func TestBrowserBoardLived(t *testing.T) {
	t.Parallel()
	browser := chromium(t)
	dir := dataDir(t)
	cli(t, "", "project", "create", "big", "--title", "Twenty thousand downloaders", "--data-dir", dir)
	cli(t, "", "project", "create", "busy", "--title", "Under live load", "--data-dir", dir)
	cli(t, "", "project", "create", "over", "--title", "Finished long ago", "--data-dir", dir)
	cli(t, "", "project", "create", "quiet", "--title", "Paused for now", "--data-dir", dir)
	cli(t, "item:1\n", "items", "add", "quiet", "--data-dir", dir)
	cli(t, "", "project", "set", "over", "finished=true", "--data-dir", dir)
	cli(t, "", "project", "set", "quiet", "paused=true", "--data-dir", dir)
	// Enough queued that its one warrior never runs it dry, however fast
	// the machine: it is a project with work on the home page.
	seedBoard(t, dir, "big", 20000, 100000)
	seedBoard(t, dir, "busy", 300, 100000)
	s := serve(t, dir)
	t.Cleanup(func() { s.stop(t) })
	liveLoad(t, s, "busy", 4)
	liveLoad(t, s, "big", 1)

	ctx := newBrowser(t, browser)
	errs := consoleErrors(ctx)
	do := func(steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatal(err)
		}
	}
	for _, screen := range []struct {
		name          string
		width, height int64
	}{{"phone", 390, 844}, {"laptop", 1366, 768}, {"wide", 1920, 1080}} {
		for _, slug := range []string{"big", "busy"} {
			where := fmt.Sprintf("%s at %d px", slug, screen.width)
			do(chromedp.EmulateViewport(screen.width, screen.height), chromedp.Navigate(s.url+"/"+slug+"/"),
				chromedp.WaitVisible(chromedp.CSS(`[data-testid=leader]`)))
			// The page lives: several boards come in over the stream,
			// and under load the warriors climb into the first 25.
			dbtest.EventuallyWithin(t, time.Minute, func() bool {
				return evaluate[int](t, ctx, `Number(document.querySelector(".board").dataset.updates || 0)`) >= 4
			}, where+": four live updates")
			if slug == "busy" {
				dbtest.EventuallyWithin(t, time.Minute, func() bool {
					return evaluate[bool](t, ctx, `[...document.querySelectorAll("[data-testid=leader]")].slice(0, 25).some((r) => r.dataset.nick.startsWith("racer-"))`)
				}, where+": a warrior under load in the first 25 rows")
				n := evaluate[int](t, ctx, `Number(document.querySelector(".board").dataset.updates)`)
				dbtest.EventuallyWithin(t, time.Minute, func() bool {
					return evaluate[int](t, ctx, `Number(document.querySelector(".board").dataset.updates)`) >= n+2
				}, where+": two more live updates")
			}

			// Every row the pager promises: page 1 of many is 100 rows,
			// ranked 1 to 100, each downloader once.
			pager := textOf(t, ctx, `[data-testid=pager]`)
			if !strings.Contains(pager, "Page 1 of ") {
				t.Fatalf("%s: the pager says %q", where, pager)
			}
			ranks := evaluate[[]string](t, ctx, `[...document.querySelectorAll("[data-testid=leader]")].map((r) => r.cells[0].textContent.trim())`)
			nicks := evaluate[[]string](t, ctx, `[...document.querySelectorAll("[data-testid=leader]")].map((r) => r.dataset.nick)`)
			if len(ranks) != 100 {
				t.Errorf("%s: %d rows after live updates; the pager (%q) promises 100", where, len(ranks), pager)
			}
			seen := map[string]bool{}
			for i, r := range ranks {
				if r != fmt.Sprint(i+1) {
					t.Errorf("%s: row %d is ranked %q", where, i+1, r)
					break
				}
			}
			for _, n := range nicks {
				if seen[n] {
					t.Errorf("%s: %s has two rows", where, n)
				}
				seen[n] = true
			}

			// No value hidden or drawn over its neighbour, and the page
			// does not scroll sideways.
			for _, o := range evaluate[[]string](t, ctx, overflowing) {
				t.Errorf("%s: content wider than its box: %s", where, o)
			}
			if evaluate[bool](t, ctx, `document.scrollingElement.scrollWidth > innerWidth`) {
				t.Errorf("%s: the page scrolls sideways", where)
			}

			// The first screen: the totals in short, the start of the
			// ranking and of the live log are in it on a laptop; on a
			// phone the totals and the ranking are within two screens
			// (the live log follows the ranking).
			firstScreen := map[string]float64{`[data-testid=summary]`: 1, `[data-testid=leader]`: 1, `[data-testid=feed] li`: 1}
			if screen.name == "phone" {
				firstScreen = map[string]float64{`[data-testid=summary]`: 1, `[data-testid=leader]`: 2}
			}
			for sel, screens := range firstScreen {
				limit := screens * float64(screen.height)
				top := evaluate[float64](t, ctx, `(document.querySelector(`+fmt.Sprintf("%q", sel)+`)?.getBoundingClientRect().top ?? 1e9) + scrollY`)
				if top > limit-40 {
					t.Errorf("%s: %s starts %.0f px down, past the first %.0f px", where, sel, top, limit)
				}
			}
			if got := evaluate[string](t, ctx, `document.querySelector("[data-testid=cta]")?.textContent ?? ""`); !strings.Contains(got, "Run a warrior") {
				t.Errorf("%s: the call to run a warrior reads %q", where, got)
			}
			screenshot(t, ctx, fmt.Sprintf("board-%s-%s.png", slug, screen.name))
		}
	}

	// Project states: the finished project is marked, after those with
	// work and the paused one, and thanked; its board too, with no call
	// to run a warrior.
	do(chromedp.Navigate(s.url+"/"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=project]`)))
	order := evaluate[[]string](t, ctx, `[...document.querySelectorAll("[data-testid=project]")].map((c) => c.dataset.slug)`)
	if fmt.Sprint(order) != "[big busy quiet over]" {
		t.Errorf("home lists %v, want the projects with work, then the paused one, then the finished one", order)
	}
	if got := textOf(t, ctx, `[data-testid=project][data-slug=over] [data-testid=badge-finished]`); got != "finished" {
		t.Errorf("the finished project's badge on home: %q", got)
	}
	if n := evaluate[int](t, ctx, `document.querySelectorAll("[data-testid=project]:not([data-slug=over]) [data-testid=badge-finished]").length`); n != 0 {
		t.Errorf("%d projects not finished are marked finished", n)
	}
	if got := textOf(t, ctx, `[data-testid=project][data-slug=quiet] [data-testid=badge-paused]`); got != "paused" {
		t.Errorf("the paused project's badge on home: %q", got)
	}
	screenshot(t, ctx, "board-home-states.png")
	do(chromedp.Navigate(s.url+"/over/"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=badge-finished]`)))
	if got := textOf(t, ctx, `[data-testid=finished-note]`); !strings.Contains(got, "finished") || !strings.Contains(got, "Thank you") {
		t.Errorf("the finished board says %q", got)
	}
	if n := evaluate[int](t, ctx, `document.querySelectorAll("[data-testid=cta]").length`); n != 0 {
		t.Error("a finished project asks for warriors")
	}
	// The item box says it finds items; the nick box leads to the
	// downloader's page: their rank, and the three above and below.
	do(chromedp.EmulateViewport(1366, 768), chromedp.Navigate(s.url+"/big/"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=lookup-input]`)))
	if got := textOf(t, ctx, `label[for=item]`); !strings.Contains(got, "item") {
		t.Errorf("the item box is labelled %q", got)
	}
	if n := evaluate[int](t, ctx, `document.querySelectorAll("[data-testid=nick-input]").length`); n != 1 {
		t.Fatalf("%d nick boxes on the board", n)
	}
	do(chromedp.SendKeys(chromedp.CSS(`[data-testid=nick-input]`), "volunteer-12345"),
		chromedp.Submit(chromedp.CSS(`[data-testid=nick-input]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=downloader-stats]`)))
	if got := evaluate[string](t, ctx, `location.pathname`); got != "/big/downloader/volunteer-12345" {
		t.Errorf("the nick box led to %s", got)
	}
	rank := strings.TrimPrefix(textOf(t, ctx, `[data-testid=rank]`), "#")
	rows := evaluate[[]string](t, ctx, `[...document.querySelectorAll("[data-testid=neighbour]")].map((r) => r.cells[0].textContent.trim() + " " + r.dataset.nick + " " + r.getAttribute("aria-current"))`)
	if len(rows) != 7 || rows[3] != rank+" volunteer-12345 true" {
		t.Errorf("volunteer-12345, #%s, among %q", rank, rows)
	}
	for _, o := range evaluate[[]string](t, ctx, overflowing) {
		t.Errorf("downloader page: content wider than its box: %s", o)
	}
	screenshot(t, ctx, "board-downloader-neighbours.png")
	// A nick the project has not seen: a page that says so, and the box
	// to try again.
	do(chromedp.Navigate(s.url+"/big/"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=nick-input]`)),
		chromedp.SendKeys(chromedp.CSS(`[data-testid=nick-input]`), "Volunteer-12345"),
		chromedp.Submit(chromedp.CSS(`[data-testid=nick-input]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=unknown-downloader]`)))
	if status := evaluate[int](t, ctx, `performance.getEntriesByType("navigation")[0].responseStatus`); status != 404 {
		t.Errorf("an unknown nick's page: %d, want 404", status)
	}
	if n := evaluate[int](t, ctx, `document.querySelectorAll("[data-testid=nick-input]").length`); n != 1 {
		t.Errorf("an unknown nick's page has %d nick boxes", n)
	}

	// The home page and a downloader's page follow the tracker without
	// a reload.
	for _, page := range []struct{ path, sel string }{
		{"/", `[data-testid=project][data-slug=busy] [data-testid=home-done]`},
		{"/busy/downloader/racer-0", `[data-testid=items]`},
	} {
		do(chromedp.Navigate(s.url+page.path), chromedp.WaitVisible(chromedp.CSS(page.sel)),
			chromedp.Evaluate[chromedp.Void](`window.samePage = true`))
		// Read in one go: the part is swapped as a whole.
		text := `document.querySelector(` + fmt.Sprintf("%q", page.sel) + `)?.textContent.trim()`
		before := evaluate[string](t, ctx, text)
		dbtest.EventuallyWithin(t, time.Minute, func() bool { return evaluate[string](t, ctx, text) != before },
			page.path+": "+page.sel+" to change from "+before)
		if !evaluate[bool](t, ctx, `window.samePage === true`) {
			t.Errorf("%s was loaded again", page.path)
		}
	}

	for _, e := range errs() {
		// The unknown nick's page is a 404, which Chromium reports.
		if !strings.Contains(e, "/big/downloader/Volunteer-12345") {
			t.Errorf("console error: %s", e)
		}
	}
}
