package scenarios

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"sync"
	"sync/atomic"
	"time"
	"tracker/bench/load"
	"tracker/bench/nodes"
)

// The viewers: volunteers with a project's board open, each holding the
// live event stream (GET /{project}/events) from an address of its own, as
// a popular project's board has them, beside single warriors. What a
// viewer costs is reported: bytes on the wire a minute, the tracker's CPU,
// and its memory per 1,000 viewers.

// viewerAddress is viewer i's address: 127.200.0.1 and on, apart from the
// field's and the hog's.
func viewerAddress(i int) netip.Addr {
	return netip.AddrFrom4([4]byte{127, byte(200 + i/62_500), byte(i / 250 % 250), byte(1 + i%250)})
}

// viewers holds the streams open across a run and counts what they get.
type viewers struct {
	n       int
	base    string
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	bytes   atomic.Int64
	open    atomic.Int64 // streams answered 200 and not yet over
	refused atomic.Int64 // streams answered other than 200
	// rssBefore is the tracker's resident memory before the viewers came;
	// rssWith with them all connected, mid-run.
	rssBefore, rssWith int64
	// openMid is how many streams were open mid-run.
	openMid int64
}

// connect opens every viewer's stream and waits until all are open (or a
// minute has passed); each reconnects when its stream ends, as a browser's
// EventSource does.
func (v *viewers) connect(project string) {
	ctx, cancel := context.WithCancel(context.Background())
	v.cancel = cancel
	for i := range v.n {
		v.wg.Add(1)
		go func() {
			defer v.wg.Done()
			v.watch(ctx, project, viewerAddress(i))
		}()
	}
	for deadline := time.Now().Add(time.Minute); v.open.Load() < int64(v.n) && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
	}
}

// watch is one viewer: its stream read as it comes, the bytes counted as
// they arrive on the wire (gzip asked for, never undone here).
func (v *viewers) watch(ctx context.Context, project string, addr netip.Addr) {
	d := &net.Dialer{LocalAddr: net.TCPAddrFromAddrPort(netip.AddrPortFrom(addr, 0)), Timeout: 20 * time.Second}
	c := &http.Client{Transport: &http.Transport{DialContext: d.DialContext, DisableCompression: true}}
	defer c.CloseIdleConnections()
	buf := make([]byte, 32<<10)
	for ctx.Err() == nil {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, v.base+"/"+project+"/events", nil)
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("Accept-Encoding", "gzip")
		resp, err := c.Do(req)
		if err != nil {
			if ctx.Err() == nil {
				v.refused.Add(1)
				sleepCtx(ctx, time.Second)
			}
			continue
		}
		if resp.StatusCode != http.StatusOK {
			v.refused.Add(1)
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			sleepCtx(ctx, time.Second)
			continue
		}
		v.open.Add(1)
		for {
			n, err := resp.Body.Read(buf)
			v.bytes.Add(int64(n))
			if err != nil {
				break
			}
		}
		v.open.Add(-1)
		resp.Body.Close()
	}
}

func sleepCtx(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

// close ends every stream.
func (v *viewers) close() {
	v.cancel()
	v.wg.Wait()
}

// viewersScenario runs single warriors alone and beside n viewers of the
// bench project's board (beside.go), and notes what a viewer costs.
func (b *bench) viewersScenario(ctx context.Context, name string, warriors, n int) error {
	var v *viewers
	var runBytes, runStart int64
	var runSecs float64
	var cpuWith, cpuAlone []float64
	first := len(b.rows)
	err := b.beside(ctx, name, warriors, others{
		count: n,
		before: func(context.Context) error {
			v = &viewers{n: n, base: b.url, rssBefore: nodes.ResidentRSS(b.serve.PID())}
			v.connect(b.project)
			return nil
		},
		after: func() { v.close() },
		start: func(ctx context.Context, l *load.Load) []func() {
			runStart = v.bytes.Load()
			start := time.Now()
			// Memory mid-run, with every stream open; the bytes of the
			// run's measured time.
			return []func(){func() {
				sleepCtx(ctx, b.o.Duration/2)
				v.rssWith, v.openMid = nodes.ResidentRSS(b.serve.PID()), v.open.Load()
				<-ctx.Done()
				runBytes, runSecs = v.bytes.Load()-runStart, time.Since(start).Seconds()
			}}
		},
		did: func(*load.Load) string {
			perMin := float64(runBytes) / float64(v.n) / runSecs * 60
			return fmt.Sprintf("%d viewers of the board's live stream (%d open mid-run, %d refused or cut): %.0f bytes a viewer a minute, %.1f MB more resident memory a 1,000 viewers",
				v.n, v.openMid, v.refused.Load(), perMin, float64(v.rssWith-v.rssBefore)/float64(v.n)*1000/(1<<20))
		},
	})
	if err != nil {
		return err
	}
	// The tracker's CPU a viewer: a run beside the viewers against the
	// runs alone before and after it (rows alone, beside, alone, …).
	rows := b.rows[first:]
	for i := 1; i+1 < len(rows); i += 2 {
		cpuWith = append(cpuWith, rows[i].TrackerS)
		cpuAlone = append(cpuAlone, (rows[i-1].TrackerS+rows[i+1].TrackerS)/2)
		rows[i].Note += fmt.Sprintf("; tracker CPU %.2f cores beside them, %.2f alone: %.3f ms of CPU a second a viewer",
			rows[i].TrackerS, cpuAlone[len(cpuAlone)-1], (rows[i].TrackerS-cpuAlone[len(cpuAlone)-1])/float64(n)*1000)
	}
	fmt.Fprintf(os.Stderr, "%s: tracker CPU beside the viewers %v, alone %v\n", name, cpuWith, cpuAlone)
	return nil
}
