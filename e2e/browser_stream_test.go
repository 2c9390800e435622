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
