package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// pageOverflowing lists the elements of the page whose content spills out of
// their box or past the window (a table in a scrolling box scrolls there on
// purpose, and is left out), at most ten, with their sizes.
const pageOverflowing = `(() => {
  const bad = [], width = document.documentElement.clientWidth;
  for (const el of document.body.querySelectorAll("*")) {
    if (el.closest(".scroll")) continue;
    const cs = getComputedStyle(el);
    if (cs.display === "none" || cs.visibility === "hidden" || el.closest("[hidden]")) continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 || ["auto", "scroll"].includes(cs.overflowX)) continue;
    const spills = el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1;
    if (r.right > width + 1 || spills) {
      bad.push(el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + (el.dataset.testid ? "[" + el.dataset.testid + "]" : "") +
        (el.className && typeof el.className === "string" ? "." + el.className.replace(/ /g, ".") : "") +
        " " + Math.round(r.right) + "/" + width + " " + el.scrollWidth + ">" + el.clientWidth +
        " " + (el.textContent || "").trim().slice(0, 40));
    }
    if (bad.length >= 10) break;
  }
  return bad;
})()`

// noOverflow checks the page shown at each width lets no element's content
// out of its box.
func noOverflow(t *testing.T, ctx context.Context, page string, widths ...int64) {
	t.Helper()
	for _, w := range widths {
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(w, 900)); err != nil {
			t.Fatal(err)
		}
		bad := evaluate[[]string](t, ctx, pageOverflowing)
		if len(bad) > 0 {
			screenshot(t, ctx, fmt.Sprintf("overflow-%s-%d.png", strings.NewReplacer("/", "-", "?", "-").Replace(page), w))
			t.Errorf("%s at %d px: content out of its box: %s", page, w, strings.Join(bad, "; "))
		}
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900)); err != nil {
		t.Fatal(err)
	}
}

