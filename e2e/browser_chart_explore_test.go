package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"tracker/db/dbtest"
)

// A volunteer explores a board's charts, on a laptop and on a phone, while
// the board lives: the pointer over the items chart says the bucket's
// count; the chart's last bucket, under way, is drawn at the height of its
// completions, not as a drop to nothing; hiding the leader's line scales
// the lines' axis to the others; the span links switch the charts.
func TestBrowserChartsExplore(t *testing.T) {
	t.Parallel()
	browser := chromium(t)
	dir := dataDir(t)
	s := serve(t, dir)
	cli(t, "", "project", "create", "demo", "--title", "Demo project", "--data-dir", dir)
	var names []string
	for i := range 20_000 {
		names = append(names, fmt.Sprintf("item:%d", i))
	}
	cli(t, strings.Join(names, "\n"), "items", "add", "demo", "--data-dir", dir)
	for range 3 {
		work(t, s, "alice", 50_000_000)
	}
	work(t, s, "bob", 1000)
	dbtest.EventuallyWithin(t, 30*time.Second, func() bool {
		resp, err := http.Get(s.url + "/demo/charts.json?span=all")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		var c struct {
			Points []struct{ Items int64 }
			Lines  struct{ Downloaders []json.RawMessage }
		}
		if json.NewDecoder(resp.Body).Decode(&c) != nil || len(c.Lines.Downloaders) != 2 || len(c.Points) == 0 {
			return false
		}
		var sum int64
		for _, p := range c.Points {
			sum += p.Items
		}
		return sum == 4
	}, "the completions on the charts")
	// Warriors keep working while the volunteer looks.
	stop := busy(s.url, "demo", 2)
	t.Cleanup(stop)

	ctx := newBrowser(t, browser)
	errs := consoleErrors(ctx)
	t.Cleanup(func() {
		if e := errs(); len(e) > 0 {
			t.Errorf("console errors: %q", e)
		}
	})
	do := func(steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatal(err)
		}
	}
	for _, width := range []int64{1366, 390} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			do(chromedp.EmulateViewport(width, 900), chromedp.Navigate(s.url+"/demo/?span=all"),
				chromedp.WaitVisible(chromedp.CSS(`[data-testid=chart-lines] path.line`)))
			// Let the board live a few updates.
			waitText(t, ctx, `[data-testid=freshness]`, 10*time.Second, func(s string) bool { return strings.HasPrefix(s, "Updated") })

			// The pointer at the items chart's right edge: the last bucket.
			box := evaluate[[]float64](t, ctx, `(() => { const r = document.querySelector("#chart-items svg").getBoundingClientRect(); window.scrollTo(0, window.scrollY + r.top - 100); const b = document.querySelector("#chart-items svg").getBoundingClientRect(); return [b.right, b.top + b.height / 2]; })()`)
			do(chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, box[0]-2, box[1]))
			hover := waitText(t, ctx, `[data-testid=chart-items-hover]`, 5*time.Second, func(s string) bool { return s != "" })
			if !hoverValue.MatchString(hover) {
				t.Errorf("the hover value at the last bucket %q", hover)
			}
			// No drop at the end: the last step stands above the bottom.
			if drop := evaluate[bool](t, ctx, `(() => { const m = document.querySelector("#chart-items path.rate").getAttribute("d").match(/V([\d.]+)H1000\.0V300\.0Z$/); return !m || Number(m[1]) >= 300; })()`); drop {
				t.Error("the items chart drops to nothing at its end")
			}

			// Hiding alice's line scales the axis to bob's.
			top := func() string {
				return evaluate[string](t, ctx, `[...document.querySelectorAll("#chart-lines .y-axis .tick")].pop().textContent`)
			}
			withAlice := top()
			if !strings.Contains(withAlice, "MiB") {
				t.Fatalf("the lines' axis with alice's %q", withAlice)
			}
			activate(t, ctx, `li[data-line-nick="alice"] button`)
			dbtest.EventuallyWithin(t, 10*time.Second, func() bool {
				return top() != withAlice
			}, "the lines' axis fitting the others' lines")
			activate(t, ctx, `li[data-line-nick="alice"] button`)
			dbtest.EventuallyWithin(t, 10*time.Second, func() bool { return top() == withAlice }, "the lines' axis fitting alice's line again")
			screenshot(t, ctx, fmt.Sprintf("charts-explore-%d.png", width))

			// The span links switch the charts.
			activate(t, ctx, `nav[aria-label="Chart span"] a[href*="span=day"]`)
			do(chromedp.WaitVisible(chromedp.CSS(`nav[aria-label="Chart span"] a[href*="span=day"][aria-current=page]`)))
			if got := textOf(t, ctx, `[data-testid=chart-items-summary]`); !strings.Contains(got, "items done from") {
				t.Errorf("the day's items chart: %q", got)
			}
		})
	}
}

// hoverValue is what the pointer over a rate chart's last bucket reads.
var hoverValue = regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d UTC: [\d,]+ items? so far$`)

// activate activates the element as a click would. (A click at the element's
// place misses it in a viewport emulated wider than the window.)
func activate(t *testing.T, ctx context.Context, sel string) {
	t.Helper()
	if !evaluate[bool](t, ctx, `(() => { const e = document.querySelector(`+"`"+sel+"`"+`); if (!e) return false; e.click(); return true; })()`) {
		t.Fatalf("nothing to press at %s", sel)
	}
}
