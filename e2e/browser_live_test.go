package e2e

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"tracker/db/dbtest"
)

// exactUTC is a time as the panel gives it exactly: to the second, in UTC.
var exactUTC = regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$`)

// setRate picks a refresh rate as the reader does: the choice, then its
// change event.
func setRate(seconds string) chromedp.Action[chromedp.Void] {
	return chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => {
		const s = document.querySelector("[data-live-rate]");
		s.value = %q;
		s.dispatchEvent(new Event("change"));
	})()`, seconds))
}

// claim hands an item of project shop to a warrior.
func claim(t *testing.T, s *server, nick string) {
	t.Helper()
	if code, body := post(t, s.url+"/shop/request", `{"downloader":"`+nick+`","version":"20261122.01"}`); code != 200 {
		t.Fatalf("request: %d %s", code, body)
	}
}

// An admin watches a project's overview: an item claimed by a warrior
// shows without a reload, the focus staying where it was; paused, the page
// stands still while the tracker moves on, and resumed it catches up at
// once. The rate chosen is remembered. A relative time shows its exact
// UTC time on focus and follows the clock.
func TestBrowserLiveAdmin(t *testing.T) {
	t.Parallel()
	s, ctx, do := adminSession(t)
	overview := s.url + "/admin/projects/shop/"
	do(chromedp.Navigate(overview), chromedp.WaitVisible(chromedp.CSS(`[data-testid=live-controls]:not([hidden])`)))
	if got := textOf(t, ctx, `[data-testid=live-rate]`); got == "" {
		t.Fatal("no refresh rate to choose")
	}
	do(setRate("2"), chromedp.Navigate(overview), chromedp.WaitVisible(chromedp.CSS(`[data-testid=live-controls]:not([hidden])`)))
	if got := evaluate[string](t, ctx, `document.querySelector("[data-live-rate]").value`); got != "2" {
		t.Fatalf("the rate chosen was not remembered: %q", got)
	}
	// Two changes for the recent changes' times.
	do(chromedp.Click(chromedp.CSS(`[data-testid=pause]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=resume]`)),
		chromedp.Click(chromedp.CSS(`[data-testid=resume]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=pause]`)))
	if got := textOf(t, ctx, `[data-testid=claims]`); got != "0" {
		t.Fatalf("claims on load: %q", got)
	}

	// A warrior claims an item: the numbers move, in the same page, and
	// the button that had the focus keeps it.
	do(chromedp.Focus(chromedp.CSS(`[data-testid=pause]`)), chromedp.Evaluate[chromedp.Void](`window.samePage = true`))
	claim(t, s, "alice")
	waitText(t, ctx, `[data-testid=claims]`, 10*time.Second, func(s string) bool { return s == "1" })
	if got := textOf(t, ctx, `[data-testid=queue-todo]`); got != "2" {
		t.Errorf("todo after the claim: %q", got)
	}
	if !evaluate[bool](t, ctx, `window.samePage === true`) {
		t.Fatal("the page was loaded again")
	}
	if got := evaluate[string](t, ctx, `document.activeElement.dataset.testid || document.activeElement.tagName`); got != "pause" {
		t.Errorf("after the refresh the focus is on %q", got)
	}
	screenshot(t, ctx, "admin-live-overview.png")

	// Paused, the page takes in nothing for three refresh periods of its
	// own clock while another item goes out; resumed, it shows it at once.
	do(chromedp.Click(chromedp.CSS(`[data-testid=live-pause]`)), chromedp.Evaluate[chromedp.Void](`window.pausedAt = Date.now()`))
	if got := evaluate[string](t, ctx, `document.querySelector("[data-live-pause]").getAttribute("aria-pressed")`); got != "true" {
		t.Fatalf("the pause button is pressed: %q", got)
	}
	waitText(t, ctx, `[data-testid=live-status]`, 2*time.Second, func(s string) bool { return s == "Paused." })
	refreshes := evaluate[string](t, ctx, `document.querySelector("[data-live-controls]").dataset.refreshes`)
	claim(t, s, "bob")

	// Meanwhile: a relative time shows its exact time on focus, and
	// follows the clock.
	const firstTime = `document.querySelector("[data-live-region=recent] time.rel")`
	if got := evaluate[string](t, ctx, `getComputedStyle(`+firstTime+`, "::after").content`); got != "none" {
		t.Errorf("unfocused, a time shows %s", got)
	}
	if tab := evaluate[int](t, ctx, firstTime+`.tabIndex`); tab != 0 {
		t.Errorf("a time's tabIndex is %d: not in the keyboard's order", tab)
	}
	do(chromedp.Focus(chromedp.CSS(`[data-live-region=recent] time.rel`)))
	title := evaluate[string](t, ctx, firstTime+`.title`)
	shown, err := strconv.Unquote(evaluate[string](t, ctx, `getComputedStyle(`+firstTime+`, "::after").content`))
	if err != nil || shown != title || !exactUTC.MatchString(shown) {
		t.Fatalf("focused, a time shows %q (%v), its title %q", shown, err, title)
	}
	at, err := time.Parse(time.RFC3339, evaluate[string](t, ctx, firstTime+`.dateTime`))
	if err != nil || at.UTC().Format("2006-01-02 15:04:05 UTC") != shown {
		t.Fatalf("the exact time %q is not its datetime %v (%v)", shown, at, err)
	}
	before := evaluate[string](t, ctx, firstTime+`.textContent`)
	if !strings.HasSuffix(before, " ago") && before != "just now" {
		t.Fatalf("a time reads %q", before)
	}
	screenshot(t, ctx, "admin-time-focus.png")
	dbtest.EventuallyWithin(t, 5*time.Second, func() bool { return evaluate[string](t, ctx, firstTime+`.textContent`) != before },
		"the relative time to follow the clock")

	dbtest.EventuallyWithin(t, 20*time.Second, func() bool { return evaluate[bool](t, ctx, `Date.now() - window.pausedAt > 6000`) },
		"three refresh periods to pass")
	if got := textOf(t, ctx, `[data-testid=claims]`); got != "1" {
		t.Fatalf("paused, the claims moved to %s", got)
	}
	if got := evaluate[string](t, ctx, `document.querySelector("[data-live-controls]").dataset.refreshes`); got != refreshes {
		t.Fatalf("paused, the page took in %s refreshes, not %s", got, refreshes)
	}
	// Resumed by a reader who prefers less motion: the numbers change
	// without a flash.
	do(chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		_, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-reduced-motion", Value: "reduce"}}})
		return err
	}))
	if !evaluate[bool](t, ctx, `matchMedia("(prefers-reduced-motion: reduce)").matches`) {
		t.Fatal("the page does not prefer reduced motion")
	}
	do(chromedp.Click(chromedp.CSS(`[data-testid=live-pause]`)))
	waitText(t, ctx, `[data-testid=claims]`, 5*time.Second, func(s string) bool { return s == "2" })
	if evaluate[bool](t, ctx, `document.querySelector("[data-testid=claims]").classList.contains("live-changed")`) {
		t.Error("a change flashes for a reader who prefers reduced motion")
	}

	// The claims page too: a new claim joins the list and the counts by
	// downloader in place.
	do(chromedp.Navigate(s.url+"/admin/projects/shop/claims"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=claims-list]`)),
		chromedp.Evaluate[chromedp.Void](`window.samePage = true`))
	if n := evaluate[int](t, ctx, `document.querySelectorAll("[data-testid=claim]").length`); n != 2 {
		t.Fatalf("%d claims listed, want 2", n)
	}
	claim(t, s, "carol")
	dbtest.EventuallyWithin(t, 10*time.Second, func() bool {
		return evaluate[int](t, ctx, `document.querySelectorAll("[data-testid=claim]").length`) == 3 &&
			evaluate[int](t, ctx, `document.querySelectorAll("[data-testid=claim-count]").length`) == 3
	}, "the third claim on the claims page")
	if !evaluate[bool](t, ctx, `window.samePage === true`) {
		t.Fatal("the claims page was loaded again")
	}
	screenshot(t, ctx, "admin-live-claims.png")
}

// A global admin runs a job now from the jobs page and sees it run, then
// turns it off: asked first, cancelled, then confirmed. Both are in the
// audit log.
func TestBrowserJobs(t *testing.T) {
	t.Parallel()
	s, ctx, do := adminSession(t)
	flash := func(want string) {
		t.Helper()
		do(chromedp.WaitVisible(chromedp.Search(fmt.Sprintf(`//*[@data-testid="flash"][contains(., %q)]`, want))))
	}
	const row = `[data-testid=job-housekeeping] `
	do(chromedp.Navigate(s.url+"/admin/jobs"), chromedp.WaitVisible(chromedp.CSS(row+`[data-testid=job-runs]`)), setRate("2"))
	// Housekeeping runs once when the tracker starts, then every hour.
	first := waitText(t, ctx, row+`[data-testid=job-runs]`, 30*time.Second, func(s string) bool { return s != "0" })
	runs, err := strconv.Atoi(first)
	if err != nil {
		t.Fatal(err)
	}
	do(chromedp.Click(chromedp.CSS(`[data-testid=run-housekeeping]`)))
	flash("housekeeping: a run is asked for")
	waitText(t, ctx, row+`[data-testid=job-runs]`, 10*time.Second, func(s string) bool { return s == strconv.Itoa(runs+1) })
	if got := textOf(t, ctx, row+`[data-testid=job-took]`); !regexp.MustCompile(`^(\d+ ms|\d\.\d s|\d+ s|\d+ min( \d+ s)?)$`).MatchString(got) {
		t.Errorf("the run took %q", got)
	}
	if got := textOf(t, ctx, row+`[data-testid=job-next-at]`); !strings.HasPrefix(got, "in ") {
		t.Errorf("next run %q", got)
	}
	screenshot(t, ctx, "admin-jobs.png")

	// Off: asked first, in red; Cancel changes nothing.
	do(chromedp.Click(chromedp.CSS(`[data-testid=disable-housekeeping]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=confirm-question]`)))
	if q := textOf(t, ctx, `[data-testid=confirm-question]`); !strings.Contains(q, "turns the housekeeping job off") {
		t.Fatalf("the confirmation asks %q", q)
	}
	if bg := evaluate[string](t, ctx, `getComputedStyle(document.querySelector("[data-testid=confirm]")).backgroundColor`); bg != red {
		t.Errorf("turning a job off: the button is %s, not red", bg)
	}
	screenshot(t, ctx, "admin-jobs-confirm.png")
	do(chromedp.Click(chromedp.CSS(`[data-testid=confirm-cancel]`)), chromedp.WaitVisible(chromedp.CSS(row+`[data-testid=job-runs]`)))
	if n := evaluate[int](t, ctx, `document.querySelectorAll("[data-testid=job-housekeeping] [data-testid=job-off]").length`); n != 0 {
		t.Fatal("cancelled, housekeeping is off")
	}
	do(chromedp.Click(chromedp.CSS(`[data-testid=disable-housekeeping]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=confirm]`)),
		chromedp.Click(chromedp.CSS(`[data-testid=confirm]`)))
	flash("housekeeping is off")
	do(chromedp.WaitVisible(chromedp.CSS(row + `[data-testid=job-off]`)))
	if got := textOf(t, ctx, row+`[data-testid=job-next]`); got != "off" {
		t.Errorf("next run of a job off: %q", got)
	}

	do(chromedp.Navigate(s.url+"/admin/audit"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=audit]`)))
	log := textOf(t, ctx, `[data-testid=audit]`)
	for _, want := range []string{"job.run", "job.disable", "job: housekeeping"} {
		if !strings.Contains(log, want) {
			t.Errorf("the audit log has no %q:\n%s", want, log)
		}
	}
}

// The controls of a page that refreshes itself are shown by its script:
// they keep their place until then, so showing them moves nothing of the
// page below (what Lighthouse counts as a layout shift), and without the
// script they are not seen.
func TestBrowserLiveControlsMoveNothing(t *testing.T) {
	t.Parallel()
	s, ctx, do := adminSession(t)
	overview := s.url + "/admin/projects/shop/"
	scripts := func(off bool) chromedp.Action[chromedp.Void] {
		return chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
			_, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: off})
			return err
		})
	}
	const below = `document.getElementById("monitor-h").getBoundingClientRect().top`
	for _, width := range []int64{390, 412, 1366} {
		do(chromedp.EmulateViewport(width, 900), scripts(false), chromedp.Navigate(overview),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid=live-controls]:not([hidden])`)))
		shown := evaluate[float64](t, ctx, below)
		do(scripts(true), chromedp.Navigate(overview), chromedp.WaitVisible(chromedp.CSS(`#monitor-h`)))
		if evaluate[bool](t, ctx, `(() => {
			const cs = getComputedStyle(document.querySelector("[data-live-controls]"));
			return cs.display !== "none" && cs.visibility !== "hidden";
		})()`) {
			t.Errorf("%d px: without the script, the controls are seen", width)
		}
		if before := evaluate[float64](t, ctx, below); before != shown {
			t.Errorf("%d px: showing the controls moves the page below from %v to %v px", width, before, shown)
		}
	}
	do(scripts(false))
}