// Every change that cannot be undone is asked about alike, whatever form
// of the panel makes it: the settings forms' backfeed_key, finished,
// hidden, mode and archive_mode=discard, the rotate button, the queue
// browser's drop and the danger zone's drain all lead to a red button with
// a name to type, and Cancel changes nothing. The project's pause is not
// drawn like the page's "Pause refreshing". No page overflows at 390 or
// 1366 px.
func TestBrowserEveryFormAsks(t *testing.T) {
	t.Parallel()
	s, ctx, do := adminSession(t)
	section := func(name string) {
		t.Helper()
		do(chromedp.Navigate(s.url+"/admin/projects/shop/"+name), chromedp.WaitVisible(chromedp.CSS(`nav.tabs`)))
	}
	// asked checks the confirmation says want, is red and asks for typed;
	// Cancel goes back.
	asked := func(form, want, typed string) {
		t.Helper()
		do(chromedp.WaitVisible(chromedp.CSS(`[data-testid=confirm-question]`)))
		if q := textOf(t, ctx, `[data-testid=confirm-question]`); !strings.Contains(q, want) {
			t.Fatalf("%s: the confirmation says %q, not %q", form, q, want)
		}
		if bg := evaluate[string](t, ctx, `getComputedStyle(document.querySelector("[data-testid=confirm]")).backgroundColor`); bg != red {
			t.Errorf("%s: the confirmation's button is %s, not red", form, bg)
		}
		if got := evaluate[string](t, ctx, `(document.querySelector("[data-testid=confirm-typed]") || {}).id + " " + document.querySelector("label[for=confirm-typed] code")?.textContent`); got != "confirm-typed "+typed {
			t.Errorf("%s: the confirmation asks to type %q, want %q", form, got, typed)
		}
		noOverflow(t, ctx, "confirm", 390, 1366)
		do(chromedp.Click(chromedp.CSS(`[data-testid=confirm-cancel]`)), chromedp.WaitVisible(chromedp.CSS(`nav.tabs`)))
	}
	save := func(sectionName, field, value, want string) {
		t.Helper()
		section(sectionName)
		sel := "#cfg-" + field
		if value == "tick" {
			do(chromedp.Click(chromedp.CSS(sel)))
		} else {
			do(chromedp.SetValue(chromedp.CSS(sel), value))
		}
		do(chromedp.Click(chromedp.CSS(`[data-testid=config-save]`)))
		asked(field+" in the settings of "+sectionName, want, "shop")
		section(sectionName)
		var got string
		if value == "tick" {
			got = fmt.Sprint(evaluate[bool](t, ctx, `document.querySelector("`+sel+`").checked`))
			value = "true"
		} else {
			got = evaluate[string](t, ctx, `document.querySelector("`+sel+`").value`)
		}
		if got == value {
			t.Errorf("%s: saved though cancelled", field)
		}
	}

	section("feeds")
	oldURL := textOf(t, ctx, `[data-testid=backfeed-url]`)
	do(chromedp.Click(chromedp.CSS(`[data-testid=rotate-key]`)))
	asked("the rotate button", "replaces the backfeed key of shop", "shop")
	save("queues", "backfeed_key", "a_key_typed_in", "replaces the backfeed key of shop")
	section("feeds")
	if got := textOf(t, ctx, `[data-testid=backfeed-url]`); got != oldURL {
		t.Fatalf("cancelled, the backfeed URL changed: %s", got)
	}
	save("queues", "mode", "recurring", "changes the mode of shop from once to recurring")
	save("warriors", "finished", "tick", "marks shop finished")
	save("warriors", "hidden", "tick", "hides shop")
	save("archive", "archive_mode", "discard", "makes shop discard")

	// Typed, the change from the settings form is made.
	section("queues")
	do(chromedp.SetValue(chromedp.CSS(`#cfg-backfeed_key`), "a_key_typed_in"), chromedp.Click(chromedp.CSS(`[data-testid=config-save]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=confirm-typed]`)),
		chromedp.SendKeys(chromedp.CSS(`[data-testid=confirm-typed]`), "shop"), chromedp.Click(chromedp.CSS(`[data-testid=confirm]`)),
		chromedp.WaitVisible(chromedp.Search(`//*[@data-testid="flash"][contains(., "Saved backfeed_key")]`)))
	section("feeds")
	if got := textOf(t, ctx, `[data-testid=backfeed-url]`); !strings.HasSuffix(got, "shop-a_key_typed_in") {
		t.Fatalf("confirmed, the backfeed URL is %s", got)
	}

	// Dropping items of todo: from the queue browser and from the danger
	// zone, the same confirmation.
	do(chromedp.Navigate(s.url+"/admin/projects/shop/browse?source=todo"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=browse-table]`)))
	do(chromedp.Click(chromedp.CSS(`[data-testid=pick-all]`)), chromedp.Click(chromedp.CSS(`[data-testid=browse-drop]`)))
	asked("the browser's drop", "drops 3 items ticked from todo", "todo")
	section("danger")
	do(chromedp.SetValue(chromedp.CSS(`#drain-from`), "todo"), chromedp.Click(chromedp.CSS(`[data-testid=drain]`)))
	asked("the danger zone's drain", "drops 3 items from todo", "todo")
	section("")
	if got := textOf(t, ctx, `[data-testid=queue-todo]`); got != "3" {
		t.Fatalf("cancelled drops left %s items in todo", got)
	}

	// The project's pause and the page's: told apart by their look.
	do(chromedp.WaitVisible(chromedp.CSS(`[data-live-controls]:not([hidden]) [data-testid=live-pause]`)))
	look := `(s => { const c = getComputedStyle(document.querySelector(s)); return [c.backgroundColor, c.fontWeight, c.borderStyle].join(" "); })`
	project, page := evaluate[string](t, ctx, look+`("[data-testid=pause]")`), evaluate[string](t, ctx, look+`("[data-testid=live-pause]")`)
	if project == page {
		t.Errorf("the project's pause looks like the page's pause: %s", project)
	}
	if !strings.Contains(textOf(t, ctx, `[data-testid=pause]`), "project") || strings.Contains(textOf(t, ctx, `[data-testid=live-pause]`), "project") {
		t.Errorf("the pauses say %q and %q", textOf(t, ctx, `[data-testid=pause]`), textOf(t, ctx, `[data-testid=live-pause]`))
	}
	for _, name := range []string{"", "queues", "feeds", "claims", "limits", "warriors", "archive", "danger"} {
		section(name)
		noOverflow(t, ctx, "section "+name, 390, 1366)
	}
}

// An items file is sent with its progress: the button disabled at once,
// the bytes and the lines sent counted with thousands separators, then the
// tracker's report, the lines it refused in a warning of their own.
func TestBrowserUploadProgress(t *testing.T) {
	t.Parallel()
	s, ctx, do := adminSession(t)
	var lines strings.Builder
	for i := range 30_000 {
		fmt.Fprintf(&lines, "url:https://example.org/some/page/%06d\n", i)
		if i == 7 || i == 29_000 {
			lines.WriteString("bad\x00line\n")
		}
	}
	file := filepath.Join(t.TempDir(), "items.txt")
	if err := os.WriteFile(file, []byte(lines.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	do(chromedp.Navigate(s.url+"/admin/projects/shop/queues"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=items-submit]`)))
	// What the page shows while the file goes, recorded as it changes
	// (the page is replaced by the answer when it is in).
	do(chromedp.Evaluate[chromedp.Void](`window.seen = {disabled: false, statuses: []};
		new MutationObserver(() => {
			const b = document.querySelector("[data-testid=items-submit]");
			if (b && b.disabled) window.seen.disabled = true;
			const s = document.querySelector("[data-testid=upload-status]");
			if (s && s.textContent && window.seen.statuses.at(-1) !== s.textContent) window.seen.statuses.push(s.textContent);
		}).observe(document.documentElement, {subtree: true, childList: true, attributes: true, characterData: true});`))
	do(chromedp.SetUploadFiles(chromedp.CSS(`[data-testid=items-file]`), []string{file}),
		chromedp.Click(chromedp.CSS(`[data-testid=items-submit]`)),
		chromedp.WaitVisible(chromedp.Search(`//*[@data-testid="flash"][contains(., "Added 30,000 to todo")]`)))
	if !evaluate[bool](t, ctx, `window.seen.disabled`) {
		t.Error("the Add button stayed active during the upload")
	}
	statuses := evaluate[[]string](t, ctx, `window.seen.statuses`)
	progress := false
	for _, st := range statuses {
		progress = progress || strings.Contains(st, " sent, ") && strings.Contains(st, " of 30,002 lines queued")
	}
	if !progress {
		t.Errorf("no progress shown: %q", statuses)
	}
	if got := textOf(t, ctx, `[data-testid=upload-status]`); !strings.HasPrefix(got, "Sent ") || !strings.HasSuffix(got, ": 30,002 lines.") {
		t.Errorf("after the upload: %q", got)
	}
	warning := textOf(t, ctx, `[data-testid=flash-warning]`)
	if !strings.HasPrefix(warning, "Left out 2 invalid lines, not queued: line 9: ") || !strings.Contains(warning, "line 29,003: ") || strings.Contains(textOf(t, ctx, `[data-testid=flash]`), "invalid") {
		t.Errorf("the refused lines: %q", warning)
	}
	if bg := evaluate[string](t, ctx, `getComputedStyle(document.querySelector("[data-testid=flash-warning]")).backgroundColor`); bg != "rgb(255, 243, 205)" {
		t.Errorf("the warning's background is %s, not amber", bg)
	}
	if got := evaluate[string](t, ctx, `location.pathname`); got != "/admin/projects/shop/queues" {
		t.Errorf("the page after the upload is %s", got)
	}
	noOverflow(t, ctx, "queues after an upload", 390, 1366)
}
