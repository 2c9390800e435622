package e2e

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"tracker/db/dbtest"
)

// An admin runs a project from the web, section by section: signs in,
// creates it, uploads an items file and sees the queue grow, moves items
// after being told how many, pauses it, finds an item, sees the claims by
// age and by downloader and releases a warrior's, gets a refused limit
// shown beside its field, blocks a nick, sets the project's deadline and
// description with a preview, adds an upload target, chooses the archive
// mode, drains a queue by typing its name, and finds every step in the
// audit log. Each section is kept as a screenshot.
func TestBrowserAdmin(t *testing.T) {
	t.Parallel()
	browser := chromium(t)
	dir := dataDir(t)
	s := serve(t, dir)
	defer s.stop(t)
	cliEnv(t, env("TRACKER_PASSWORD=correct horse battery"), "", "admin", "create", "root", "--data-dir", dir)

	ctx := newBrowser(t, browser)
	do := func(steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatal(err)
		}
	}
	// flash waits for the message of an action: the page after the
	// action, not the one before it, which may show another message.
	flash := func(want string) {
		t.Helper()
		do(chromedp.WaitVisible(chromedp.Search(fmt.Sprintf(`//*[@data-testid="flash"][contains(., %q)]`, want))))
	}
	section := func(name string) {
		t.Helper()
		do(chromedp.Navigate(s.url+"/admin/projects/shop/"+name), chromedp.WaitVisible(chromedp.CSS(`nav.tabs`)))
	}
	// The panel sends strangers to the login page.
	do(chromedp.Navigate(s.url+"/admin/"), chromedp.WaitVisible(chromedp.CSS(`#username`)))
	do(chromedp.SendKeys(chromedp.CSS(`#username`), "root"), chromedp.SendKeys(chromedp.CSS(`#password`), "correct horse battery"),
		chromedp.Submit(chromedp.CSS(`#password`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=admin-user]`)))
	screenshot(t, ctx, "admin-home.png")

	// A new project opens on its overview.
	do(chromedp.SendKeys(chromedp.CSS(`#slug`), "shop"), chromedp.SendKeys(chromedp.CSS(`#title`), "Closing shop"),
		chromedp.Submit(chromedp.CSS(`#slug`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=admin-queues]`)))
	if got := textOf(t, ctx, `[data-testid=queue-todo]`); got != "0" {
		t.Fatalf("new project's queue: %q", got)
	}
	if got := textOf(t, ctx, `nav.tabs [aria-current=page]`); got != "Overview" {
		t.Fatalf("current tab %q", got)
	}

	// Queues & items: an items file uploaded with the form, then moved.
	file := filepath.Join(t.TempDir(), "items.txt")
	var lines strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&lines, "product:%d\n", i)
	}
	fmt.Fprintf(&lines, "review:1\nreview:2\n")
	if err := os.WriteFile(file, []byte(lines.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	section("queues")
	do(chromedp.SetUploadFiles(chromedp.CSS(`[data-testid=items-file]`), []string{file}),
		chromedp.Click(chromedp.CSS(`[data-testid=items-submit]`)))
	flash("Added 1,002 to todo")
	if got, err := chromedp.Run(ctx, chromedp.TextContent(chromedp.CSS(`#move-from option[value=todo]`))); err != nil || got != "todo (1,002)" {
		t.Fatalf("queue picker after the upload: %q %v", got, err)
	}
	do(chromedp.SetValue(chromedp.CSS(`#move-to`), "secondary"), chromedp.SendKeys(chromedp.CSS(`#move-prefix`), "review:"),
		chromedp.Click(chromedp.CSS(`[data-testid=move]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=confirm-question]`)))
	if got := textOf(t, ctx, `[data-testid=confirm-question]`); !strings.Contains(got, "moves 2 items") {
		t.Fatalf("move confirmation: %q", got)
	}
	screenshot(t, ctx, "admin-confirm.png")
	do(chromedp.Click(chromedp.CSS(`[data-testid=confirm]`)))
	flash("Moved 2 items from todo to secondary")
	screenshot(t, ctx, "admin-queues.png")

	// Overview: pause and resume; an item looked up.
	section("")
	do(chromedp.Click(chromedp.CSS(`[data-testid=pause]`)))
	flash("Paused")
	if got := textOf(t, ctx, `[data-testid=state]`); got != "paused" {
		t.Fatalf("state: %q", got)
	}
	do(chromedp.Click(chromedp.CSS(`[data-testid=resume]`)))
	flash("Resumed")
	do(chromedp.SendKeys(chromedp.CSS(`[data-testid=admin-item-input]`), "review:1"), chromedp.Submit(chromedp.CSS(`[data-testid=admin-item-input]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=admin-item-status]`)))
	if got := textOf(t, ctx, `[data-testid=admin-item]`); !strings.Contains(got, "todo") || !strings.Contains(got, "secondary") {
		t.Fatalf("item: %q", got)
	}
	screenshot(t, ctx, "admin-overview.png")

	// Claims: counted by age and by downloader; a warrior's released once
	// the admin saw how many.
	// The warrior routes see a project as it was up to a second ago.
	dbtest.Eventually(t, func() bool {
		code, _ := post(t, s.url+"/shop/multi=5//request", `{"downloader":"slowpoke"}`)
		return code == 200
	}, "items handed out after resume")
	section("claims")
	if got := textOf(t, ctx, `[data-testid=claim-counts] tbody tr`); !strings.Contains(got, "slowpoke") || !strings.Contains(got, "5") {
		t.Fatalf("claims by downloader: %q", got)
	}
	if got := textOf(t, ctx, `h2#ages-h`); got != "5 claims out" {
		t.Fatalf("claims out: %q", got)
	}
	if got := textOf(t, ctx, `[data-testid=claim-ages]`); !strings.Contains(got, "5") {
		t.Fatalf("claims by age: %q", got)
	}
	screenshot(t, ctx, "admin-claims.png")
	do(chromedp.SendKeys(chromedp.CSS(`#downloader`), "slowpoke"), chromedp.Click(chromedp.CSS(`[data-testid=release]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=confirm-question]`)))
	if got := textOf(t, ctx, `[data-testid=confirm-question]`); !strings.Contains(got, "releases 5 claims of slowpoke") {
		t.Fatalf("release confirmation: %q", got)
	}
	do(chromedp.Click(chromedp.CSS(`[data-testid=confirm]`)))
	flash("Released 5 claims.")
	if got := textOf(t, ctx, `h2#ages-h`); got != "0 claims out" {
		t.Fatalf("claims after release: %q", got)
	}

	// Limits: a refused value is shown beside its field, the others kept.
	section("limits")
	do(chromedp.SetValue(chromedp.CSS(`#cfg-rate_limit`), "600"), chromedp.SetValue(chromedp.CSS(`#cfg-type_limits`), "post=5"),
		chromedp.Click(chromedp.CSS(`[data-testid=config-save]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=error-type_limits]`)))
	if got, err := chromedp.Run(ctx, chromedp.Value(chromedp.CSS(`#cfg-rate_limit`))); err != nil || got != "600" {
		t.Fatalf("the value sent was not kept: %q %v", got, err)
	}
	if got := textOf(t, ctx, `[data-testid=error-type_limits]`); !strings.Contains(got, "TYPE:ITEMS_PER_MINUTE") {
		t.Fatalf("refusal beside the field: %q", got)
	}
	screenshot(t, ctx, "admin-limits-refused.png")
	do(chromedp.SetValue(chromedp.CSS(`#cfg-type_limits`), "post:5"), chromedp.Click(chromedp.CSS(`[data-testid=config-save]`)))
	flash("Saved rate_limit, type_limits.")
	do(chromedp.SendKeys(chromedp.CSS(`#block-value`), "spammer"), chromedp.SendKeys(chromedp.CSS(`#block-reason`), "bad data"),
		chromedp.Click(chromedp.CSS(`[data-testid=block-add]`)))
	flash("Block add: nick spammer.")
	dbtest.Eventually(t, func() bool {
		code, _ := post(t, s.url+"/shop/request", `{"downloader":"spammer"}`)
		return code == 403
	}, "the nick refused")
	screenshot(t, ctx, "admin-limits.png")

	// Warriors & project file: a deadline from the date-time picker, a
	// description with its preview, an upload target.
	section("warriors")
	do(chromedp.SetJavascriptAttribute(chromedp.CSS(`#cfg-deadline`), "value", "2027-01-31T23:59:30"),
		chromedp.SetJavascriptAttribute(chromedp.CSS(`#cfg-description`), "value", "<b>Everything</b> before it closes"),
		chromedp.Click(chromedp.CSS(`[data-testid=config-save]`)))
	flash("Saved description, deadline.")
	if got, err := chromedp.Run(ctx, chromedp.TextContent(chromedp.CSS(`[data-testid=preview-description] b`))); err != nil || got != "Everything" {
		t.Fatalf("description preview: %q %v", got, err)
	}
	resp, err := http.Get(s.url + "/projects.json")
	if err != nil {
		t.Fatal(err)
	}
	list, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(list), `"deadline":"2027-01-31T23:59:30Z"`) {
		t.Fatalf("projects file: %s", list)
	}
	do(chromedp.SendKeys(chromedp.CSS(`#target-url`), "rsync://up.example/shop/:downloader/"), chromedp.Submit(chromedp.CSS(`#target-url`)))
	flash("Upload target added")
	screenshot(t, ctx, "admin-warriors.png")

	// Archive: the mode from its choices.
	section("archive")
	// Discarding cannot be undone: the slug is typed first.
	do(chromedp.SetValue(chromedp.CSS(`#cfg-archive_mode`), "discard"), chromedp.Click(chromedp.CSS(`[data-testid=config-save]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=confirm-typed]`)), chromedp.SendKeys(chromedp.CSS(`[data-testid=confirm-typed]`), "shop"),
		chromedp.Click(chromedp.CSS(`[data-testid=confirm]`)))
	flash("Saved archive_mode.")
	if got, err := chromedp.Run(ctx, chromedp.Value(chromedp.CSS(`#cfg-archive_mode`))); err != nil || got != "discard" {
		t.Fatalf("archive mode shown: %q %v", got, err)
	}
	screenshot(t, ctx, "admin-archive.png")

	// Danger zone: a drain says how many and wants the queue's name typed.
	section("danger")
	do(chromedp.SetValue(chromedp.CSS(`#drain-from`), "secondary"), chromedp.Click(chromedp.CSS(`[data-testid=drain]`)),
		chromedp.WaitVisible(chromedp.CSS(`#confirm-typed`)))
	if got := textOf(t, ctx, `[data-testid=confirm-question]`); !strings.Contains(got, "drops 2 items from secondary") {
		t.Fatalf("drain confirmation: %q", got)
	}
	do(chromedp.SendKeys(chromedp.CSS(`#confirm-typed`), "secondary"), chromedp.Click(chromedp.CSS(`[data-testid=confirm]`)))
	flash("Drained 2 items from secondary.")
	screenshot(t, ctx, "admin-danger.png")

	// Every step is in the audit log.
	do(chromedp.Navigate(s.url+"/admin/audit"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=audit]`)))
	log := textOf(t, ctx, `[data-testid=audit]`)
	for _, want := range []string{"login", "project.create", "items.add", "queue.move", "claims.release", "project.config",
		"block.add", "target.add", "queue.drain", "root"} {
		if !strings.Contains(log, want) {
			t.Errorf("audit log lacks %s:\n%s", want, log)
		}
	}
	screenshot(t, ctx, "admin-audit.png")
}
