package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"tracker/db/dbtest"
)

// A volunteer keeps a busy board open: the live stream sends the whole
// board once, then patches. After the board has lived through many of them
// at a laptop's width and a phone's, what the page shows is what
// stats.json says: the done count, every leader's items and share, the
// newest completion; and the page says that completions came faster than
// the live list shows them.
func TestBrowserBoardLivesOnPatches(t *testing.T) {
	t.Parallel()
	browser := chromium(t)
	dir := dataDir(t)
	s := serve(t, dir)
	cli(t, "", "project", "create", "busy", "--title", "Busy project", "--data-dir", dir)
	var names []string
	for i := range 20_000 {
		names = append(names, fmt.Sprintf("item:%d", i))
	}
	cli(t, strings.Join(names, "\n"), "items", "add", "busy", "--data-dir", dir)

	ctx := newBrowser(t, browser)
	for _, width := range []int64{1366, 390} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, 900), chromedp.Navigate(s.url+"/busy/"),
				chromedp.WaitVisible(chromedp.CSS(`[data-testid=done-count]`))); err != nil {
				t.Fatal(err)
			}
			stop := busy(s.url, "busy", 6)
			// The board lives: completions keep coming in, more each
			// second than the live list shows.
			start := doneOnPage(t, ctx)
			dbtest.EventuallyWithin(t, 30*time.Second, func() bool { return doneOnPage(t, ctx) > start+500 }, "the done count moving")
			waitText(t, ctx, `[data-testid=feed-skipped]`, 10*time.Second, func(s string) bool { return strings.HasPrefix(s, "Busy") })
			stop()
			// Quiet again: the page and stats.json agree.
			var page, want string
			dbtest.EventuallyWithin(t, 20*time.Second, func() bool {
				page, want = shownBoard(t, ctx), boardOf(t, s.url+"/busy/stats.json")
				return page == want
			}, "the page showing stats.json's board")
			if !strings.HasPrefix(textOf(t, ctx, `[data-testid=freshness]`), "Updated") {
				t.Errorf("the page is not live: %q", textOf(t, ctx, `[data-testid=freshness]`))
			}
			screenshot(t, ctx, fmt.Sprintf("board-patched-%d.png", width))
		})
	}
}

// busy runs n warriors requesting and completing items one by one until
// the returned function is called.
func busy(base, project string, n int) func() {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			nick := fmt.Sprintf("warrior%d", i)
			for ctx.Err() == nil {
				body := postCtx(ctx, base+"/"+project+"/request", `{"downloader":"`+nick+`"}`)
				var claim struct {
					Item string `json:"item_name"`
				}
				if json.Unmarshal([]byte(body), &claim) != nil || claim.Item == "" {
					continue
				}
				postCtx(ctx, base+"/"+project+"/done", fmt.Sprintf(`{"downloader":%q,"item":%q,"bytes":{"data":%d}}`, nick, claim.Item, 1000*(i+1)))
			}
		}()
	}
	return func() { cancel(); wg.Wait() }
}

