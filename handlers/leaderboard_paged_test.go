package handlers_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"tracker/handlers"
)

// downloaders stores n downloaders of the project at once, as the rollup
// would have folded them: downloader g (1 to n) is named by nick, an SQL
// expression of g, and has g items and g KB.
func (f fixture) downloaders(t *testing.T, n int, nick string) {
	t.Helper()
	if _, err := f.pool.Exec(context.Background(), fmt.Sprintf(`INSERT INTO downloaders (project_id, nick, items, bytes, version, first_seen, last_seen)
		SELECT $1, %s, g, g * 1000, '1', now(), now() FROM generate_series(1, $2::int) g`, nick), f.project.ID, n); err != nil {
		t.Fatal(err)
	}
}

// fetch GETs path asking for encoding (none: identity) and returns the
// answer as it came, not decompressed.
func (f fixture) fetch(t *testing.T, path, encoding string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest("GET", f.srv.URL+path, nil)
	req.Header.Set("Accept-Encoding", encoding)
	if encoding == "" {
		req.Header.Set("Accept-Encoding", "identity")
	}
	client := &http.Client{Transport: &http.Transport{DisableCompression: true},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

// leaderboardMaxBytes is what a page of the leaderboard weighs at most
// whatever is stored: 100 rows of the longest nicks and versions, and the
// rest of the page.
const leaderboardMaxBytes = 320 << 10

// The board of a project of 50,000 downloaders is read a page of 100 at
// a time: all=1, which listed every one of them on one page (18 MB), is
// sent to the first page, keeping the others; the pager reaches the last
// page, and a page past it shows the last.
func TestLeaderboardAllIsPaged(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.downloaders(t, 50_000, `'volunteer-' || g`)

	resp, body := f.fetch(t, "/test/?all=1&order=items&page=7", "")
	if resp.StatusCode != http.StatusMovedPermanently || resp.Header.Get("Location") != "/test/?order=items#leaderboard" {
		t.Fatalf("all=1: %d to %q, %d bytes", resp.StatusCode, resp.Header.Get("Location"), len(body))
	}
	for _, c := range []struct {
		path, first, pager string
	}{
		{"/test/?order=items", "volunteer-50000", "Page 1 of 500"},
		{"/test/?order=items&page=500", "volunteer-100", "Page 500 of 500"},
		{"/test/?order=items&page=99999999", "volunteer-100", "Page 500 of 500"},
		{"/test/?period=24h", "", ""}, // no hour buckets: nobody in the last 24 hours
	} {
		a := f.do(t, "GET", c.path, "")
		doc, err := goquery.NewDocumentFromReader(strings.NewReader(a.body))
		if err != nil || a.status != 200 {
			t.Fatalf("%s: %d %v", c.path, a.status, err)
		}
		rows := doc.Find(`[data-testid="leader"]`)
		if c.first == "" {
			if rows.Length() != 0 {
				t.Errorf("%s: %d rows", c.path, rows.Length())
			}
			continue
		}
		if rows.Length() != 100 || rows.First().AttrOr("data-nick", "") != c.first ||
			!strings.Contains(doc.Find(`[data-testid="pager"]`).Text(), c.pager) {
			t.Errorf("%s: %d rows from %q, pager %q", c.path, rows.Length(), rows.First().AttrOr("data-nick", ""), doc.Find(`[data-testid="pager"]`).Text())
		}
		if len(a.body) > leaderboardMaxBytes {
			t.Errorf("%s: %d bytes", c.path, len(a.body))
		}
		if doc.Find(`a[href*="all=1"]`).Length() != 0 {
			t.Errorf("%s links to every downloader at once", c.path)
		}
	}
}

// A page of the board is bounded in bytes whatever nicks, versions and
// item names are stored: the longest a warrior may send show whole, those
// longer (stored before the bound, or by hand) cut.
func TestLeaderboardPageBoundedInBytes(t *testing.T) {
	t.Parallel()
	f := setup(t)
	longest := `g || repeat('𝒜', 64 - length(g::text))` // 64 characters of 4 bytes
	f.downloaders(t, 1000, longest)
	f.downloaders(t, 100, `'~' || g || repeat('𝒜', 1000)`) // the last page's
	if _, err := f.pool.Exec(context.Background(), `UPDATE downloaders SET version = CASE WHEN nick LIKE '~%' THEN repeat('𝒱', 1000) ELSE repeat('v', 64) END`); err != nil {
		t.Fatal(err)
	}
	if _, err := f.pool.Exec(context.Background(), fmt.Sprintf(`INSERT INTO feed (project_id, at, downloader, items, bytes, item)
		SELECT $1, now(), %s, 1, 1, 'url:' || repeat('𝒜', 2047) FROM generate_series(1, 50) g`, longest), f.project.ID); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/test/", "/test/?page=3&order=items", "/test/?page=11", "/test/?item=nothing"} {
		resp, body := f.fetch(t, path, "")
		rows := strings.Count(string(body), `data-testid="leader"`)
		if resp.StatusCode != 200 || rows != 100 || len(body) > leaderboardMaxBytes {
			t.Errorf("%s: %d, %d rows in %d bytes", path, resp.StatusCode, rows, len(body))
		}
	}
}

// The pages, their JSON and the static files go out in gzip to a client
// that asks for it, saying they vary on it, and as they are to one that
// does not; never the warriors' answers, /now or the live stream.
func TestPublicAnswersCompressedWhenAsked(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.downloaders(t, 300, `'volunteer-' || g`)
	var names []string
	for i := range 100 {
		names = append(names, fmt.Sprintf("post:%d-%s", i, strings.Repeat("x", 40)))
	}
	f.add(t, "todo", names...)

	for _, path := range []string{"/", "/test/", "/test/?page=2", "/test/?item=nothing", "/test/stats.json", "/test/charts.json",
		"/test/downloader/volunteer-300", "/downloader/volunteer-300/", "/warriors/",
		"/static/style.css", "/static/live.js"} {
		plain, body := f.fetch(t, path, "")
		if plain.StatusCode != 200 || plain.Header.Get("Content-Encoding") != "" || len(body) < 1024 {
			t.Fatalf("%s without gzip: %d %q, %d bytes", path, plain.StatusCode, plain.Header.Get("Content-Encoding"), len(body))
		}
		zipped, zbody := f.fetch(t, path, "gzip, deflate")
		if zipped.StatusCode != 200 || zipped.Header.Get("Content-Encoding") != "gzip" || !strings.Contains(strings.Join(zipped.Header.Values("Vary"), ","), "Accept-Encoding") {
			t.Errorf("%s with gzip: %d, Content-Encoding %q, Vary %q", path, zipped.StatusCode, zipped.Header.Get("Content-Encoding"), zipped.Header.Values("Vary"))
			continue
		}
		zr, err := gzip.NewReader(bytes.NewReader(zbody))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		unzipped, err := io.ReadAll(zr)
		if err != nil || len(unzipped) == 0 || len(zbody) >= len(unzipped) {
			t.Errorf("%s: %v, %d bytes from %d", path, err, len(unzipped), len(zbody))
		}
		if n := strings.Count(strings.Join(zipped.Header.Values("Vary"), ","), "Accept-Encoding"); n != 1 {
			t.Errorf("%s: Vary names Accept-Encoding %d times", path, n)
		}
	}

	// A warrior's request for 100 items (kilobytes of names), sent as
	// seesaw sends it, with Accept-Encoding: gzip.
	req, _ := http.NewRequest("POST", f.srv.URL+"/test/multi=100//request", strings.NewReader(`{"downloader":"alice","version":"1"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Encoding") != "" || !strings.Contains(string(got), names[99]) {
		t.Errorf("a warrior's request: %d, Content-Encoding %q, %d bytes", resp.StatusCode, resp.Header.Get("Content-Encoding"), len(got))
	}
	// /now as it is; the live stream's gzip is its own (board_events_patch_test.go).
	for _, path := range []string{"/now"} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		req, _ := http.NewRequestWithContext(ctx, "GET", f.srv.URL+path, nil)
		req.Header.Set("Accept-Encoding", "gzip")
		resp, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != 200 || resp.Header.Get("Content-Encoding") != "" {
			t.Errorf("%s: %d, Content-Encoding %q", path, resp.StatusCode, resp.Header.Get("Content-Encoding"))
		}
		resp.Body.Close()
		cancel()
	}
}

// A read counts against the readers' rate by what it sends: a page of the
// board, tens of kilobytes, holds the readers' slot (a unit of the rate
// each) as many times as long as an item's status, and at least once more
// per 64 KiB. Before, every read counted as one, whatever its size.
func TestReadCountsByWhatItSends(t *testing.T) {
	t.Parallel()
	f := setup(t, "item:1")
	f.downloaders(t, 1000, `g || repeat('𝒜', 60)`)
	var release func() time.Duration
	s, _, _ := f.readersWith(t, handlers.ReaderLimits{Slots: 1, Rate: 1000, Waiting: 10, Wait: time.Minute}, func(h *handlers.Handler) {
		release = h.HoldReaderSlots()
	})

	if a := s.do(t, "GET", "/test/items/item:1.json", ""); a.status != 200 || len(a.body) > 1024 {
		t.Fatalf("item status: %d, %d bytes", a.status, len(a.body))
	}
	light := release()
	if light != time.Millisecond { // Slots/Rate
		t.Fatalf("an item's status held the slot %v, want 1ms", light)
	}
	resp, body := s.fetch(t, "/test/", "")
	if resp.StatusCode != 200 || len(body) < 128<<10 {
		t.Fatalf("the board: %d, %d bytes", resp.StatusCode, len(body))
	}
	heavy := release()
	if least := light * time.Duration(1+len(body)/(64<<10)); heavy < least {
		t.Errorf("a page of %d bytes held the slot %v, want at least %v", len(body), heavy, least)
	}
	// Sent in its gzip (made once), it costs what the gzip weighs.
	resp, zbody := s.fetch(t, "/test/", "gzip")
	zipped := release()
	if resp.Header.Get("Content-Encoding") != "gzip" || zipped >= heavy || zipped < light*time.Duration(1+len(zbody)/(64<<10)) {
		t.Errorf("the board's %d bytes of gzip held the slot %v (%v for %d bytes as they are)", len(zbody), zipped, heavy, len(body))
	}
}
