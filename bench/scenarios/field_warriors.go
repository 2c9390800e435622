package scenarios

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"tracker/bench/load"
)

// The field's warriors: how they are made, connect, arrive open-loop and
// go through a turn of work.

// fieldWarrior is one warrior: a nick, a keep-alive connection to one
// tracker process from its address (see fieldAddresses), and how many
// items it asks for.
type fieldWarrior struct {
	nick    string
	l       *load.Load // its tracker process's
	path    string
	request []byte
	addrs   fieldAddresses
}

// warriors makes n warriors, spread over the tracker processes in turn, and
// puts them in the idle line; it returns them, how many use multi and how
// many roam.
func (f *fieldRun) warriors(n int) ([]*fieldWarrior, int, int) {
	ws := make([]*fieldWarrior, n)
	multi, roaming := 0, 0
	for i := range ws {
		roams := rand.Float64() < fieldRoaming
		if roams {
			roaming++
		}
		w := &fieldWarrior{nick: fmt.Sprintf("field%d", i), l: f.loads[i%len(f.loads)], path: "/" + fieldProject + "/request",
			addrs: newFieldAddresses(i, roams)}
		if rand.Float64() < fieldMultiShare {
			w.path = fmt.Sprintf("/%s/multi=%d//request", fieldProject, 1+rand.IntN(fieldMaxMulti))
			multi++
		}
		w.request, _ = json.Marshal(map[string]string{"downloader": w.nick, "api_version": "2", "version": "20260101.01"})
		ws[i] = w
		f.idle <- w
	}
	return ws, multi, roaming
}

// connect opens every warrior's connection with a request that costs the
// tracker nothing but the connection, 100 at a time, and returns how many
// failed.
func (f *fieldRun) connect(ctx context.Context, ws []*fieldWarrior) int {
	next := make(chan *fieldWarrior)
	var failed atomic.Int64
	var wg sync.WaitGroup
	for range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for w := range next {
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, w.l.Base+"/robots.txt", nil)
				if code, _, err := w.l.Do(w.addrs.client(), "connect", req); err != nil || code != http.StatusOK {
					failed.Add(1)
				}
			}
		}()
	}
	for _, w := range ws {
		next <- w
	}
	close(next)
	wg.Wait()
	return int(failed.Load())
}

// arrive sends the idle warrior at the head of the line to work at each
// arrival, the gaps between arrivals drawn from an exponential law at the
// current rate, until ctx ends. A late arrival is made at once, so the
// rate holds whatever the tracker answers.
func (f *fieldRun) arrive(ctx, workCtx context.Context) {
	next := time.Now()
	for {
		rate := math.Float64frombits(f.rate.Load())
		next = next.Add(time.Duration(rand.ExpFloat64() / rate * float64(time.Second)))
		if !load.Sleep(ctx, time.Until(next)) {
			return
		}
		f.arrivals.Add(1)
		select {
		case w := <-f.idle:
			f.busy.Add(1)
			f.work.Add(1)
			go func() {
				defer f.work.Done()
				f.cycle(workCtx, w)
				f.busy.Add(-1)
				f.idle <- w
			}()
		default:
			f.missed.Add(1)
		}
	}
}

// cycle is one warrior's turn: it asks for work, works 5-60 s (scaled),
// and reports done as seesaw does, retrying until acknowledged; or never,
// or twice; from its address then, which may have changed meanwhile.
func (f *fieldRun) cycle(ctx context.Context, w *fieldWarrior) {
	code, body, err := f.post(ctx, w, "request", w.path, w.request)
	if err != nil || code != http.StatusOK {
		if code == http.StatusNotFound {
			f.empty.Add(1)
		}
		return
	}
	var item struct {
		Name string `json:"item_name"`
	}
	if json.Unmarshal(body, &item) != nil || item.Name == "" {
		return
	}
	f.served.Add(1)
	names := strings.Split(item.Name, "\x00")
	fate := rand.Float64()
	if !load.Sleep(ctx, f.minWork+rand.N(f.maxWork-f.minWork)) {
		return
	}
	if fate < fieldSilent {
		f.withheld.Add(int64(len(names)))
		return
	}
	if w.addrs.move() {
		f.away.Add(int64(len(names)))
	}
	reports := 1
	if fate < fieldSilent+fieldTwice {
		reports = 2
		f.twice.Add(1)
	}
	done, _ := json.Marshal(map[string]any{
		"downloader": w.nick, "version": "20260101.01", "item": item.Name,
		"bytes": map[string]int{"data": 1000 * len(names)}, "id": map[string]string{"sha1": "0"},
	})
	for i := range reports {
		for ctx.Err() == nil {
			code, body, err := f.post(ctx, w, "done", "/"+fieldProject+"/done", done)
			if err == nil && code == http.StatusOK && string(body) == "OK" {
				if i == 0 {
					f.done.Add(int64(len(names)))
				}
				break
			}
			load.Pause(ctx, code)
		}
	}
}

// post sends a warrior's request and, when it gets no answer, tells a
// connection the tracker closed for idleness as the request left from
// other failures.
func (f *fieldRun) post(ctx context.Context, w *fieldWarrior, endpoint, path string, body []byte) (int, []byte, error) {
	var conn httptrace.GotConnInfo
	traced := httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) { conn = i }})
	code, answer, err := w.l.Post(traced, w.addrs.client(), endpoint, path, "application/json", body)
	if err != nil && ctx.Err() == nil {
		if conn.Reused && conn.IdleTime >= fieldServerIdle-10*time.Second {
			f.closedIdle.Add(1)
		} else {
			f.failuresMu.Lock()
			f.failures[err.Error()]++
			f.failuresMu.Unlock()
		}
	}
	return code, answer, err
}
