package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"tracker/db/dbtest"
)

// chromium finds the browser: $TRACKER_CHROME, or Debian's package
// (`apt-get install chromium`; .ci/run installs it). Without one the test
// is skipped, unless $CI is set: there a missing browser is a failure.
func chromium(t *testing.T) string {
	t.Helper()
	if path := os.Getenv("TRACKER_CHROME"); path != "" {
		return path
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	const missing = "no Chromium for the browser tests: apt-get install chromium, or set TRACKER_CHROME to a Chrome binary"
	if os.Getenv("CI") != "" {
		t.Fatal(missing + " (CI is set: the browser tests must run)")
	}
	t.Skip(missing)
	return ""
}

// newBrowser starts a headless Chromium (see chromium) for one test.
func newBrowser(t *testing.T, path string) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
		// A closed network: Chromium must not go looking for its services.
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
	}
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox) // Chromium refuses to run as root with its sandbox
	}
	ctx, cancelTimeout := context.WithTimeout(context.Background(), 2*time.Minute)
	ctx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	ctx, cancelBrowser := chromedp.NewContext(ctx, chromedp.WithErrorf(t.Logf))
	t.Cleanup(func() { cancelBrowser(); cancelAlloc(); cancelTimeout() })
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting %s: %v", path, err)
	}
	return ctx
}

// screenshot saves the whole page as a test artifact: in $TRACKER_ARTIFACTS
// or e2e/artifacts.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv("TRACKER_ARTIFACTS")
	if dir == "" {
		dir = "artifacts"
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)) // quality 100: PNG
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot %s", path)
}

// textOf waits for the element to exist and returns its text.
func textOf(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		t.Fatalf("text of %s: %v", sel, err)
	}
	return strings.TrimSpace(s)
}

// waitText waits up to d for the element's text to satisfy ok: d is part
// of what is tested (a change shows at once, without a reload).
func waitText(t *testing.T, ctx context.Context, sel string, d time.Duration, ok func(string) bool) string {
	t.Helper()
	var s string
	done := false
	// Deferred, so it also runs when EventuallyWithin fails the test.
	defer func() {
		if !done {
			t.Logf("%s still %q", sel, s)
		}
	}()
	dbtest.EventuallyWithin(t, d, func() bool { s = textOf(t, ctx, sel); return ok(s) }, "the text of "+sel)
	done = true
	return s
}

// A volunteer watches a leaderboard: a done posted through the warrior API
// shows without a reload, the item lookup works, and when the stream is cut
// the page says it is stale.
func TestBrowserLeaderboard(t *testing.T) {
	t.Parallel()
	browser := chromium(t)
	dir := dataDir(t)
	s := serve(t, dir)
	cli(t, "", "project", "create", "demo", "--title", "Demo project", "--data-dir", dir)
	cli(t, "", "project", "set", "demo", "description=Saving the demo site before it closes.",
		"deadline="+time.Now().Add(72*time.Hour).UTC().Format(time.RFC3339), "--data-dir", dir)
	var names []string
	for i := range 50 {
		names = append(names, "item:"+string(rune('a'+i%26))+strings.Repeat("x", i/26))
	}
	cli(t, strings.Join(names, "\n"), "items", "add", "demo", "--data-dir", dir)
	// A first warrior, and one with a very long nick.
	long := strings.Repeat("longnick", 8) // the longest nick there may be
	for _, nick := range []string{"alice", long} {
		code, body := post(t, s.url+"/demo/request", `{"downloader":"`+nick+`","version":"20261122.01"}`)
		item := strings.TrimSuffix(strings.TrimPrefix(body, `{"item_name":"`), `"}`)
		if code != 200 {
			t.Fatalf("request: %d %s", code, body)
		}
		post(t, s.url+"/demo/done", `{"downloader":"`+nick+`","version":"20261122.01","item":"`+item+`","bytes":{"data":123456}}`)
	}

	ctx := newBrowser(t, browser)
	if err := chromedp.Do(ctx, chromedp.Navigate(s.url+"/demo/"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=done-count]`))); err != nil {
		t.Fatal(err)
	}
	if got := textOf(t, ctx, `[data-testid=done-count]`); got != "2" {
		t.Fatalf("done count on load: %q", got)
	}
	// The stream is live: the freshness line keeps saying so.
	waitText(t, ctx, `[data-testid=freshness]`, 5*time.Second, func(s string) bool { return strings.HasPrefix(s, "Updated") })

	// A done through the warrior API shows within 3 s, no reload.
	code, body := post(t, s.url+"/demo/request", `{"downloader":"bob","version":"20261122.01"}`)
	item := strings.TrimSuffix(strings.TrimPrefix(body, `{"item_name":"`), `"}`)
	if code != 200 {
		t.Fatalf("request: %d %s", code, body)
	}
	post(t, s.url+"/demo/done", `{"downloader":"bob","item":"`+item+`","bytes":{"data":1000}}`)
	waitText(t, ctx, `[data-testid=done-count]`, 3*time.Second, func(s string) bool { return s == "3" })
	waitText(t, ctx, `[data-testid=feed]`, 3*time.Second, func(s string) bool { return strings.Contains(s, "bob") })
	if got := textOf(t, ctx, `[data-testid=leaderboard]`); !strings.Contains(got, long) {
		t.Errorf("the long nick is cut: %q", got)
	}
	screenshot(t, ctx, "leaderboard.png")

	// The lookup box.
	if err := chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.CSS(`[data-testid=lookup-input]`), item),
		chromedp.Submit(chromedp.CSS(`[data-testid=lookup-input]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=lookup-result]`)),
	); err != nil {
		t.Fatal(err)
	}
	if got := textOf(t, ctx, `[data-testid=lookup-status]`); got != "done" {
		t.Errorf("lookup of %s: %q", item, got)
	}
	screenshot(t, ctx, "lookup.png")

	// The downloader page and the home page, wide and on a phone.
	if err := chromedp.Do(ctx, chromedp.Navigate(s.url+"/demo/downloader/alice"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=downloader-stats]`))); err != nil {
		t.Fatal(err)
	}
	if got := textOf(t, ctx, `[data-testid=items]`); got != "1" {
		t.Errorf("alice's items: %q", got)
	}
	screenshot(t, ctx, "downloader.png")
	if err := chromedp.Do(ctx, chromedp.Navigate(s.url+"/"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=project]`))); err != nil {
		t.Fatal(err)
	}
	if got := textOf(t, ctx, `[data-testid=project]`); !strings.Contains(got, "Demo project") || !strings.Contains(got, "closes in") {
		t.Errorf("home: %q", got)
	}
	screenshot(t, ctx, "home.png")
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(390, 844), chromedp.Navigate(s.url+"/demo/"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=done-count]`))); err != nil {
		t.Fatal(err)
	}
	overflow, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth + 1`))
	if err != nil {
		t.Fatal(err)
	}
	if overflow {
		t.Error("the leaderboard is wider than a phone's screen")
	}
	screenshot(t, ctx, "leaderboard-phone.png")

	// The stream is cut (the server goes away): the page says it is stale.
	s.stop(t)
	waitText(t, ctx, `[data-testid=freshness]`, 15*time.Second, func(s string) bool { return strings.HasPrefix(s, "Stale") })
	stale, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector("[data-testid=freshness]").classList.contains("stale")`))
	if err != nil || !stale {
		t.Errorf("stale class: %v %v", stale, err)
	}
	screenshot(t, ctx, "leaderboard-stale.png")
}
