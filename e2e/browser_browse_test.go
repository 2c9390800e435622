package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// An admin goes through a queue in the queue browser: pages forward and
// back, ticks three items, moves them after being told how many, finds
// them in the other queue and only them; releases two of a warrior's
// claims ticked on the claims list; follows an item to its page and reads
// its timeline (queued by the import, claimed and done with its bytes and
// result; a moved item's move in the audit log); and finds items by the
// start of their names.
func TestBrowserQueueBrowser(t *testing.T) {
	t.Parallel()
	browser := chromium(t)
	dir := dataDir(t)
	s := serve(t, dir)
	defer s.stop(t)
	cliEnv(t, env("TRACKER_PASSWORD=correct horse battery"), "", "admin", "create", "root", "--data-dir", dir)
	cli(t, "", "project", "create", "shop", "--title", "Closing shop", "--data-dir", dir)
	var lines []string
	for i := range 120 {
		lines = append(lines, fmt.Sprintf("item:%03d", i))
	}
	cli(t, strings.Join(lines, "\n"), "items", "add", "shop", "--data-dir", dir)

	ctx := newBrowser(t, browser)
	do := func(steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatal(err)
		}
	}
	flash := func(want string) {
		t.Helper()
		do(chromedp.WaitVisible(chromedp.Search(fmt.Sprintf(`//*[@data-testid="flash"][contains(., %q)]`, want))))
	}
	listed := func() []string {
		t.Helper()
		names, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](
			`Array.from(document.querySelectorAll("[data-testid=browse-item] code")).map((c) => c.textContent)`))
		if err != nil {
			t.Fatal(err)
		}
		return names
	}
	// waitFirst waits for the page whose first item is name.
	waitFirst := func(name string) {
		t.Helper()
		do(chromedp.WaitVisible(chromedp.Search(fmt.Sprintf(`(//*[@data-testid="browse-item"])[1]/code[text()=%q]`, name))))
	}
	do(chromedp.Navigate(s.url+"/admin/login"), chromedp.WaitVisible(chromedp.CSS(`#username`)),
		chromedp.SendKeys(chromedp.CSS(`#username`), "root"), chromedp.SendKeys(chromedp.CSS(`#password`), "correct horse battery"),
		chromedp.Submit(chromedp.CSS(`#password`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=admin-user]`)))

	// The browser's tab; a page of 50 of todo's 120 items; forward and back.
	do(chromedp.Navigate(s.url+"/admin/projects/shop/"), chromedp.WaitVisible(chromedp.CSS(`nav.tabs`)),
		chromedp.Click(chromedp.CSS(`[data-testid=tab-browse]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=browse-table]`)))
	if got := textOf(t, ctx, `[data-testid=list-todo] .count`); got != "120" {
		t.Fatalf("todo's size: %q", got)
	}
	do(chromedp.SetValue(chromedp.CSS(`#f-per`), "50"), chromedp.Click(chromedp.CSS(`[data-testid=browse-search]`)),
		chromedp.WaitReady(chromedp.CSS(`#f-per option[value="50"][selected]`)))
	waitFirst("item:000")
	if got := listed(); len(got) != 50 || got[49] != "item:049" {
		t.Fatalf("first page: %d items, ends %v", len(got), got[len(got)-1:])
	}
	do(chromedp.Click(chromedp.CSS(`[data-testid=browse-next-top]`)))
	waitFirst("item:050")
	do(chromedp.Click(chromedp.CSS(`[data-testid=browse-next-top]`)))
	waitFirst("item:100")
	if got := listed(); len(got) != 20 {
		t.Fatalf("last page: %d items", len(got))
	}
	if n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("[data-testid=browse-next-top]").length`)); n != 0 {
		t.Fatal("the last page has a next page")
	}
	do(chromedp.Click(chromedp.CSS(`[data-testid=browse-prev-top]`)))
	waitFirst("item:050")
	do(chromedp.Click(chromedp.CSS(`[data-testid=browse-prev-top]`)))
	waitFirst("item:000")

	// Three items ticked, moved to secondary once confirmed.
	picked := []string{"item:001", "item:003", "item:005"}
	for _, name := range picked {
		do(chromedp.Click(chromedp.CSS(fmt.Sprintf(`input[data-testid=pick][value=%q]`, name))))
	}
	if got := textOf(t, ctx, `[data-testid=picked]`); got != "3 selected" {
		t.Fatalf("count of the ticked: %q", got)
	}
	do(chromedp.SetValue(chromedp.CSS(`[data-testid=browse-move-to]`), "secondary"))
	screenshot(t, ctx, "admin-browse.png")
	do(chromedp.Click(chromedp.CSS(`[data-testid=browse-move]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=confirm-question]`)))
	if got := textOf(t, ctx, `[data-testid=confirm-question]`); !strings.Contains(got, "moves 3 items ticked from todo to secondary") {
		t.Fatalf("confirmation: %q", got)
	}
	screenshot(t, ctx, "admin-browse-confirm.png")
	do(chromedp.Click(chromedp.CSS(`[data-testid=confirm]`)))
	flash("Moved 3 items from todo to secondary")
	// Back on the page it came from (the one before item:050), without
	// them.
	if got := listed(); len(got) != 47 || got[1] != "item:002" || got[46] != "item:049" {
		t.Fatalf("todo after the move: %d items, %v", len(got), got[:3])
	}
	do(chromedp.Click(chromedp.CSS(`[data-testid=list-secondary]`)))
	waitFirst("item:001")
	if got := listed(); strings.Join(got, " ") != strings.Join(picked, " ") {
		t.Fatalf("secondary: %v", got)
	}

	// A warrior's claims: two of five ticked and released.
	code, body := post(t, s.url+"/shop/multi=5//request", `{"downloader":"slowpoke"}`)
	var claimed map[string]string
	if code != 200 || json.Unmarshal([]byte(body), &claimed) != nil {
		t.Fatalf("request: %d %s", code, body)
	}
	out := strings.Split(claimed["item_name"], "\x00")
	do(chromedp.Navigate(s.url+"/admin/projects/shop/browse?source=claims"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=browse-table]`)))
	if got := listed(); len(got) != 5 {
		t.Fatalf("claims: %v", got)
	}
	for _, name := range out[:2] {
		do(chromedp.Click(chromedp.CSS(fmt.Sprintf(`input[data-testid=pick][value=%q]`, name))))
	}
	do(chromedp.Click(chromedp.CSS(`[data-testid=browse-release]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=confirm-question]`)))
	if got := textOf(t, ctx, `[data-testid=confirm-question]`); !strings.Contains(got, "releases 2 claims ticked") {
		t.Fatalf("release confirmation: %q", got)
	}
	do(chromedp.Click(chromedp.CSS(`[data-testid=confirm]`)))
	flash("Released 2 claims.")
	if got := listed(); len(got) != 3 || strings.Contains(strings.Join(got, " "), out[0]) || strings.Contains(strings.Join(got, " "), out[1]) {
		t.Fatalf("claims after the release: %v", got)
	}

	// An item's timeline: queued by the import, claimed and done with its
	// bytes and result.
	done := fmt.Sprintf(`{"downloader":"slowpoke","item":%q,"bytes":{"data":4321},"result":{%q:{"pages":3}}}`, out[2], out[2])
	if code, body := post(t, s.url+"/shop/done", done); code != 200 {
		t.Fatalf("done: %d %s", code, body)
	}
	do(chromedp.Navigate(s.url+"/admin/projects/shop/browse?source=done"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=browse-table]`)),
		chromedp.Click(chromedp.Search(fmt.Sprintf(`//*[@data-testid="browse-item"][code=%q]`, out[2]))),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=timeline]`)))
	if got := textOf(t, ctx, `[data-testid=item-status]`); got != "done" {
		t.Fatalf("status: %q", got)
	}
	if got := textOf(t, ctx, `[data-testid=event-queued]`); !strings.Contains(got, "Queued in todo") || !strings.Contains(got, "import") {
		t.Fatalf("queued: %q", got)
	}
	if got := textOf(t, ctx, `[data-testid=event-done]`); !strings.Contains(got, "slowpoke") || !strings.Contains(got, "4.2 KiB") || !strings.Contains(got, `"pages": 3`) {
		t.Fatalf("done: %q", got)
	}
	screenshot(t, ctx, "admin-item.png")
	// A moved item's timeline has the move.
	do(chromedp.Navigate(s.url+"/admin/projects/shop/item?name=item:003"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=timeline]`)))
	if got := textOf(t, ctx, `[data-testid=event-audit]`); !strings.Contains(got, "queue.move") || !strings.Contains(got, "root") {
		t.Fatalf("audit event: %q", got)
	}

	// The finder.
	do(chromedp.SendKeys(chromedp.CSS(`[data-testid=find-input]`), "item:00"), chromedp.Click(chromedp.CSS(`[data-testid=find-submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=find-results]`)))
	rows, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("[data-testid=find-result]").length`))
	if err != nil || rows != 10 {
		t.Fatalf("found %d (%v), want item:000 to item:009", rows, err)
	}
	screenshot(t, ctx, "admin-find.png")
}
