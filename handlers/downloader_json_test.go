package handlers_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"tracker/db/dbtest"
)

// A downloader's numbers as JSON, on one project and on every public one:
// a bot answers for a nick that stats.json does not list, and volunteers
// see their totals everywhere. A hidden project is left out of the
// totals, an unknown nick is a 404 with its reason, a nick that is no
// nick a 400, and the nick's page without its slash still goes to it.
func TestDownloaderJSON(t *testing.T) {
	t.Parallel()
	f := setup(t, "item:1", "item:2")
	names, _ := f.request(t, "alice", 2)
	f.done(t, "alice", names...)
	hush := dbtest.Project(t, f.pool, "hushhush", "Hush hush", "hidden=true")
	other := dbtest.Project(t, f.pool, "other", "Other")
	for _, d := range []struct {
		project      int32
		items, bytes int64
	}{{hush.ID, 500, 5000}, {other.ID, 3, 300}, {f.project.ID, 10, 1000}} {
		if _, err := f.pool.Exec(context.Background(), `INSERT INTO downloaders (project_id, nick, items, bytes, version) VALUES ($1, 'alice', $2, $3, '1')`,
			d.project, d.items, d.bytes); err != nil {
			t.Fatal(err)
		}
	}

	a := f.do(t, "GET", "/test/downloader/alice.json", "")
	var one struct {
		Project, Nick string
		Items, Bytes  int64
		Rank          int
	}
	if a.status != 200 || a.header.Get("Content-Type") != "application/json" || json.Unmarshal([]byte(a.body), &one) != nil {
		t.Fatalf("alice on test: %d %q %s", a.status, a.reason, a.body)
	}
	// The folded 10 items, and the 2 of one done of 100 bytes not folded yet.
	if one.Project != "test" || one.Nick != "alice" || one.Items != 12 || one.Bytes != 1100 || one.Rank != 1 {
		t.Errorf("alice on test: %+v", one)
	}

	a = f.do(t, "GET", "/downloader/alice.json", "")
	var all struct {
		Nick         string
		Items, Bytes int64
		ProjectCount int `json:"project_count"`
		Projects     []struct {
			Project      string
			Items, Bytes int64
		}
	}
	if a.status != 200 || json.Unmarshal([]byte(a.body), &all) != nil {
		t.Fatalf("alice everywhere: %d %q %s", a.status, a.reason, a.body)
	}
	if all.Nick != "alice" || all.Items != 13 || all.Bytes != 1300 || all.ProjectCount != 2 || len(all.Projects) != 2 ||
		all.Projects[0].Project != "test" || all.Projects[1].Project != "other" {
		t.Errorf("alice everywhere, the hidden project left out: %s", a.body)
	}

	for _, c := range []struct {
		path, reason string
		status       int
	}{
		{"/test/downloader/bob.json", "unknown-downloader", 404},
		{"/downloader/bob.json", "unknown-downloader", 404},
		{"/nosuch/downloader/alice.json", "unknown-project", 404},
		{"/test/downloader/a%20b.json", "invalid-nick", 400},
		{"/downloader/a%20b.json", "invalid-nick", 400},
	} {
		if a := f.do(t, "GET", c.path, ""); a.status != c.status || a.reason != c.reason {
			t.Errorf("%s: %d %q, want %d %q", c.path, a.status, a.reason, c.status, c.reason)
		}
	}
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noRedirect.Get(f.srv.URL + "/downloader/alice")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusTemporaryRedirect || resp.Header.Get("Location") != "/downloader/alice/" {
		t.Errorf("/downloader/alice: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
}
