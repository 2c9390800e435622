package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// red is the background of a destructive action's button (--danger, the
// light scheme headless Chromium shows).
const red = "rgb(179, 38, 30)"

// adminSession starts a tracker with project shop (item:1 to item:3
// queued) and its global admin root, and signs root in in a new browser.
func adminSession(t *testing.T) (*server, context.Context, func(...chromedp.Action[chromedp.Void])) {
	t.Helper()
	browser := chromium(t)
	dir := dataDir(t)
	s := serve(t, dir)
	t.Cleanup(func() { s.stop(t) })
	cliEnv(t, env("TRACKER_PASSWORD=correct horse battery"), "", "admin", "create", "root", "--data-dir", dir)
	cli(t, "", "project", "create", "shop", "--title", "Closing shop", "--data-dir", dir)
	cli(t, "item:1\nitem:2\nitem:3\n", "items", "add", "shop", "--data-dir", dir)
	ctx := newBrowser(t, browser)
	do := func(steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatal(err)
		}
	}
	do(chromedp.Navigate(s.url+"/admin/login"), chromedp.WaitVisible(chromedp.CSS(`#username`)),
		chromedp.SendKeys(chromedp.CSS(`#username`), "root"), chromedp.SendKeys(chromedp.CSS(`#password`), "correct horse battery"),
		chromedp.Submit(chromedp.CSS(`#password`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=admin-user]`)))
	return s, ctx, do
}

// evaluate runs an expression in the page and returns its value.
func evaluate[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return v
}

// press types keys as a keyboard does: each key down carries its
// character, so a page that takes the key down (preventDefault) types
// nothing, then the key comes up. (chromedp.KeyEvent sends the character
// as an event apart, which no page can hold back.)
func press(keys string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		for _, r := range keys {
			events := kb.Encode(r) // key down, the character if printable, key up
			down, up := *events[0], *events[len(events)-1]
			if len(events) == 3 {
				down.Text, down.UnmodifiedText = events[1].Text, events[1].UnmodifiedText
			}
			for _, e := range []input.DispatchKeyEventParams{down, up} {
				if _, err := chromedp.Call(ctx, input.DispatchKeyEvent, e); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// An admin's destructive clicks are asked about, by name and count, on a
// page of their own (no script needed): one not confirmed (Cancel, or the
// slug typed wrong) changes nothing, one confirmed does it. Only their
// buttons are red; a move's confirmation is not.
func TestBrowserConfirmations(t *testing.T) {
	t.Parallel()
	s, ctx, do := adminSession(t)
	flash := func(want string) {
		t.Helper()
		do(chromedp.WaitVisible(chromedp.Search(fmt.Sprintf(`//*[@data-testid="flash"][contains(., %q)]`, want))))
	}
	asked := func(want ...string) {
		t.Helper()
		do(chromedp.WaitVisible(chromedp.CSS(`[data-testid=confirm-question]`)))
		q := textOf(t, ctx, `[data-testid=confirm-question]`)
		for _, w := range want {
			if !strings.Contains(q, w) {
				t.Fatalf("the confirmation says %q, not %q", q, w)
			}
		}
		if bg := evaluate[string](t, ctx, `getComputedStyle(document.querySelector("[data-testid=confirm]")).backgroundColor`); bg != red {
			t.Errorf("a destructive action's button is %s, not red", bg)
		}
	}
	section := func(name string) {
		t.Helper()
		do(chromedp.Navigate(s.url+"/admin/projects/shop/"+name), chromedp.WaitVisible(chromedp.CSS(`nav.tabs`)))
	}

	// A new backfeed key: cancelled, then typed wrong, then done.
	section("feeds")
	oldURL := textOf(t, ctx, `[data-testid=backfeed-url]`)
	do(chromedp.Click(chromedp.CSS(`[data-testid=rotate-key]`)))
	asked("replaces the backfeed key of shop", "Every running grab script", "stops working")
	screenshot(t, ctx, "admin-confirm-backfeed-key.png")
	do(chromedp.Click(chromedp.CSS(`[data-testid=confirm-cancel]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=backfeed-url]`)))
	if got := textOf(t, ctx, `[data-testid=backfeed-url]`); got != oldURL {
		t.Fatalf("cancelled, the backfeed URL changed: %s", got)
	}
	do(chromedp.Click(chromedp.CSS(`[data-testid=rotate-key]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=confirm-typed]`)),
		chromedp.SendKeys(chromedp.CSS(`[data-testid=confirm-typed]`), "shpo"), chromedp.Click(chromedp.CSS(`[data-testid=confirm]`)),
		chromedp.WaitVisible(chromedp.Search(`//*[@data-testid="form-error"][contains(., "Type shop exactly")]`)))
	section("feeds")
	if got := textOf(t, ctx, `[data-testid=backfeed-url]`); got != oldURL {
		t.Fatalf("typed wrong, the backfeed URL changed: %s", got)
	}
	do(chromedp.Click(chromedp.CSS(`[data-testid=rotate-key]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=confirm-typed]`)),
		chromedp.SendKeys(chromedp.CSS(`[data-testid=confirm-typed]`), "shop"), chromedp.Click(chromedp.CSS(`[data-testid=confirm]`)))
	flash("New backfeed key")
	if got := textOf(t, ctx, `[data-testid=backfeed-url]`); got == oldURL {
		t.Fatal("confirmed, the backfeed URL stayed")
	}
	if code, _ := post(t, oldURL, "item:4"); code == 200 {
		t.Fatal("the old backfeed URL still works")
	}

	// A move is asked about too, but is no danger.
	section("queues")
	do(chromedp.SetValue(chromedp.CSS(`#move-to`), "secondary"), chromedp.SendKeys(chromedp.CSS(`#move-prefix`), "item:3"),
		chromedp.Click(chromedp.CSS(`[data-testid=move]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=confirm-question]`)))
	if bg := evaluate[string](t, ctx, `getComputedStyle(document.querySelector("[data-testid=confirm]")).backgroundColor`); bg == red {
		t.Error("a move's confirmation is red")
	}
	do(chromedp.Click(chromedp.CSS(`[data-testid=confirm]`)))
	flash("Moved 1 items")

	// An item marked done by hand.
	itemStatus := func() string {
		t.Helper()
		do(chromedp.Navigate(s.url+"/admin/projects/shop/?item=item:1"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=admin-item-status]`)))
		return textOf(t, ctx, `[data-testid=admin-item-status]`)
	}
	if got := itemStatus(); got != "todo" {
		t.Fatalf("item:1 is %s", got)
	}
	do(chromedp.Click(chromedp.CSS(`[data-testid=item-done]`)))
	asked("marks the item item:1", "queued in todo")
	do(chromedp.Click(chromedp.CSS(`[data-testid=confirm-cancel]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=admin-item-status]`)))
	if got := itemStatus(); got != "todo" {
		t.Fatalf("cancelled, item:1 is %s", got)
	}
	do(chromedp.Click(chromedp.CSS(`[data-testid=item-done]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=confirm]`)),
		chromedp.Click(chromedp.CSS(`[data-testid=confirm]`)))
	flash("item:1: done done.")
	if got := itemStatus(); got != "done" {
		t.Fatalf("confirmed, item:1 is %s", got)
	}

	// A block lifted: the confirmation says whose it is; the table says
	// who set it and when.
	section("limits")
	do(chromedp.SendKeys(chromedp.CSS(`#block-value`), "spammer"), chromedp.SendKeys(chromedp.CSS(`#block-reason`), "bad data"),
		chromedp.Click(chromedp.CSS(`[data-testid=block-add]`)))
	flash("Block add: nick spammer.")
	if got := textOf(t, ctx, `[data-testid=block-by]`); got != "root" {
		t.Errorf("block set by %q", got)
	}
	if got, title := textOf(t, ctx, `[data-testid=block-since]`), evaluate[string](t, ctx, `document.querySelector("[data-testid=block-since]").title`); !strings.HasSuffix(got, " ago") && got != "just now" || !strings.HasSuffix(title, " UTC") {
		t.Errorf("block since %q (%q)", got, title)
	}
	screenshot(t, ctx, "admin-blocks.png")
	do(chromedp.Click(chromedp.CSS(`[data-testid="lift-spammer"]`)))
	asked("lifts the block of the nick spammer", "set by root", "bad data")
	do(chromedp.Click(chromedp.CSS(`[data-testid=confirm-cancel]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=blocks]`)))
	if n := evaluate[int](t, ctx, `document.querySelectorAll("[data-testid=block]").length`); n != 1 {
		t.Fatalf("cancelled, %d blocks", n)
	}
	do(chromedp.Click(chromedp.CSS(`[data-testid="lift-spammer"]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=confirm]`)),
		chromedp.Click(chromedp.CSS(`[data-testid=confirm]`)))
	flash("Block remove: nick spammer.")
	if n := evaluate[int](t, ctx, `document.querySelectorAll("[data-testid=block]").length`); n != 0 {
		t.Fatalf("lifted, %d blocks", n)
	}

	// An upload target removed.
	section("warriors")
	do(chromedp.SendKeys(chromedp.CSS(`#target-url`), "rsync://up.example/shop/:downloader/"), chromedp.Submit(chromedp.CSS(`#target-url`)))
	flash("Upload target added")
	do(chromedp.Click(chromedp.CSS(`[data-testid=target-remove]`)))
	asked("removes the upload target rsync://up.example/shop/:downloader/", "No other target is on")
	do(chromedp.Click(chromedp.CSS(`[data-testid=confirm-cancel]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=targets]`)))
	if got := textOf(t, ctx, `[data-testid=targets] tbody`); !strings.Contains(got, "up.example") {
		t.Fatalf("cancelled, the target is gone: %q", got)
	}
	do(chromedp.Click(chromedp.CSS(`[data-testid=target-remove]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=confirm]`)),
		chromedp.Click(chromedp.CSS(`[data-testid=confirm]`)))
	flash("Upload target removed")

	// A role changed.
	do(chromedp.Navigate(s.url+"/admin/users"), chromedp.WaitVisible(chromedp.CSS(`#new-username`)),
		chromedp.SendKeys(chromedp.CSS(`#new-username`), "helper"), chromedp.SendKeys(chromedp.CSS(`#new-password`), "another long secret"),
		chromedp.Submit(chromedp.CSS(`#new-username`)))
	flash("Created helper.")
	role := func() string {
		t.Helper()
		return evaluate[string](t, ctx, `[...document.querySelectorAll("[data-testid=admin-user-row]")].find(r => r.cells[0].textContent === "helper").querySelector("[data-testid=user-role]").textContent`)
	}
	if got := role(); got != "project admin" {
		t.Fatalf("helper is %q", got)
	}
	setRole := chromedp.Evaluate[chromedp.Void](`(() => {
		const row = [...document.querySelectorAll("[data-testid=admin-user-row]")].find(r => r.cells[0].textContent === "helper");
		row.querySelector("select[name=role]").value = "admin";
		row.querySelector("[data-testid=set-role-helper]").click();
	})()`)
	do(setRole)
	asked("makes helper a global admin")
	screenshot(t, ctx, "admin-confirm-role.png")
	do(chromedp.Click(chromedp.CSS(`[data-testid=confirm-cancel]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=admin-users]`)))
	if got := role(); got != "project admin" {
		t.Fatalf("cancelled, helper is %q", got)
	}
	do(setRole, chromedp.WaitVisible(chromedp.CSS(`[data-testid=confirm]`)), chromedp.Click(chromedp.CSS(`[data-testid=confirm]`)))
	flash("helper: role done.")
	if got := role(); got != "global admin" {
		t.Fatalf("confirmed, helper is %q", got)
	}
	screenshot(t, ctx, "admin-users.png")

	// The audit log tells each change as it was, and no cancelled one.
	do(chromedp.Navigate(s.url+"/admin/audit"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=audit]`)))
	log := textOf(t, ctx, `[data-testid=audit]`)
	for action, want := range map[string]int{"project.backfeed_key": 1, "item.done": 1, "block.remove": 1, "target.remove": 1, "user.role": 1} {
		if n := strings.Count(log, action); n != want {
			t.Errorf("the audit log has %d %s, want %d", n, action, want)
		}
	}
	if !strings.Contains(log, "role: admin") {
		t.Errorf("the audit log does not say the new role:\n%s", log)
	}
	screenshot(t, ctx, "admin-audit-readable.png")
}

// One bar leads through the admin panel; "/" goes to the page's search box
// and "?" lists the shortcuts, on the public pages and in the panel; keys
// typed into a field are the field's.
func TestBrowserNavigationAndShortcuts(t *testing.T) {
	t.Parallel()
	s, ctx, do := adminSession(t)
	active := func() string {
		t.Helper()
		return evaluate[string](t, ctx, `document.activeElement ? (document.activeElement.id || document.activeElement.tagName) : ""`)
	}
	listOpen := func() bool {
		t.Helper()
		return evaluate[bool](t, ctx, `document.getElementById("shortcuts").open`)
	}

	// The panel: one bar, one link to its projects.
	do(chromedp.Navigate(s.url+"/admin/projects/shop/claims"), chromedp.WaitVisible(chromedp.CSS(`nav.tabs`)))
	if n := evaluate[int](t, ctx, `document.querySelectorAll("header").length`); n != 1 {
		t.Errorf("%d bars on an admin page", n)
	}
	if n := evaluate[int](t, ctx, `[...document.querySelectorAll("a")].filter(a => a.textContent.trim() === "Projects").length`); n != 1 {
		t.Errorf("%d links named Projects", n)
	}
	screenshot(t, ctx, "admin-claims-nav.png")

	// The overview's item lookup is its search box.
	do(chromedp.Navigate(s.url+"/admin/projects/shop/"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=admin-item-input]`)),
		press("/"))
	if got := active(); got != "item-name" {
		t.Fatalf("after /, the focus is on %q", got)
	}
	// Typed into the box, "/" and "?" are text.
	do(press("a/b?"))
	if got, _ := chromedp.Run(ctx, chromedp.Value(chromedp.CSS(`#item-name`))); got != "a/b?" || listOpen() {
		t.Fatalf("typed into the box: %q, list open %v", got, listOpen())
	}
	do(press("\x1b")) // Esc leaves the box
	if got := active(); got == "item-name" {
		t.Fatal("Esc did not leave the search box")
	}
	do(press("?"))
	if !listOpen() {
		t.Fatal("? did not show the shortcuts")
	}
	if got := textOf(t, ctx, `[data-testid=shortcuts]`); !strings.Contains(got, "search box") {
		t.Errorf("the shortcuts: %q", got)
	}
	screenshot(t, ctx, "shortcuts.png")
	do(press("\x1b"))
	if listOpen() {
		t.Fatal("Esc did not close the shortcuts")
	}

	// The audit log: its filter is the search.
	do(chromedp.Navigate(s.url+"/admin/audit"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=audit]`)), press("/"))
	if got := active(); got != "project" {
		t.Fatalf("audit log: after /, the focus is on %q", got)
	}

	// A public page: the leaderboard's lookup.
	do(chromedp.Navigate(s.url+"/shop/"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=lookup-input]`)), press("/"))
	if got := evaluate[string](t, ctx, `document.activeElement.dataset.testid || ""`); got != "lookup-input" {
		t.Fatalf("leaderboard: after /, the focus is on %q", got)
	}
	do(press("\x1b"), press("?"))
	if !listOpen() {
		t.Fatal("leaderboard: ? did not show the shortcuts")
	}
}
