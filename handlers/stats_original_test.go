package handlers_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"testing"
	"time"

	"tracker/stats"
)

// The original tracker's keys of stats.json, with the types its readers
// declare: the tracker's own Ruby (every number .to_i but the reclaim
// rate), chrismeller/archiveteam-exporter's C# (long counts,
// Dictionary<string, long> downloader_count, double bytes),
// gmemstr/warrior-operator's Go (int counts, float64 rcr) and
// cxumol/archiveteam-tgbot's JavaScript (downloaders, ranked by
// downloader_bytes). A JSON number with a fraction or exponent fails an
// integer field, as it fails those readers; a null fails C#'s value types.
type originalStats struct {
	DomainBytes     map[string]int64 `json:"domain_bytes"`
	DownloaderBytes map[string]int64 `json:"downloader_bytes"`
	DownloaderCount map[string]int64 `json:"downloader_count"`
	Downloaders     []string         `json:"downloaders"`
	TotalItems      int64            `json:"total_items"`
	TotalItemsDone  int64            `json:"total_items_done"`
	TotalItemsTodo  int64            `json:"total_items_todo"`
	TotalItemsOut   int64            `json:"total_items_out"`
	TotalBytes      int64            `json:"total_bytes"`
	Counts          struct {
		Todo int64   `json:"todo"`
		Out  int64   `json:"out"`
		Done int64   `json:"done"`
		RCR  float64 `json:"rcr"`
	} `json:"counts"`
}

// exporterStats mirrors ProjectStatsResponse of archiveteam-exporter.
type exporterStats struct {
	Downloaders     []string           `json:"downloaders"`
	DownloaderBytes map[string]float64 `json:"downloader_bytes"`
	DownloaderCount map[string]int64   `json:"downloader_count"`
	DomainBytes     struct {
		Data float64 `json:"data"`
	} `json:"domain_bytes"`
	TotalItemsTodo int64 `json:"total_items_todo"`
	TotalItemsOut  int64 `json:"total_items_out"`
	TotalItems     int64 `json:"total_items"`
	Counts         struct {
		Done int64   `json:"done"`
		Rcr  float64 `json:"rcr"`
		Out  int64   `json:"out"`
		Todo int64   `json:"todo"`
	} `json:"counts"`
	TotalItemsDone int64 `json:"total_items_done"`
}

// operatorStats mirrors warrior-operator's stats.
type operatorStats struct {
	Counts struct {
		Done int     `json:"done"`
		Todo int     `json:"todo"`
		Rcr  float64 `json:"rcr"`
		Out  int     `json:"out"`
	} `json:"counts"`
}

func getBody(t *testing.T, url string) []byte {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %v", url, resp.StatusCode, err)
	}
	return body
}

