package handlers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"tracker/items"
	"tracker/projects"
	"tracker/stats"
)

// A done names at most what one request hands out: one naming more is
// refused with the reason and changes nothing. Results for names the done
// does not name refuse it whole, however many they are.
func TestDoneNamesAtMostARequestsItems(t *testing.T) {
	t.Parallel()
	f := setup(t, "a", "b")
	f.request(t, "alice", 2)
	names := []string{"a", "b"}
	for i := len(names); i <= items.MaxDoneItems; i++ {
		names = append(names, fmt.Sprintf("x:%d", i))
	}
	done := func(names []string, extra string) answer {
		t.Helper()
		return f.do(t, "POST", "/test/done", `{"downloader":"alice","item":`+jsonString(strings.Join(names, "\x00"))+`,"bytes":{"data":1}`+extra+`}`)
	}
	if a := done(names, ""); a.status != 400 || a.reason != "invalid-done" || !strings.Contains(a.body, "more than the 10000 one done may name") {
		t.Fatalf("a done of %d items: %d %q %q", len(names), a.status, a.reason, a.body)
	}
	names = names[:items.MaxDoneItems]
	var results strings.Builder
	for i := range 5 * items.MaxDoneItems {
		fmt.Fprintf(&results, `,"y:%d":1`, i)
	}
	if a := done(names, `,"result":{"a":1`+results.String()+`}`); a.status != 400 || a.reason != "invalid-done" || !strings.Contains(a.body, "is not an item of this done") {
		t.Fatalf("results for names not in the done: %d %q %q", a.status, a.reason, a.body)
	}
	if s := f.summary(t); s.Done != 0 || s.Claims != 2 || s.Bytes != 0 {
		t.Fatalf("refused dones changed something: %+v", s)
	}
	if a := done(names, ""); a.status != 200 || a.body != "OK" {
		t.Fatalf("a done of %d items: %d %q", len(names), a.status, a.body)
	}
	if s := f.summary(t); s.Done != 2 || s.Claims != 0 {
		t.Fatalf("after the done: %+v", s)
	}
}

// A visit's outcome given as a number moves a score no further than the
// project's words do: it is clamped to them, and the done answered OK (a
// refused done is retried forever), so one visit neither retires an item
// nor pins it at the top.
func TestOutcomeFactorsClampedToTheProjects(t *testing.T) {
	t.Parallel()
	f := setup(t, "tor:1", "tor:2")
	f.set(t, "mode=recurring", "revisit_after=60", "retire_below=0.01")
	f.request(t, "alice", 2)
	if a := f.do(t, "POST", "/test/done", `{"downloader":"alice","item":"tor:1\u0000tor:2","bytes":{"data":2},"outcome":{"tor:1":1e-6,"tor:2":100}}`); a.status != 200 || a.body != "OK" {
		t.Fatalf("done: %d %q", a.status, a.body)
	}
	for name, want := range map[string]float64{"tor:1": f.project.Config.ScoreNone, "tor:2": f.project.Config.ScoreFull} {
		var st items.ItemStatus
		if a := f.do(t, "GET", "/test/items/"+name+".json", ""); a.status != 200 || json.Unmarshal([]byte(a.body), &st) != nil ||
			st.Status != items.StatusScheduled || st.Score == nil || *st.Score != want {
			t.Fatalf("%s: %d %s; want scheduled, scoring %v", name, a.status, a.body, want)
		}
	}
}

