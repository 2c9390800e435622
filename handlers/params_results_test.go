package handlers_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// Items imported with parameters hand them to the warrior beside their
// names; a done's results come back in the lookup with who ran the item and
// when.
func TestParamsAndResults(t *testing.T) {
	t.Parallel()
	f := setup(t, "plain", "test:1\t{\"os\": \"linux\", \"runs\": 3}", "bad\t{not json")
	// Shown to all (see TestItemLookupShowsHoldersOnlyToAdmins).
	f.set(t, "public_items=true")

	a := f.do(t, "POST", "/test/multi=5/request", `{"downloader":"alice","version":"1"}`)
	var got struct {
		ItemName   string                     `json:"item_name"`
		ItemParams map[string]json.RawMessage `json:"item_params"`
	}
	if err := json.Unmarshal([]byte(a.body), &got); err != nil || a.status != 200 {
		t.Fatalf("request: %d %s", a.status, a.body)
	}
	// The line whose parameters are no JSON was not queued.
	if got.ItemName != "plain\x00test:1" || len(got.ItemParams) != 1 || string(got.ItemParams["test:1"]) != `{"os":"linux","runs":3}` {
		t.Fatalf("answer %+v", got)
	}
	// A request for items without parameters carries none.
	if strings.Contains(f.do(t, "POST", "/test/request", `{"downloader":"bob"}`).body, "item_params") {
		t.Fatal("an answer without parameters names item_params")
	}

	// Results: too big, or of an item not in the done, are refused and
	// complete nothing.
	big := `"` + strings.Repeat("x", 70<<10) + `"`
	for _, body := range []string{
		`{"downloader":"alice","item":"test:1","bytes":{},"result":{"test:1":` + big + `}}`,
		`{"downloader":"alice","item":"test:1","bytes":{},"result":{"plain":1}}`,
		// JSON that encoding/json takes and jsonb does not.
		`{"downloader":"alice","item":"test:1","bytes":{},"result":{"test:1":{"n":1e999999}}}`,
		`{"downloader":"alice","item":"test:1","bytes":{},"result":{"test:1":"a\u0000b"}}`,
	} {
		if a := f.do(t, "POST", "/test/done", body); a.status != 400 || a.reason != "invalid-done" {
			t.Fatalf("bad result: %d %q", a.status, a.reason)
		}
	}
	if s := f.summary(t); s.Done != 0 {
		t.Fatal("a refused done completed items")
	}
	// A lone surrogate jsonb refuses is kept as U+FFFD.
	if a := f.do(t, "POST", "/test/done", `{"downloader":"alice","item":"test:1\u0000plain","bytes":{"data":5},"result":{"test:1":{"passed":true,"log":"ok"},"plain":"\ud800"}}`); a.status != 200 {
		t.Fatalf("done: %d %s", a.status, a.body)
	}
	var st struct {
		Status     string          `json:"status"`
		Downloader string          `json:"downloader"`
		ClaimedAt  string          `json:"claimed_at"`
		DoneAt     string          `json:"done_at"`
		Params     json.RawMessage `json:"params"`
		Result     json.RawMessage `json:"result"`
	}
	a = f.do(t, "GET", "/test/items/test:1.json", "")
	if err := json.Unmarshal([]byte(a.body), &st); err != nil {
		t.Fatal(err)
	}
	if st.Status != "done" || st.Downloader != "alice" || st.ClaimedAt == "" || st.DoneAt == "" ||
		string(st.Params) != `{"os":"linux","runs":3}` || string(st.Result) != `{"log":"ok","passed":true}` {
		t.Fatalf("lookup: %s", a.body)
	}
	if page := f.do(t, "GET", "/test/?item=test:1", ""); !strings.Contains(page.body, `data-testid="lookup-result-doc"`) || !strings.Contains(page.body, "passed") {
		t.Fatal("the lookup page does not show the result")
	}
}

// A backfeed post that says so carries parameters after a tab; a post
// whose parameters are no JSON object is refused whole.
func TestBackfeedParams(t *testing.T) {
	t.Parallel()
	f := setup(t)
	url := "/backfeed/legacy/test-" + f.project.Config.BackfeedKey + "?params=1"
	for _, post := range []string{"new:1\t[1]\x00new:2\x00", "new:1\t{\"n\":1e400}\x00"} {
		if a := f.doBody(t, "POST", url, "application/x-www-form-urlencoded", post); a.status != 400 {
			t.Fatalf("parameters jsonb refuses (%q): %d %s", post, a.status, a.body)
		}
	}
	if a := f.doBody(t, "POST", url, "application/x-www-form-urlencoded", "new:1\t{\"depth\":2}\x00new:2\x00"); a.status != 200 || !strings.Contains(a.body, `"new":2`) {
		t.Fatalf("backfeed: %d %s", a.status, a.body)
	}
	a := f.do(t, "POST", "/test/multi=2/request", `{"downloader":"alice"}`)
	if !strings.Contains(a.body, `"item_params":{"new:1":{"depth":2}}`) || !strings.Contains(a.body, `new:1\u0000new:2`) {
		t.Fatalf("request: %s", a.body)
	}
}
