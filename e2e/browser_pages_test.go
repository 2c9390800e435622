package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"tracker/db/dbtest"
)

// A page as the sweep visits it: its address and the name of its
// screenshots.
type sweptPage struct{ name, path string }

// Every public page and every admin section, on a desktop and on a
// 390-pixel phone, light and dark: each answers 200 (the not-found page
// 404), none scrolls sideways on the phone, none writes an error to the
// console, and each leaves a screenshot in e2e/artifacts
// (page-NAME-{desktop,phone}[-dark].png): the pictures a change to the
// look is reviewed by.
func TestBrowserEveryPage(t *testing.T) {
	t.Parallel()
	browser := chromium(t)
	dir := dataDir(t)
	s := serve(t, dir)
	t.Cleanup(func() { s.stop(t) })
	cliEnv(t, env("TRACKER_PASSWORD=correct horse battery"), "", "admin", "create", "root", "--data-dir", dir)
	cli(t, "", "project", "create", "demo", "--title", "Demo project", "--data-dir", dir)
	cli(t, "", "project", "set", "demo", "description=Saving the demo site before it closes.", "--data-dir", dir)
	var names strings.Builder
	for i := range 200 {
		fmt.Fprintf(&names, "item:%d\n", i)
	}
	cli(t, names.String(), "items", "add", "demo", "--data-dir", dir)
	for i, nick := range []string{"alice", "bob", "carol-with-a-rather-long-nickname", "dave"} {
		for range 3 + i {
			work(t, s, nick, 1<<20*(i+1))
		}
	}
	// One item out, so the claims page has a row.
	if code, body := post(t, s.url+"/demo/request", `{"downloader":"erin","version":"20261122.01"}`); code != 200 {
		t.Fatalf("request: %d %s", code, body)
	}
	// The rollup folds the dones into the downloaders' pages.
	for _, path := range []string{"/demo/downloader/alice", "/downloader/alice/"} {
		dbtest.Eventually(t, func() bool { return get(t, s.url+path) == 200 }, path+" answering 200")
	}

	ctx := newBrowser(t, browser)
	errs := consoleErrors(ctx)
	do := func(steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatal(err)
		}
	}
	public := []sweptPage{
		{"home", "/"}, {"leaderboard", "/demo/"}, {"downloader", "/demo/downloader/alice"},
		{"nick", "/downloader/alice/"}, {"warriors", "/warriors/"}, {"login", "/admin/login"},
	}
	admin := []sweptPage{
		{"admin-home", "/admin/"}, {"admin-overview", "/admin/projects/demo/"},
		{"admin-queues", "/admin/projects/demo/queues"}, {"admin-claims", "/admin/projects/demo/claims"},
		{"admin-limits", "/admin/projects/demo/limits"}, {"admin-warriors", "/admin/projects/demo/warriors"},
		{"admin-archive", "/admin/projects/demo/archive"}, {"admin-danger", "/admin/projects/demo/danger"},
		{"admin-browse", "/admin/projects/demo/browse"}, {"admin-item", "/admin/projects/demo/item?name=item:1"},
		{"admin-find", "/admin/projects/demo/item?find=item:1"}, {"admin-jobs", "/admin/jobs"},
		{"admin-settings", "/admin/settings"}, {"admin-audit", "/admin/audit"}, {"admin-users", "/admin/users"},
	}
	sweep := func(pages []sweptPage) {
		t.Helper()
		for _, scheme := range []string{"light", "dark"} {
			for _, screen := range []struct {
				name          string
				width, height int64
			}{{"desktop", 1280, 900}, {"phone", 390, 844}} {
				do(chromedp.EmulateViewport(screen.width, screen.height), colorScheme(scheme))
				for _, p := range pages {
					do(chromedp.Navigate(s.url+p.path), chromedp.WaitReady(chromedp.CSS(`body`)))
					status := evaluate[int](t, ctx, `performance.getEntriesByType("navigation")[0].responseStatus`)
					if status != 200 {
						t.Errorf("%s: %d", p.path, status)
					}
					if screen.name == "phone" {
						if wide := evaluate[bool](t, ctx, `document.scrollingElement.scrollWidth > innerWidth`); wide {
							t.Errorf("%s scrolls sideways at 390 px (%s)", p.path, scheme)
						}
					}
					name := "page-" + p.name + "-" + screen.name
					if scheme == "dark" {
						name += "-dark"
					}
					screenshot(t, ctx, name+".png")
				}
			}
		}
	}
	sweep(public)
	do(chromedp.EmulateViewport(1280, 900), chromedp.Navigate(s.url+"/admin/login"), chromedp.WaitVisible(chromedp.CSS(`#username`)),
		chromedp.SendKeys(chromedp.CSS(`#username`), "root"), chromedp.SendKeys(chromedp.CSS(`#password`), "correct horse battery"),
		chromedp.Submit(chromedp.CSS(`#password`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=admin-user]`)))
	sweep(admin)
	for _, e := range errs() {
		t.Errorf("console error: %s", e)
	}
	// The not-found page, as a stranger following a dead link finds it.
	do(chromedp.Navigate(s.url + "/no-such-project/"))
	if status := evaluate[int](t, ctx, `performance.getEntriesByType("navigation")[0].responseStatus`); status != 404 {
		t.Errorf("a missing project: %d, want 404", status)
	}
	screenshot(t, ctx, "page-not-found-desktop.png")
}
