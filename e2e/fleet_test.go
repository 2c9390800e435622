package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"tracker/db/dbtest"
)

// fleet is warriors working a project until halted, as seesaw does: a
// request (one item, or three with multi=3), then a done of what it got,
// each tried again after a 503 with Retry-After (the warrior's own wait
// shortened) until answered. Every other answer but 200 (and 404 for a
// request, the queue empty) is a failure of the test. It keeps, for every
// item, when its first done was sent and when a done of it was answered
// OK.
type fleet struct {
	t       *testing.T
	project string
	base    func() string // where the next call goes
	client  *http.Client

	mu      sync.Mutex
	items   map[string]*itemDone
	ok      int            // completions answered OK
	retried map[string]int // answers 503 with Retry-After, by X-Tracker-Reason ("" a proxy's)
	halting bool
	wg      sync.WaitGroup

	// refill adds items to the project when a warrior finds the queue
	// empty, one call at a time: the test goes on for as long as it needs,
	// however fast the warriors are.
	refill  func()
	filling sync.Mutex
}

type itemDone struct {
	sent time.Time // the first done of it sent
	ok   time.Time // a done of it answered OK, or zero
}

// startFleet starts warriors working project at base, with refill to add
// items when the queue runs out.
func startFleet(t *testing.T, project string, warriors int, base func() string, refill func()) *fleet {
	f := &fleet{t: t, project: project, base: base, refill: refill, items: map[string]*itemDone{}, retried: map[string]int{},
		client: &http.Client{Timeout: 30 * time.Second}}
	for w := range warriors {
		f.wg.Add(1)
		go f.warrior(fmt.Sprintf("w%d", w), w%2 == 1)
	}
	t.Cleanup(f.halt)
	return f
}

func (f *fleet) stopped() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.halting
}

func (f *fleet) warrior(nick string, multi bool) {
	defer f.wg.Done()
	path := "/" + f.project + "/request"
	if multi {
		path = "/" + f.project + "/multi=3//request"
	}
	for !f.stopped() {
		code, body := f.call(path, `{"downloader":"`+nick+`","api_version":"2","version":"1"}`, nil)
		if code == 404 {
			// The queue is empty: one warrior fills it, the others wait
			// for it.
			f.filling.Lock()
			f.refill()
			f.filling.Unlock()
			continue
		}
		if code != 200 {
			return
		}
		var got struct {
			Item string `json:"item_name"`
		}
		if err := json.Unmarshal([]byte(body), &got); err != nil {
			f.t.Errorf("request: %q: %v", body, err)
			return
		}
		names := strings.Split(got.Item, "\x00")
		done, _ := json.Marshal(map[string]any{"downloader": nick, "version": "1", "item": got.Item, "bytes": map[string]int{"data": 10}, "id": map[string]any{}})
		code, body = f.call("/"+f.project+"/done", string(done), names)
		if code != 200 || body != "OK" {
			if code == 200 {
				f.t.Errorf("done of %q: %q", got.Item, body)
			}
			return
		}
	}
}

// call posts body to path until it is answered other than 503 with
// Retry-After (or the fleet halts: 0). A done's items (names) are logged.
func (f *fleet) call(path, body string, names []string) (int, string) {
	for {
		sent := time.Now()
		if names != nil {
			f.mu.Lock()
			for _, n := range names {
				if f.items[n] == nil {
					f.items[n] = &itemDone{sent: sent}
				}
			}
			f.mu.Unlock()
		}
		resp, err := f.client.Post(f.base()+path, "application/json", strings.NewReader(body))
		if err != nil {
			f.t.Errorf("POST %s: %v", path, err)
			return 0, ""
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			f.t.Errorf("POST %s: %v", path, err)
			return 0, ""
		}
		switch {
		case resp.StatusCode == 200 && names != nil && string(b) == "OK":
			answered := time.Now()
			f.mu.Lock()
			for _, n := range names {
				f.items[n].ok = answered
			}
			f.ok += len(names)
			f.mu.Unlock()
			return 200, "OK"
		case resp.StatusCode == 200 || resp.StatusCode == 404 && names == nil:
			return resp.StatusCode, string(b)
		case resp.StatusCode == 503 && resp.Header.Get("Retry-After") != "":
			f.mu.Lock()
			f.retried[resp.Header.Get("X-Tracker-Reason")]++
			halting := f.halting
			f.mu.Unlock()
			if halting {
				return 0, ""
			}
			time.Sleep(50 * time.Millisecond)
		default:
			f.t.Errorf("POST %s: %d %s (Retry-After %q): %q", path, resp.StatusCode, resp.Header.Get("X-Tracker-Reason"), resp.Header.Get("Retry-After"), b)
			return resp.StatusCode, string(b)
		}
	}
}

// done is how many completions were answered OK so far.
func (f *fleet) done() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.ok
}

// waitFor waits until n more completions than now are answered OK.
func (f *fleet) waitFor(n int, what string) {
	f.t.Helper()
	want := f.done() + n
	dbtest.Eventually(f.t, func() bool { return f.done() >= want }, fmt.Sprintf("%d more completions %s", n, what))
}

// halt stops the warriors and waits for them; a call in flight is answered
// first.
func (f *fleet) halt() {
	f.mu.Lock()
	f.halting = true
	f.mu.Unlock()
	f.wg.Wait()
}

// log is the items' record, once halted.
func (f *fleet) log() map[string]itemDone {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make(map[string]itemDone, len(f.items))
	for n, d := range f.items {
		out[n] = *d
	}
	return out
}

// itemStatus is an item's status as the tracker at base tells it.
func itemStatus(t *testing.T, base, project, item string) string {
	t.Helper()
	for {
		resp, err := http.Get(base + "/" + project + "/items/" + item + ".json")
		if err != nil {
			t.Fatal(err)
		}
		var st struct{ Status string }
		err = json.NewDecoder(resp.Body).Decode(&st)
		resp.Body.Close()
		if resp.StatusCode == 503 && resp.Header.Get("Retry-After") != "" {
			time.Sleep(50 * time.Millisecond) // readers-busy: the reads take turns
			continue
		}
		if resp.StatusCode != 200 || err != nil {
			t.Fatalf("%s: %d %v", item, resp.StatusCode, err)
		}
		return st.Status
	}
}

// retries is how many answers were 503 with Retry-After so far, by
// X-Tracker-Reason (none: the proxy's own).
func (f *fleet) retries() map[string]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return maps.Clone(f.retried)
}

// addItems is a fleet's refill: each call adds n items to project, named
// item:K on from where the call before stopped, with the tracker binary
// bin() run with environment env.
func addItems(t *testing.T, bin func() string, env []string, project string, n int) func() {
	next := 0
	return func() {
		var names strings.Builder
		for i := next; i < next+n; i++ {
			fmt.Fprintf(&names, "item:%d\n", i)
		}
		next += n
		cmd := exec.Command(bin(), "items", "add", project)
		cmd.Env, cmd.Stdin = env, strings.NewReader(names.String())
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("items add: %v\n%s", err, out)
		}
	}
}

// requestAt asks the tracker at base for one item of demo for nick.
func requestAt(t *testing.T, base, nick string) string {
	t.Helper()
	code, body := post(t, base+"/demo/request", `{"downloader":"`+nick+`"}`)
	if code != 200 {
		t.Fatalf("request at %s: %d %q", base, code, body)
	}
	return body
}
