package handlers_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// Numbers encoding/json takes and PostgreSQL refuses (1e-20000), or keeps
// at full length (1e-16383: 16,385 characters), and strings that grow when
// escaped (61,440 "<" are 368,640 bytes as \u003c) are refused with a
// reason, by a done's result and by a backfeed post's parameters, and
// change nothing; the 64 KiB bound is measured on the document as stored.
func TestDocumentsBoundedAsStored(t *testing.T) {
	t.Parallel()
	f := setup(t, "test:1")
	f.set(t, "public_items=true") // the lookup shows results
	f.request(t, "alice", 1)
	bad := map[string]string{
		"1e-20000": `{"n":1e-20000}`,
		"1e-16383": `{"n":1e-16383}`,
		"61,440 <": `{"s":"` + strings.Repeat("<", 61440) + `"}`,
	}
	for name, doc := range bad {
		a := f.do(t, "POST", "/test/done", `{"downloader":"alice","item":"test:1","bytes":{"data":1},"result":{"test:1":`+doc+`}}`)
		if a.status != 400 || a.reason != "invalid-done" {
			t.Errorf("a result of %s: %d %q %.100q", name, a.status, a.reason, a.body)
		}
		url := "/backfeed/legacy/test-" + f.project.Config.BackfeedKey + "?params=1"
		a = f.doBody(t, "POST", url, "application/x-www-form-urlencoded", "new:1\x00new:2\t"+doc+"\x00")
		if a.status != 400 || a.reason != "invalid-items" || !strings.Contains(a.body, "item 2") {
			t.Errorf("a backfeed post with parameters of %s: %d %q %.100q", name, a.status, a.reason, a.body)
		}
	}
	if s := f.summary(t); s.Done != 0 || s.Claims != 1 || s.Queues["backfeed"] != 0 {
		t.Fatalf("refused documents changed something: %+v", s)
	}

	// Numbers are kept digit for digit, written out as PostgreSQL keeps
	// them; the answers carry them so.
	a := f.do(t, "POST", "/test/done", `{"downloader":"alice","item":"test:1","bytes":{"data":1},"result":{"test:1":{"small":1.5e-7,"id":123456789012345678901,"k":1E3}}}`)
	if a.status != 200 {
		t.Fatalf("done: %d %q", a.status, a.body)
	}
	var st struct {
		Result json.RawMessage `json:"result"`
	}
	if a := f.do(t, "GET", "/test/items/test:1.json", ""); json.Unmarshal([]byte(a.body), &st) != nil ||
		string(st.Result) != `{"k":1000,"id":123456789012345678901,"small":0.00000015}` {
		t.Fatalf("lookup: %s", a.body)
	}
}

// A backfeed post's entry is cut at its first tab before its name is
// checked: the name is held to 8 KiB, its parameters to 64 KiB.
func TestBackfeedParamsHeldToTheirOwnBound(t *testing.T) {
	t.Parallel()
	f := setup(t)
	url := "/backfeed/legacy/test-" + f.project.Config.BackfeedKey + "?params=1"
	name := "n:" + strings.Repeat("x", 8000)
	params := `{"p":"` + strings.Repeat("y", 60<<10) + `"}`
	for _, body := range []string{
		"n:" + strings.Repeat("x", 8<<10) + "\t{}\x00",                   // a name over 8 KiB
		"n:1\t" + `{"p":"` + strings.Repeat("y", 64<<10) + `"}` + "\x00", // parameters over 64 KiB
	} {
		if a := f.doBody(t, "POST", url, "application/x-www-form-urlencoded", body); a.status != 400 || a.reason != "invalid-items" {
			t.Fatalf("%.40q...: %d %q", body, a.status, a.reason)
		}
	}
	if a := f.doBody(t, "POST", url, "application/x-www-form-urlencoded", name+"\t"+params+"\x00"); a.status != 200 || !strings.Contains(a.body, `"new":1`) {
		t.Fatalf("a name of 8,002 bytes with 60 KiB of parameters: %d %q", a.status, a.body)
	}
	var got struct {
		ItemName   string                     `json:"item_name"`
		ItemParams map[string]json.RawMessage `json:"item_params"`
	}
	if a := f.do(t, "POST", "/test/request", `{"downloader":"alice"}`); json.Unmarshal([]byte(a.body), &got) != nil ||
		got.ItemName != name || string(got.ItemParams[name]) != params {
		t.Fatalf("request: %d %.200q", a.status, a.body)
	}
}

// An item's lookup on the leaderboard lays its documents out for reading
// only while that keeps the page about their size: parameters nested 5,000
// deep (10 KB) would otherwise be a page of 50 MB of spaces.
func TestLookupOfDeepDocumentBounded(t *testing.T) {
	t.Parallel()
	f := setup(t, "deep:1\t{\"a\":"+strings.Repeat("[", 5000)+strings.Repeat("]", 5000)+"}", "flat:1\t{\"a\":[1,2]}")
	f.set(t, "public_items=true") // the lookup shows parameters
	page := f.do(t, "GET", "/test/?item=deep:1", "")
	if page.status != 200 || !strings.Contains(page.body, `data-testid="lookup-params"`) || len(page.body) > 100<<10 {
		t.Fatalf("lookup: %d, %d bytes", page.status, len(page.body))
	}
	if page := f.do(t, "GET", "/test/?item=flat:1", ""); !strings.Contains(page.body, "[\n    1,\n    2\n  ]") {
		t.Fatalf("a small document is not laid out: %d", page.status)
	}
}
