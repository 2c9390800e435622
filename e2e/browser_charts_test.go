package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"tracker/db/dbtest"
)

// consoleErrors collects what the pages write to the console as errors,
// and uncaught exceptions: a page that works writes none.
func consoleErrors(ctx context.Context) func() []string {
	var mu sync.Mutex
	var errs []string
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.IsException() {
				mu.Lock()
				errs = append(errs, m.String()+" ("+m.URL+")")
				mu.Unlock()
			}
		}
	}()
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), errs...)
	}
}

// colorScheme makes the pages see the light or the dark scheme.
func colorScheme(scheme string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		_, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}})
		return err
	})
}

// work has nick claim and complete one item of demo with bytes.
func work(t *testing.T, s *server, nick string, bytes int) {
	t.Helper()
	code, body := post(t, s.url+"/demo/request", `{"downloader":"`+nick+`","version":"20261122.01"}`)
	if code != 200 {
		t.Fatalf("request: %d %s", code, body)
	}
	item := strings.TrimSuffix(strings.TrimPrefix(body, `{"item_name":"`), `"}`)
	if code, body := post(t, s.url+"/demo/done", fmt.Sprintf(`{"downloader":%q,"version":"20261122.01","item":%q,"bytes":{"data":%d}}`, nick, item, bytes)); code != 200 {
		t.Fatalf("done: %d %s", code, body)
	}
}