func postCtx(ctx context.Context, url, body string) string {
	req, err := http.NewRequestWithContext(ctx, "POST", url, strings.NewReader(body))
	if err != nil {
		return ""
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

func doneOnPage(t *testing.T, ctx context.Context) int64 {
	t.Helper()
	var n int64
	fmt.Sscan(strings.ReplaceAll(textOf(t, ctx, `[data-testid=done-count]`), ",", ""), &n)
	return n
}

// shownBoard is what the page shows of a board: the done count, each
// leader's nick, items and share, the newest completion's nick and item.
func shownBoard(t *testing.T, ctx context.Context) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => {
		const rows = [...document.querySelectorAll("[data-testid=leaderboard] tr[data-testid=leader]")]
			.map((tr) => [tr.dataset.nick, tr.cells[2].textContent.replaceAll(",", ""), tr.cells[4].textContent].join(" "));
		const first = document.querySelector("[data-testid=feed] li");
		const newest = first ? first.querySelector(".who").textContent + " " + first.querySelector("code").textContent : "";
		return [document.querySelector("[data-testid=done-count]").textContent.replaceAll(",", ""), ...rows, newest].join("\n");
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// boardOf is stats.json's board as shownBoard reads the page.
func boardOf(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b struct {
		Totals struct {
			Done int64 `json:"done"`
		} `json:"totals"`
		Leaders []struct {
			Nick  string  `json:"nick"`
			Items int64   `json:"items"`
			Share float64 `json:"share"`
		} `json:"leaders"`
		Feed []struct {
			Downloader string `json:"downloader"`
			Item       string `json:"item"`
		} `json:"feed"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&b); err != nil {
		t.Fatal(err)
	}
	lines := []string{fmt.Sprint(b.Totals.Done)}
	for _, l := range b.Leaders {
		lines = append(lines, fmt.Sprintf("%s %d %.1f\u00a0%%", l.Nick, l.Items, l.Share*100))
	}
	newest := ""
	if len(b.Feed) > 0 {
		newest = b.Feed[0].Downloader + " " + b.Feed[0].Item
	}
	return strings.Join(append(lines, newest), "\n")
}

// An update writes on the board only what changed: a row whose numbers
// stand is left as it is (a write of the same text still lays the page
// out again, on every update, for every row of the board), while the row
// of the downloader who completed an item follows.
func TestBrowserBoardWritesOnlyWhatChanged(t *testing.T) {
	t.Parallel()
	browser := chromium(t)
	dir := dataDir(t)
	s := serve(t, dir)
	cli(t, "", "project", "create", "calm", "--data-dir", dir)
	cli(t, "item:1\nitem:2\nitem:3\nitem:4\nitem:5\nitem:6\n", "items", "add", "calm", "--data-dir", dir)
	complete := func(nick string, bytes int) {
		t.Helper()
		status, body := postQuietly(s.url+"/calm/request", `{"downloader":"`+nick+`"}`)
		var claim struct {
			Item string `json:"item_name"`
		}
		if status != 200 || json.Unmarshal([]byte(body), &claim) != nil || claim.Item == "" {
			t.Fatalf("request: %d %s", status, body)
		}
		if status, body := postQuietly(s.url+"/calm/done", fmt.Sprintf(`{"downloader":%q,"item":%q,"bytes":{"data":%d}}`, nick, claim.Item, bytes)); status != 200 {
			t.Fatalf("done: %d %s", status, body)
		}
	}
	complete("alice", 3_000_000)
	complete("bob", 2_000_000)
	complete("carol", 1_000_000)
	// The rollup has folded them all: the page comes with their lines.
	dbtest.EventuallyWithin(t, 30*time.Second, func() bool {
		resp, err := http.Get(s.url + "/calm/downloader/carol")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == 200
	}, "carol's page")

	ctx := newBrowser(t, browser)
	updates := func() int {
		return evaluate[int](t, ctx, `Number(document.querySelector(".board").dataset.updates || 0)`)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(s.url+"/calm/"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=leader]`))); err != nil {
		t.Fatal(err)
	}
	dbtest.EventuallyWithin(t, 30*time.Second, func() bool { return updates() >= 2 }, "two live updates")
	// From now on, every change to the rows is noted: the row's nick and
	// the column.
	evaluate[bool](t, ctx, `(() => {
		window.rowWrites = [];
		new MutationObserver((ms) => {
			for (const m of ms) {
				const node = m.target.nodeType === Node.TEXT_NODE ? m.target.parentElement : m.target;
				const td = node.closest("td"), tr = node.closest("tr");
				if (td && tr) window.rowWrites.push(tr.dataset.nick + " " + td.cellIndex);
			}
		}).observe(document.querySelector("tbody[data-live-leaders]"), { subtree: true, childList: true, characterData: true, attributes: true });
		return true;
	})()`)
	before := updates()
	complete("alice", 500_000)
	dbtest.EventuallyWithin(t, 30*time.Second, func() bool {
		return evaluate[string](t, ctx, `document.querySelector("tr[data-nick=alice]").cells[2].textContent`) == "2"
	}, "alice's second item on the page")
	dbtest.EventuallyWithin(t, 30*time.Second, func() bool { return updates() >= before+3 }, "three more live updates")

	writes := evaluate[[]string](t, ctx, `window.rowWrites`)
	wrote := map[string]bool{}
	for _, w := range writes {
		wrote[w] = true
	}
	// Alice's items and bytes were written; bob's and carol's rank,
	// items, bytes and version never were (their share of the bytes, and
	// how long ago they were last seen, do change).
	if !wrote["alice 2"] || !wrote["alice 3"] {
		t.Fatalf("alice's row was not updated: %q", writes)
	}
	for _, nick := range []string{"bob", "carol"} {
		for _, col := range []int{0, 1, 2, 3, 6} {
			if w := fmt.Sprintf("%s %d", nick, col); wrote[w] {
				t.Errorf("an update wrote %s's column %d, which did not change", nick, col)
			}
		}
	}
}
