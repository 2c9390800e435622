package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"os/exec"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"tracker/db/dbtest"
)

// `tracker serve` with DATABASE_URL at a Citus coordinator: the tracker
// lays its schema out over the workers by itself as it starts, and a
// warrior, a grab script, the CLI and `tracker check` find it as on one
// PostgreSQL.
func TestCitusServe(t *testing.T) {
	dbtest.RequireCitus(t)
	t.Parallel()
	dsn := dbtest.NewEmptyDSN(t)
	e := env("DATABASE_URL=" + dsn)
	s := serveCmd(t, exec.Command(binary, "serve", "--addr", "127.0.0.1:0"), e)
	defer s.stop(t)

	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var distributed bool
	dbtest.MustScan(t, conn.QueryRow(context.Background(),
		"SELECT EXISTS (SELECT 1 FROM pg_dist_partition WHERE logicalrelid = 'todo'::regclass)"), &distributed)
	if !distributed {
		t.Fatal("serve left todo a table of the coordinator's")
	}

	cliEnv(t, e, "", "project", "create", "demo", "--title", "Demo")
	if out := cliEnv(t, e, "user:1\nuser:2\nuser:3\n", "items", "add", "demo"); out != "added 3, skipped 0\n" {
		t.Fatalf("items add printed %q", out)
	}
	firstRound(t, s.url)

	// A grab script backfeeds two new names and one seen before.
	var shown struct {
		Config struct {
			BackfeedKey string `json:"backfeed_key"`
		} `json:"config"`
	}
	if err := json.Unmarshal([]byte(cliEnv(t, e, "", "project", "show", "demo")), &shown); err != nil || shown.Config.BackfeedKey == "" {
		t.Fatalf("project show: no backfeed key (%v)", err)
	}
	resp, err := http.Post(s.url+"/backfeed/legacy/demo-"+shown.Config.BackfeedKey, "application/x-www-form-urlencoded",
		strings.NewReader("user:3\x00user:4\x00user:5"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("backfeed: %d", resp.StatusCode)
	}
	// A process learns that a queue it saw empty holds items within a
	// second (its project cache's life): until then it answers 404.
	var code int
	var body string
	dbtest.Eventually(t, func() bool {
		code, body = post(t, s.url+"/demo/multi=5//request", `{"downloader":"carol"}`)
		return code != 404
	}, "the backfed names handed out")
	if code != 200 || body != `{"item_name":"user:4\u0000user:5"}` {
		t.Fatalf("request of the backfed names: %d %q", code, body)
	}
	code, body = post(t, s.url+"/demo/done", `{"downloader":"bob","item":"user:2\u0000user:3","bytes":{"data":7}}`)
	if code != 200 || body != "OK" {
		t.Fatalf("multi done: %d %q", code, body)
	}

	if out := cliEnv(t, e, "", "check", "demo"); !strings.Contains(out, `"balanced": true`) {
		t.Fatalf("check: %s", out)
	}
	show := cliEnv(t, e, "", "project", "show", "demo")
	for _, want := range []string{`"claims": 2`, `"done": 3`} {
		if !strings.Contains(show, want) {
			t.Errorf("project show lacks %s:\n%s", want, show)
		}
	}
}
