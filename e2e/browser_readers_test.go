package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"tracker/db"
	"tracker/db/dbtest"
)

// atStatsPage is a page of another site reading the tracker as
// exurd/at-stats' index.html does: fetch() each project's stats.json,
// refuse an answer that is not ok, read its JSON (total_items_done,
// domain_bytes.data, downloader_bytes); and a downloader's numbers as a
// bot's page would.
const atStatsPage = `<!DOCTYPE html>
<p id="stats">loading</p>
<p id="nick">loading</p>
<script>
const TRACKER = %q;
async function getProjectData(project_id) {
    const urls = [` + "`${TRACKER}/${project_id}/stats.json`" + `];
    for (const url of urls) {
        try {
            const response = await fetch(url);
            if (!response.ok) {
                throw new Error(` + "`HTTP ${response.status}`" + `);
            }
            return await response.json();
        } catch (err) {
            console.warn(` + "`Failed ${url}:`" + `, err);
        }
    }
    return null;
}
(async () => {
    const data = await getProjectData("demo");
    document.getElementById("stats").textContent = data ?
        ` + "`items=${data.total_items_done} bytes=${data.domain_bytes.data} alice=${data.downloader_bytes.alice}`" + ` : "failed";
    let nick = "failed";
    try {
        const response = await fetch(` + "`${TRACKER}/downloader/alice.json`" + `);
        if (response.ok) {
            const n = await response.json();
            nick = ` + "`items=${n.items} projects=${n.project_count}`" + `;
        }
    } catch (err) {}
    document.getElementById("nick").textContent = nick;
})();
</script>
`

// A page of another site reads a project's stats.json and a downloader's
// totals from a browser, as dashboards do: the browser lets it (CORS).
func TestBrowserReadsStatsFromAnotherSite(t *testing.T) {
	t.Parallel()
	browser := chromium(t)
	dsn := dbtest.NewDSN(t)
	pool, err := db.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	dbtest.Project(t, pool, "demo", "Demo")
	pool.Close()
	cliEnv(t, env("DATABASE_URL="+dsn), "item:1\n", "items", "add", "demo")
	s := serveCmd(t, exec.Command(binary, "serve", "--addr", "127.0.0.1:0"), env("DATABASE_URL="+dsn))
	code, body := post(t, s.url+"/demo/request", `{"downloader":"alice","api_version":"2"}`)
	if code != 200 || !strings.Contains(body, "item:1") {
		t.Fatalf("request: %d %q", code, body)
	}
	if code, body := post(t, s.url+"/demo/done", `{"downloader":"alice","item":"item:1","bytes":{"data":1234}}`); code != 200 {
		t.Fatalf("done: %d %q", code, body)
	}
	// Alice's totals everywhere are the folded ones: fold them now.
	cliEnv(t, env("DATABASE_URL="+dsn), "", "jobs", "run", "rollup")
	dbtest.Eventually(t, func() bool {
		resp, err := http.Get(s.url + "/demo/stats.json")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		var st struct {
			Done  int64            `json:"total_items_done"`
			Bytes map[string]int64 `json:"downloader_bytes"`
		}
		b, _ := io.ReadAll(resp.Body)
		return json.Unmarshal(b, &st) == nil && st.Done == 1 && st.Bytes["alice"] == 1234
	}, "the done in stats.json")

	// The page's site: another origin (another host and port).
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, atStatsPage, s.url)
	}))
	t.Cleanup(page.Close)
	pageURL := strings.Replace(page.URL, "127.0.0.1", "localhost", 1)

	ctx := newBrowser(t, browser)
	if err := chromedp.Do(ctx, chromedp.Navigate(pageURL)); err != nil {
		t.Fatal(err)
	}
	notLoading := func(s string) bool { return s != "loading" && s != "" }
	if got := waitText(t, ctx, "#stats", 30*time.Second, notLoading); got != "items=1 bytes=1234 alice=1234" {
		t.Errorf("stats.json read from %s: %q", pageURL, got)
	}
	if got := waitText(t, ctx, "#nick", 30*time.Second, notLoading); got != "items=1 projects=1" {
		t.Errorf("alice's totals read from %s: %q", pageURL, got)
	}
	s.stop(t)
}
