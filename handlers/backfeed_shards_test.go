package handlers_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"tracker/db/dbtest"
	"tracker/stats"
)

// Each backfeed post's new items are counted per shard on the board:
// stats.json and the page show them, duplicates are not counted.
func TestBackfeedShardsOnTheBoard(t *testing.T) {
	t.Parallel()
	f := setup(t)
	key := f.project.Config.BackfeedKey
	post := func(shard, body, want string) {
		t.Helper()
		path := "/backfeed/legacy/test-" + key + "?itemseparator=%1F"
		if shard != "" {
			path += "&shard=" + shard
		}
		if a := f.doBody(t, "POST", path, "application/x-www-form-urlencoded", body); a.status != 200 || a.body != want {
			t.Fatalf("backfeed %q: %d %q", shard, a.status, a.body)
		}
	}
	// Before any post the board has no shards, and the page no table.
	if a := f.do(t, "GET", "/test/", ""); a.status != 200 || strings.Contains(a.body, `data-testid="shards"`) {
		t.Fatalf("page before backfeed: %d, shards table shown", a.status)
	}
	post("onetime", "u:1\x1fu:1\x00u:2\x00u:3\x00", `{"duplicates":0,"new":3,"status_code":200}`)
	post("onetime", "u:1\x00u:4\x00", `{"duplicates":1,"new":1,"status_code":200}`)
	post("periodic2026327", "u:1\x00u:2\x00u:2\x00", `{"duplicates":1,"new":2,"status_code":200}`)
	post("", "u:9\x00", `{"duplicates":0,"new":1,"status_code":200}`)
	post("", "u:9\x00", `{"duplicates":1,"new":0,"status_code":200}`)

	want := []stats.ShardNew{{Shard: "onetime", New: 4}, {Shard: "periodic2026327", New: 2}, {Shard: "", New: 1}}
	shards := func() bool {
		var b stats.Board
		getJSON(t, f.srv.URL+"/test/stats.json", nil, &b)
		return slices.Equal(b.Shards, want)
	}
	dbtest.Eventually(t, shards, fmt.Sprintf("stats.json's shards %+v", want))
	a := f.do(t, "GET", "/test/", "")
	if a.status != 200 || !strings.Contains(a.body, "New from backfeed, last hour") {
		t.Fatalf("page: %d, no backfeed table", a.status)
	}
	for _, row := range []string{"<td>onetime</td><td class=\"num\">4</td>", "<td>periodic2026327</td><td class=\"num\">2</td>", "<td>(no shard)</td><td class=\"num\">1</td>"} {
		if !strings.Contains(a.body, row) {
			t.Errorf("page lacks %s", row)
		}
	}

	// Minutes older than the hour are not counted.
	dbtest.Age(t, f.pool, 61*time.Minute, dbtest.BackfeedMinutes(f.project.ID, "onetime"))
	want = want[1:]
	dbtest.Eventually(t, shards, fmt.Sprintf("stats.json's shards after an hour %+v", want))
}
