package handlers_test

import (
	"context"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// The board's nick box: a nick leads to its page on the project, whatever
// characters it has; no nick, or one longer than a warrior may send, is
// refused with its reason. A nick the project has not seen gets a page
// saying so, with the box to try again, as a 404; one known gets its
// neighbours on the board, itself marked.
func TestNickBoxLeadsToTheDownloader(t *testing.T) {
	t.Parallel()
	f := setup(t)
	for i, nick := range []string{"alice", "bob", "carol", "dave", "erin"} {
		if _, err := f.pool.Exec(context.Background(), `INSERT INTO downloaders (project_id, nick, items, bytes, version) VALUES ($1, $2, $3::bigint, $3::bigint * 1024, '1')`,
			f.project.ID, nick, 10-i); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		nick, status, where string
	}{
		{"alice", "303", "/test/downloader/alice"},
		{"  bob ", "303", "/test/downloader/bob"},
		{"a/b?c", "303", "/test/downloader/a%2Fb%3Fc"},
		{"", "400 nick-missing", ""},
		{"   ", "400 nick-missing", ""},
		{strings.Repeat("n", 65), "400 nick-too-long", ""},
	} {
		a := f.do(t, "GET", "/test/downloader?nick="+url.QueryEscape(c.nick), "")
		got := strings.TrimSpace(strings.Join([]string{strconv.Itoa(a.status), a.reason}, " "))
		if got != c.status || a.header.Get("Location") != c.where {
			t.Errorf("nick %q: %s to %q, want %s to %q", c.nick, got, a.header.Get("Location"), c.status, c.where)
		}
	}

	a := f.do(t, "GET", "/test/downloader/Alice", "")
	if a.status != 404 || a.reason != "unknown-downloader" || !strings.Contains(a.body, `data-testid="unknown-downloader"`) ||
		!strings.Contains(a.body, `data-testid="nick-input"`) {
		t.Errorf("an unknown nick: %d %q, a page with the nick box: %v", a.status, a.reason, strings.Contains(a.body, `data-testid="nick-input"`))
	}
	status, doc := f.page(t, "/test/downloader/carol")
	var rows []string
	doc.Find(`[data-testid="neighbour"]`).Each(func(_ int, n *goquery.Selection) {
		nick, _ := n.Attr("data-nick")
		current, _ := n.Attr("aria-current")
		rows = append(rows, strings.TrimSpace(n.Find("td.rank").Text())+" "+nick+" "+current)
	})
	if want := "[1 alice false 2 bob false 3 carol true 4 dave false 5 erin false]"; status != 200 || strings.Join(rows, " ") != strings.Trim(want, "[]") {
		t.Errorf("carol's neighbours: %d %v, want %s", status, rows, want)
	}
}