func fold(t *testing.T, f fixture) {
	t.Helper()
	if _, err := stats.NewStore(f.pool).Fold(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// stats.json carries the original tracker's keys beside the board's, with
// their meanings: done, queued and out items, bytes per domain and per
// downloader, the reclaim rate.
func TestStatsJSONOriginalKeys(t *testing.T) {
	t.Parallel()
	f := setup(t, "item:1", "item:2", "item:3", "item:4", "item:5", "item:6")
	f.set(t, "reclaim_ttl=60")
	if got, _ := f.request(t, "alice", 2); len(got) != 2 {
		t.Fatalf("alice got %q", got)
	}
	if a := f.do(t, "POST", "/test/done", `{"downloader":"alice","item":"item:1\u0000item:2","bytes":{"data":2048}}`); a.status != 200 {
		t.Fatalf("done: %d %s", a.status, a.body)
	}
	got, _ := f.request(t, "bob", 1)
	f.done(t, "bob", got...) // 100 bytes
	if got, _ := f.request(t, "carol", 1); len(got) != 1 || got[0] != "item:4" {
		t.Fatalf("carol got %q", got)
	}
	// Carol's claim runs out; dave is handed the queue, then her item.
	f.backdate(t, 2*time.Minute)
	got, _ = f.request(t, "dave", 3)
	if !slices.Equal(got, []string{"item:5", "item:6", "item:4"}) {
		t.Fatalf("dave got %q", got)
	}
	f.done(t, "dave", "item:4", "item:5") // 100 bytes; item:6 stays out
	f.add(t, "todo", "item:7")
	fold(t, f)

	body := getBody(t, f.srv.URL+"/test/stats.json")
	var s originalStats
	if err := json.Unmarshal(body, &s); err != nil {
		t.Fatalf("stats.json as the original tracker wrote it: %v in %s", err, body)
	}
	if s.TotalItemsDone != 5 || s.TotalItemsTodo != 1 || s.TotalItemsOut != 1 || s.TotalItems != 7 ||
		s.Counts.Done != 5 || s.Counts.Todo != 1 || s.Counts.Out != 1 || s.Counts.RCR != 0.2 {
		t.Errorf("totals %+v", s)
	}
	if len(s.DomainBytes) != 1 || s.DomainBytes["data"] != 2248 || s.TotalBytes != 2248 {
		t.Errorf("domain_bytes %v, total_bytes %d", s.DomainBytes, s.TotalBytes)
	}
	wantBytes := map[string]int64{"alice": 2048, "bob": 100, "dave": 100}
	wantCount := map[string]int64{"alice": 2, "bob": 1, "dave": 2}
	if fmt.Sprint(s.DownloaderBytes) != fmt.Sprint(wantBytes) || fmt.Sprint(s.DownloaderCount) != fmt.Sprint(wantCount) ||
		!slices.Equal(s.Downloaders, []string{"alice", "bob", "dave"}) {
		t.Errorf("downloaders %v, bytes %v, count %v", s.Downloaders, s.DownloaderBytes, s.DownloaderCount)
	}

	var e exporterStats
	if err := json.Unmarshal(body, &e); err != nil {
		t.Fatalf("stats.json as archiveteam-exporter reads it: %v", err)
	}
	if e.TotalItems != 7 || e.TotalItemsDone != 5 || e.TotalItemsTodo != 1 || e.TotalItemsOut != 1 ||
		e.DomainBytes.Data != 2248 || e.DownloaderBytes["alice"] != 2048 || e.DownloaderCount["dave"] != 2 || e.Counts.Rcr != 0.2 {
		t.Errorf("as the exporter reads it: %+v", e)
	}
	var o operatorStats
	if err := json.Unmarshal(body, &o); err != nil || o.Counts.Todo != 1 || o.Counts.Out != 1 || o.Counts.Done != 5 || o.Counts.Rcr != 0.2 {
		t.Errorf("as warrior-operator reads it: %+v %v", o, err)
	}
	// C#'s value types take no null: no key of the original's is one.
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"domain_bytes", "downloader_bytes", "downloader_count", "downloaders", "total_items",
		"total_items_done", "total_items_todo", "total_items_out", "total_bytes", "counts"} {
		if v, ok := raw[k]; !ok || string(v) == "null" {
			t.Errorf("%s: %s", k, v)
		}
	}
	// The board's own keys are still there, for the tracker's pages.
	var b stats.Board
	if err := json.Unmarshal(body, &b); err != nil || b.Project != "test" || b.Totals.Done != 5 || len(b.Leaders) != 3 {
		t.Errorf("the board: %+v %v", b, err)
	}
}

// A project of more downloaders than stats.json names gives the
// ClassicDownloadersShown with the most bytes, in all three keys.
func TestStatsJSONOriginalKeysBounded(t *testing.T) {
	t.Parallel()
	f := setup(t)
	n := stats.ClassicDownloadersShown + 1
	// volunteer-1 has the fewest bytes.
	if _, err := f.pool.Exec(context.Background(), `INSERT INTO downloaders (project_id, nick, items, bytes, version, first_seen, last_seen)
		SELECT $1, 'volunteer-' || g, g, g * 1000, '1', now(), now() FROM generate_series(1, $2::int) g`, f.project.ID, n); err != nil {
		t.Fatal(err)
	}
	body := getBody(t, f.srv.URL+"/test/stats.json")
	var s originalStats
	if err := json.Unmarshal(body, &s); err != nil {
		t.Fatal(err)
	}
	top := fmt.Sprintf("volunteer-%d", n)
	if len(s.Downloaders) != stats.ClassicDownloadersShown || len(s.DownloaderBytes) != stats.ClassicDownloadersShown ||
		len(s.DownloaderCount) != stats.ClassicDownloadersShown || s.Downloaders[0] != top || s.DownloaderBytes[top] != int64(n)*1000 {
		t.Fatalf("%d downloaders (first %q), %d bytes, %d counts", len(s.Downloaders), s.Downloaders[0], len(s.DownloaderBytes), len(s.DownloaderCount))
	}
	if _, ok := s.DownloaderBytes["volunteer-1"]; ok {
		t.Fatalf("the downloader with the fewest bytes is named")
	}
	var b stats.Board
	if err := json.Unmarshal(body, &b); err != nil || b.Totals.Downloaders != int64(n) {
		t.Fatalf("the board counts %d downloaders, want %d (%v)", b.Totals.Downloaders, n, err)
	}

	// Gzipped, it is the same document (its gzip is made once, not for
	// each client), of the length it says.
	req, _ := http.NewRequest("GET", f.srv.URL+"/test/stats.json", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	zipped, err := io.ReadAll(resp.Body)
	if err != nil || resp.Header.Get("Content-Encoding") != "gzip" || resp.ContentLength != int64(len(zipped)) {
		t.Fatalf("gzipped: %v %v, %d bytes", err, resp.Header, len(zipped))
	}
	zr, err := gzip.NewReader(bytes.NewReader(zipped))
	if err != nil {
		t.Fatal(err)
	}
	unzipped, err := io.ReadAll(zr)
	var g originalStats
	if err != nil || json.Unmarshal(unzipped, &g) != nil || !slices.Equal(g.Downloaders, s.Downloaders) {
		t.Fatalf("gzipped: %v, %d downloaders", err, len(g.Downloaders))
	}
}
