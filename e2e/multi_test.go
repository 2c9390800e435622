package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Three serve processes on one database, warriors going round-robin over
// them, one process killed with SIGKILL half-way and started again: every
// item is handed out once, every done answered OK is on record, and the
// books balance.
func TestThreeServersAndACrash(t *testing.T) {
	t.Parallel()
	dir := dataDir(t)
	servers := []*server{serve(t, dir), serve(t, dir), serve(t, dir)}
	cli(t, "", "project", "create", "demo", "--data-dir", dir)
	const total = 3000
	var names strings.Builder
	for i := range total {
		fmt.Fprintf(&names, "item:%d\n", i)
	}
	cli(t, names.String(), "items", "add", "demo", "--data-dir", dir)
	cli(t, "", "project", "set", "demo", "reclaim_ttl=2", "--data-dir", dir)

	var (
		mu     sync.Mutex
		alive  = []bool{true, true, true}
		handed = map[string]string{}
		doneOK = map[string]bool{}
		// unanswered are the items of a done whose answer never came (the
		// process died with it): on record or not, and never reported again.
		unanswered = map[string]bool{}
		requests   int
	)
	url := func(k int) (string, bool) {
		mu.Lock()
		defer mu.Unlock()
		requests++
		for i := range 3 {
			if j := (k + i) % 3; alive[j] {
				return servers[j].url, true
			}
		}
		return "", false
	}
	client := &http.Client{Timeout: 20 * time.Second}
	postJSON := func(u, body string) (int, string, error) {
		resp, err := client.Post(u, "application/json", strings.NewReader(body))
		if err != nil {
			return 0, "", err
		}
		defer resp.Body.Close()
		var b strings.Builder
		_, err = fmt.Fprint(&b, readAll(resp))
		return resp.StatusCode, b.String(), err
	}

	// finished tells whether the project's board (as the server read it,
	// within the second) has every item done and none out or queued.
	finished := func(base string) bool {
		resp, err := client.Get(base + "/demo/stats.json")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		var b struct {
			Totals struct{ Done, Claims, Todo int64 }
		}
		return resp.StatusCode == 200 && json.NewDecoder(resp.Body).Decode(&b) == nil &&
			b.Totals.Done == total && b.Totals.Claims == 0 && b.Totals.Todo == 0
	}
	deadline := time.Now().Add(3 * time.Minute)

	var wg sync.WaitGroup
	for w := range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			nick := fmt.Sprintf("w%d", w)
			for k := w; ; k++ {
				base, ok := url(k)
				if !ok {
					return
				}
				code, body, err := postJSON(base+"/demo/multi=5//request", `{"downloader":"`+nick+`"}`)
				if err != nil {
					continue // that process is gone: the next one
				}
				if code == 404 {
					// Nothing to hand out now; claims lost with the killed
					// process come back after the reclaim TTL. Carry on
					// until every item is done.
					if finished(base) {
						return
					}
					if time.Now().After(deadline) {
						t.Errorf("%s: items still not done after 3 min", nick)
						return
					}
					time.Sleep(200 * time.Millisecond)
					continue
				}
				var got struct {
					Item string `json:"item_name"`
				}
				if code != 200 || json.Unmarshal([]byte(body), &got) != nil {
					t.Errorf("request: %d %q", code, body)
					return
				}
				items := strings.Split(got.Item, "\x00")
				mu.Lock()
				for _, it := range items {
					if prev, again := handed[it]; again && doneOK[it] {
						t.Errorf("%s handed to %s after %s completed it", it, nick, prev)
					}
					handed[it] = nick
				}
				mu.Unlock()
				base, ok = url(k + 1)
				if !ok {
					return
				}
				done, _ := json.Marshal(map[string]any{"downloader": nick, "item": got.Item, "bytes": map[string]int{"data": 10}})
				code, body, err = postJSON(base+"/demo/done", string(done))
				mu.Lock()
				for _, it := range items {
					switch {
					case err == nil && code == 200 && body == "OK":
						doneOK[it] = true
					case err != nil:
						unanswered[it] = true
					}
				}
				mu.Unlock()
			}
		}()
	}
	// Half-way, the third process dies without a word, and comes back.
	for {
		mu.Lock()
		n := len(doneOK)
		mu.Unlock()
		if n >= total/2 {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("only %d items done OK of %d in 3 min", n, total)
			mu.Lock()
			alive = []bool{false, false, false} // the warriors stop
			mu.Unlock()
			wg.Wait()
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	mu.Lock()
	alive[2] = false
	mu.Unlock()
	servers[2].cmd.Process.Signal(syscall.SIGKILL)
	<-servers[2].exited
	restarted := serve(t, dir)
	mu.Lock()
	servers[2], alive[2] = restarted, true
	mu.Unlock()
	wg.Wait()

	// Every item is done, and every one was answered OK but those of a
	// done whose answer the killed process never sent (which may be on
	// record without its OK).
	for i := range total {
		if it := fmt.Sprintf("item:%d", i); !doneOK[it] && !unanswered[it] {
			t.Errorf("%s was never answered OK, and no done of it went unanswered", it)
		}
	}
	for i := range total {
		it := fmt.Sprintf("item:%d", i)
		resp, err := http.Get(servers[0].url + "/demo/items/" + it + ".json")
		// Read as fast as loopback goes, the reads pass the readers' rate:
		// a reader told to come back later does, as a script would.
		for tries := 0; err == nil && resp.StatusCode == http.StatusServiceUnavailable && resp.Header.Get("Retry-After") != "" && tries < 30; tries++ {
			resp.Body.Close()
			time.Sleep(100 * time.Millisecond)
			resp, err = http.Get(servers[0].url + "/demo/items/" + it + ".json")
		}
		if err != nil {
			t.Fatal(err)
		}
		var st struct{ Status string }
		err = json.NewDecoder(resp.Body).Decode(&st)
		resp.Body.Close()
		if resp.StatusCode != 200 || err != nil {
			t.Fatalf("%s: %d %v", it, resp.StatusCode, err)
		}
		if st.Status != "done" {
			t.Errorf("%s is %q (answered OK: %v)", it, st.Status, doneOK[it])
		}
	}
	// The rollup folds the tallies in, then the books are checked.
	cli(t, "", "jobs", "run", "rollup", "--data-dir", dir)
	out := cli(t, "", "check", "demo", "--data-dir", dir)
	if !strings.Contains(out, `"balanced": true`) {
		t.Errorf("the books do not balance:\n%s", out)
	}
	for _, s := range servers {
		s.stop(t)
	}
}

func readAll(resp *http.Response) string {
	var b strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := resp.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			return b.String()
		}
	}
}