// An outcome of any JSON number, however far past what a float holds
// (1e309, -1e309) or however small (1e-400), is clamped as any other
// number and the done answered OK; an outcome that is no number nor word
// is still malformed, and refuses the done whole.
func TestOutcomeOfAnyNumberClamped(t *testing.T) {
	t.Parallel()
	f := setup(t, "tor:1", "tor:2", "tor:3")
	f.set(t, "mode=recurring", "revisit_after=60", "retire_below=0.01")
	f.request(t, "alice", 3)
	for _, bad := range []string{`true`, `{}`, `[1]`} {
		if a := f.do(t, "POST", "/test/done", `{"downloader":"alice","item":"tor:1","bytes":{"data":1},"outcome":{"tor:1":`+bad+`}}`); a.status != 400 || a.reason != "malformed-json" {
			t.Fatalf("an outcome of %s: %d %q %q", bad, a.status, a.reason, a.body)
		}
	}
	if s := f.summary(t); s.Done != 0 || s.Claims != 3 {
		t.Fatalf("refused dones changed something: %+v", s)
	}
	if a := f.do(t, "POST", "/test/done", `{"downloader":"alice","item":"tor:1\u0000tor:2\u0000tor:3","bytes":{"data":3},"outcome":{"tor:1":1e309,"tor:2":-1e309,"tor:3":1e-400}}`); a.status != 200 || a.body != "OK" {
		t.Fatalf("done: %d %q %q", a.status, a.reason, a.body)
	}
	c := f.project.Config
	for name, want := range map[string]float64{"tor:1": c.ScoreFull, "tor:2": c.ScoreNone, "tor:3": c.ScoreNone} {
		var st items.ItemStatus
		if a := f.do(t, "GET", "/test/items/"+name+".json", ""); a.status != 200 || json.Unmarshal([]byte(a.body), &st) != nil ||
			st.Status != items.StatusScheduled || st.Score == nil || *st.Score != want {
			t.Fatalf("%s: %d %s; want scheduled, scoring %v", name, a.status, a.body, want)
		}
	}
}

// However many domains dones name, and whatever their names, stats.json
// shows at most stats.DomainsKept of them and "other", and the project keeps
// no more rows: 300 domains of 60 characters, and names that are no host
// names, from anyone.
func TestStatsDomainsBounded(t *testing.T) {
	t.Parallel()
	names := make([]string, 4)
	for i := range names {
		names[i] = fmt.Sprintf("item:%d", i)
	}
	f := setup(t, names...)
	f.request(t, "mallory", 4)
	var total int64
	for i, name := range names {
		bytes := map[string]int64{}
		for j := range items.MaxDomains {
			d := fmt.Sprintf("%03d-%s", i*items.MaxDomains+j, strings.Repeat("x", 56))
			if i == 3 {
				d = fmt.Sprintf("<Not a host> %d %s", j, strings.Repeat("é", 100))
			}
			bytes[d] = int64(j + 1)
			total += int64(j + 1)
		}
		b, err := json.Marshal(bytes)
		if err != nil {
			t.Fatal(err)
		}
		if a := f.do(t, "POST", "/test/done", `{"downloader":"mallory","item":`+jsonString(name)+`,"bytes":`+string(b)+`}`); a.status != 200 {
			t.Fatalf("done: %d %q", a.status, a.body)
		}
		if i == 1 {
			if _, err := stats.NewStore(f.pool).Fold(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := stats.NewStore(f.pool).Fold(context.Background()); err != nil {
		t.Fatal(err)
	}
	var board stats.Board
	resp := getJSON(t, f.srv.URL+"/test/stats.json", nil, &board)
	if resp.StatusCode != 200 || len(board.Domains) != stats.DomainsKept+1 || board.Domains[stats.DomainsKept].Domain != projects.OtherDomain {
		t.Fatalf("stats.json: %d, %d domains", resp.StatusCode, len(board.Domains))
	}
	var sum int64
	for _, d := range board.Domains {
		if d.Domain != projects.OtherDomain && !projects.ValidDomain(d.Domain) {
			t.Fatalf("stats.json shows %q", d.Domain)
		}
		sum += d.Bytes
	}
	if sum != total || board.Totals.Bytes != total {
		t.Fatalf("domains sum to %d, totals %d; want %d", sum, board.Totals.Bytes, total)
	}
	var rows int
	if err := f.pool.QueryRow(context.Background(), "SELECT count(*) FROM domain_totals WHERE project_id = $1", f.project.ID).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if rows != stats.DomainsKept+1 {
		t.Fatalf("%d domain rows stored, want %d", rows, stats.DomainsKept+1)
	}
}