// A volunteer reads a leaderboard's charts and its short lists, on a
// desktop and on a 390-pixel phone, light and dark: the charts have
// titles and axes with units; a done shows on them without a reload; a
// click on a downloader's row, or its swatch from the keyboard, hides and
// shows their line; "Just done" shows 15 and opens to the rest; no page
// scrolls sideways on the phone, and none writes an error to the console.
func TestBrowserChartsAndPhone(t *testing.T) {
	t.Parallel()
	browser := chromium(t)
	dir := dataDir(t)
	s := serve(t, dir)
	cli(t, "", "project", "create", "demo", "--title", "Demo project", "--data-dir", dir)
	var names []string
	for i := range 80 {
		names = append(names, fmt.Sprintf("item:%d", i))
	}
	cli(t, strings.Join(names, "\n"), "items", "add", "demo", "--data-dir", dir)
	long := strings.Repeat("longnick", 8) // the longest nick there may be
	nicks := []string{long}
	for i := 1; i <= 11; i++ {
		nicks = append(nicks, fmt.Sprintf("nick%02d", i))
	}
	dones := 0
	for i, nick := range nicks {
		for range 1 + i%2 {
			work(t, s, nick, (20-i)*100_000)
			dones++
		}
	}
	// The rollup folds the dones into the series behind the charts.
	dbtest.EventuallyWithin(t, 30*time.Second, func() bool {
		resp, err := http.Get(s.url + "/demo/charts.json?span=all")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		var c struct {
			Lines struct{ Downloaders []json.RawMessage }
		}
		return json.NewDecoder(resp.Body).Decode(&c) == nil && len(c.Lines.Downloaders) == 10
	}, "the top downloaders' lines")

	ctx := newBrowser(t, browser)
	errs := consoleErrors(ctx)
	do := func(steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatal(err)
		}
	}
	do(chromedp.Navigate(s.url+"/demo/"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=chart-lines] path.line`)))

	// Titles, and axes with units.
	if got := textOf(t, ctx, `#chart-items h3`); got != "Items done per hour" {
		t.Errorf("items chart's title %q", got)
	}
	ys := evaluate[[]string](t, ctx, `[...document.querySelectorAll("#chart-items .y-axis .tick")].map(e => e.textContent)`)
	if len(ys) < 2 || ys[0] != "0/h" || !strings.HasSuffix(ys[len(ys)-1], "/h") {
		t.Errorf("items chart's y axis %q", ys)
	}
	if bs := evaluate[[]string](t, ctx, `[...document.querySelectorAll("#chart-bytes .y-axis .tick")].map(e => e.textContent)`); len(bs) < 2 || !strings.HasSuffix(bs[len(bs)-1], "iB/s") {
		t.Errorf("bytes chart's y axis %q", bs)
	}
	if xs := evaluate[[]string](t, ctx, `[...document.querySelectorAll("#chart-items .x-axis span")].map(e => e.textContent)`); len(xs) == 0 {
		t.Error("the items chart has no time axis")
	}
	if n := evaluate[int](t, ctx, `document.querySelectorAll("[data-testid=chart-lines] path.line").length`); n != 10 {
		t.Errorf("%d lines, want the first 10 downloaders'", n)
	}

	// A click on a row hides its line, another shows it again. Each
	// reads the charts again (the y axis fits the lines shown): the next
	// step waits until they are in, as a person sees the chart redrawn.
	lineOff := func(nick string) bool {
		t.Helper()
		return evaluate[bool](t, ctx, `document.querySelector('path[data-line="`+nick+`"]').classList.contains("off")`)
	}
	redrawn := func() {
		t.Helper()
		dbtest.EventuallyWithin(t, 30*time.Second, func() bool {
			return evaluate[bool](t, ctx, `document.querySelector("[data-charts-url]").getAttribute("aria-busy") !== "true"`)
		}, "the charts read again")
	}
	do(chromedp.Click(chromedp.CSS(`tr[data-nick="nick03"] td:nth-child(3)`)))
	redrawn()
	if !lineOff("nick03") || evaluate[string](t, ctx, `document.querySelector('tr[data-nick="nick03"] button.line-toggle').getAttribute("aria-pressed")`) != "false" {
		t.Error("a click on nick03's row left its line")
	}
	do(chromedp.Click(chromedp.CSS(`tr[data-nick="nick03"] td:nth-child(4)`)))
	redrawn()
	if lineOff("nick03") {
		t.Error("a second click on nick03's row did not bring its line back")
	}
	// From the keyboard: the row's swatch button, and the legend's.
	do(chromedp.Focus(chromedp.CSS(`tr[data-nick="nick04"] button.line-toggle`)), press("\r"))
	redrawn()
	if !lineOff("nick04") {
		t.Error("Enter on nick04's swatch left its line")
	}
	do(chromedp.Focus(chromedp.CSS(`li[data-line-nick="nick05"] button`)), press(" "))
	redrawn()
	if !lineOff("nick05") || evaluate[string](t, ctx, `document.querySelector('li[data-line-nick="nick05"] button').getAttribute("aria-pressed")`) != "false" {
		t.Error("Space on nick05's legend entry left its line")
	}
	do(chromedp.Click(chromedp.CSS(`li[data-line-nick="nick05"] button`)))
	redrawn()
	if lineOff("nick05") {
		t.Error("a click on nick05's legend entry did not bring its line back")
	}

	// "Just done": 15, then the rest behind "Show more".
	visible := `[...document.querySelectorAll("[data-testid=feed] li, [data-live-feed-more] li")].filter(li => li.checkVisibility()).length`
	if n := evaluate[int](t, ctx, visible); n != 15 {
		t.Errorf("just done shows %d", n)
	}
	do(chromedp.Click(chromedp.CSS(`[data-testid=feed-more-toggle]`)))
	if n := evaluate[int](t, ctx, visible); n != dones {
		t.Errorf("just done shows %d once opened, want %d", n, dones)
	}
	screenshot(t, ctx, "leaderboard-charts.png")

	// A done shows on the chart without a reload; the hidden line stays
	// hidden when the charts are read again.
	summary := textOf(t, ctx, `[data-testid=chart-items-summary]`)
	if !strings.HasPrefix(summary, fmt.Sprintf("%d items done", dones)) {
		t.Errorf("items summary %q, want %d items", summary, dones)
	}
	work(t, s, "nick01", 1000)
	// Read in one go (the charts are swapped in whole, between two steps
	// of chromedp's Text).
	dbtest.EventuallyWithin(t, 30*time.Second, func() bool {
		summary = evaluate[string](t, ctx, `document.querySelector("[data-testid=chart-items-summary]").textContent`)
		return strings.HasPrefix(summary, fmt.Sprintf("%d items done", dones+1))
	}, "the new done on the chart")
	if !lineOff("nick04") {
		t.Error("nick04's hidden line came back with the new charts")
	}
	// A reload keeps it hidden, and only it.
	do(chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`[data-testid=chart-lines] path.line`)))
	if !lineOff("nick04") || lineOff("nick03") || lineOff("nick05") {
		t.Errorf("after a reload: nick04's line hidden %v, nick03's %v, nick05's %v; want only nick04's", lineOff("nick04"), lineOff("nick03"), lineOff("nick05"))
	}

	// On a phone: nothing sideways, the four columns that matter, nicks on
	// one line (cut, whole in their title), rows of one height.
	noOverflow := func(page string) {
		t.Helper()
		if evaluate[bool](t, ctx, `document.scrollingElement.scrollWidth > window.innerWidth`) {
			t.Errorf("%s is wider than a 390-pixel phone: %d", page, evaluate[int](t, ctx, `document.scrollingElement.scrollWidth`))
		}
	}
	do(chromedp.EmulateViewport(390, 844), chromedp.Navigate(s.url+"/demo/"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=chart-items] svg`)))
	noOverflow("the leaderboard")
	if cols := evaluate[[]string](t, ctx, `[...document.querySelectorAll("table.leaders thead th")].filter(th => th.checkVisibility()).map(th => th.textContent)`); strings.Join(cols, ",") != "#,Downloader,Items,Bytes" {
		t.Errorf("columns on a phone %q", cols)
	}
	cell := `document.querySelector('tr[data-nick="` + long + `"] td.nick')`
	if !evaluate[bool](t, ctx, cell+`.scrollWidth > `+cell+`.clientWidth`) || evaluate[string](t, ctx, cell+`.querySelector("a").title`) != long {
		t.Error("the long nick is not cut with its whole in the title")
	}
	// (The first row is half a pixel shorter: the table's collapsed borders.)
	if spread := evaluate[float64](t, ctx, `(hs => Math.max(...hs) - Math.min(...hs))([...document.querySelectorAll("[data-testid=leader]")].map(tr => tr.getBoundingClientRect().height))`); spread > 1 {
		t.Errorf("rows' heights differ by %.1f px", spread)
	}
	screenshot(t, ctx, "leaderboard-phone-charts.png")
	for _, page := range []struct{ path, ready string }{{"/", "[data-testid=home-totals]"}, {"/warriors/", "[data-testid=warriors-map]"}} {
		do(chromedp.Navigate(s.url+page.path), chromedp.WaitVisible(chromedp.CSS(page.ready)))
		noOverflow(page.path)
	}
	screenshot(t, ctx, "warriors-phone.png")
	do(chromedp.Navigate(s.url + "/"))
	screenshot(t, ctx, "home-phone.png")

	// Dark, on the phone and on a desktop.
	do(colorScheme("dark"), chromedp.Navigate(s.url+"/demo/"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=chart-items] svg`)))
	if bg := evaluate[string](t, ctx, `getComputedStyle(document.documentElement).backgroundColor`); bg != "rgb(21, 22, 23)" {
		t.Errorf("dark background %q", bg)
	}
	noOverflow("the dark leaderboard")
	screenshot(t, ctx, "leaderboard-phone-dark.png")
	do(chromedp.EmulateViewport(1280, 900), chromedp.Navigate(s.url+"/demo/"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=chart-lines] path.line`)))
	screenshot(t, ctx, "leaderboard-dark.png")
	do(chromedp.Navigate(s.url+"/"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=home-totals]`)))
	screenshot(t, ctx, "home-dark.png")

	if e := errs(); len(e) > 0 {
		t.Errorf("console errors: %q", e)
	}
}
