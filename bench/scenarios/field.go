package scenarios

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"tracker/bench/load"
	"tracker/bench/nodes"
	"tracker/bench/report"
)

// The field scenario: the tracker as a big project meets it. Thousands of
// warriors, each busy with an item most of the time and so idle on the
// wire, each holding a keep-alive connection; most asking for many items at
// once; some never reporting, some reporting twice; grab scripts
// backfeeding; several tracker processes on one PostgreSQL. The warriors
// arrive open-loop, at a rate that does not wait for the tracker, stepped
// up until the tracker falls behind or the warriors run out.

const (
	fieldProject     = "field"
	fieldTrackers    = 3
	fieldGrabScripts = 20
	// A grab script posts 400 names (half seen before) every 5 s.
	fieldBackfeedEvery = 5 * time.Second
	// 70 % of the warriors ask with multi=N, N drawn from 1 to 100 for
	// each (urls-grab asks for 100, telegram for 30); the others one item
	// at a time.
	fieldMultiShare = 0.70
	fieldMaxMulti   = 100
	fieldMeanItems  = (1 - fieldMultiShare) + fieldMultiShare*(1+fieldMaxMulti)/2.0
	// Of the hand-outs, 2 % are never reported (the warrior failed: the
	// claims expire and the reclaim job brings them back), 1 % twice.
	fieldSilent = 0.02
	fieldTwice  = 0.01
	// Each step raises the arrival rate by half, up to 10 steps; the run
	// ends at the second step in a row not sustained (one is forgiven: on
	// a shared machine a neighbour's burst can spoil a minute), or at the
	// first whose warriors ran out or that got an answer no client expects.
	fieldStepFactor = 1.5
	fieldMaxSteps   = 10
	// A step is sustained when the request p99 is within 100 ms, no answer
	// is other than 2xx or a documented 404 or 429, and an idle warrior was
	// there for every arrival.
	fieldP99          = 100 * time.Millisecond
	fieldReclaimEvery = 5 * time.Second
	// The tracker closes a connection idle this long (serve.go's
	// idleTimeout). A warrior whose request leaves as the tracker closes
	// its connection gets no answer: the request never reached a handler,
	// seesaw tries again, and the step is not failed for it.
	fieldServerIdle = 120 * time.Second
)

// fieldRun is the scenario's state while it runs.
type fieldRun struct {
	loads []*load.Load // one per tracker process, all recording into one stats
	// idle holds the warriors not at work, the one idle longest first:
	// every warrior comes round in turn, as each of a real field asks again
	// when its item is done.
	idle             chan *fieldWarrior
	minWork, maxWork time.Duration
	rate             atomic.Uint64 // arrivals a second, as math.Float64bits
	work             sync.WaitGroup

	// Arrivals (missed: no warrior idle), warriors at work, requests
	// answered with items or 404, items reported done, names handed out
	// and never reported, hand-outs reported twice, requests lost on a
	// connection the tracker closed as they left; items reported done from
	// another /24 than their request.
	arrivals, missed, busy, served, empty, done, withheld, twice, closedIdle, away atomic.Int64

	failuresMu sync.Mutex
	failures   map[string]int // the other requests that got no answer, by error

	// Set up before the first step: the tracker processes, their ports
	// and the stats they record into; the warriors, how many ask with
	// multi and how many roam; claims' reclaim_ttl in seconds.
	pids, ports    []int
	stats          *load.Stats
	warriorList    []*fieldWarrior
	multi, roaming int
	ttl            int
	settle         time.Duration
	// With every warrior connected and idle: the processes' resident sets
	// before, the connections held and the memory they grew by.
	baseRSS               []int64
	idleConns, idleGrowth int64
}

// fieldStep is what one step measured.
type fieldStep struct {
	target, rate  float64 // arrivals a second: asked for, made
	missed, busy  int64
	served, empty int64
	unexpected    int   // answers other than 2xx, 404 and 429, and no answer
	closedIdle    int64 // of the requests without an answer, those forgiven (see post)
	row           *report.Row
	conns, rss    []int64 // per tracker process
	pgConns       int
	// The bound of the tracker's own latency buckets that 99 % of the
	// requests were answered within, as its /metrics timed them (from the
	// handler's start: no wait for a CPU before it); the load average.
	serverP99, loadavg string
}

func (s fieldStep) sustained() bool {
	return s.row.Latency["request"][2] <= fieldP99 && s.unexpected == 0 && s.missed == 0
}

// field runs the field scenario on a project of its own and prints what it
// found: the sustainable arrival rate, the tracker processes' connections
// and memory, PostgreSQL's connections, and the books.
func (b *bench) field(ctx context.Context) error {
	f, err := newFieldRun(b.o)
	if err != nil {
		return err
	}
	// Every warrior and grab script holds a connection here, and the
	// tracker processes started below inherit the limit.
	if err := raiseOpenFiles(uint64(b.o.FieldWarriors + fieldGrabScripts + 1000)); err != nil {
		return err
	}
	key, err := b.fieldProject(f)
	defer b.cli("", "jobs", "set", "reclaim", "--every", "30s") // the job's default
	if err != nil {
		return err
	}
	more, err := b.fieldProcesses(ctx, f, key)
	defer func() {
		for _, t := range more {
			t.Stop()
		}
	}()
	if err != nil {
		return err
	}
	f.warriorList, f.multi, f.roaming = f.warriors(b.o.FieldWarriors)
	defer func() {
		for _, w := range f.warriorList {
			w.addrs.close()
		}
	}()
	f.connectAll(ctx)

	runCtx, stopRun := context.WithCancel(ctx)
	defer stopRun()
	workCtx, stopWork := context.WithCancel(ctx)
	defer stopWork()
	scripts := f.grabScripts(runCtx)
	pgPeak := b.fieldPGPeak(runCtx)
	arrived := make(chan struct{})
	steps, err := b.fieldSteps(ctx, f, func() {
		go func() { defer close(arrived); f.arrive(runCtx, workCtx) }()
	})
	if err != nil || len(steps) == 0 {
		return cmp.Or(err, ctx.Err())
	}

	// The warriors at work finish their items; then the never-reported
	// claims come back through the reclaim job (ttl × claim count after
	// their claim), each an expiry.
	stopRun()
	<-arrived
	scripts.Wait()
	f.finishWork(stopWork)
	expiries := b.fieldExpiries(ctx, f.withheld.Load(), time.Duration(2*f.ttl)*time.Second+2*fieldReclaimEvery+30*time.Second)
	time.Sleep(5 * time.Second) // the rollup folds what the last seconds appended
	check, checkErr := b.cli("", "check", fieldProject)

	f.printSteps(b.o, steps)
	f.printFindings(steps, pgPeak(), expiries)
	if err := f.fieldAddressReport(ctx, b, f.roaming); err != nil {
		return err
	}
	return printFieldBooks(check, checkErr)
}

// newFieldRun checks the field's flags and makes its state: the warriors'
// work times scaled by -field-work-scale, an idle line for every warrior.
func newFieldRun(o Options) (*fieldRun, error) {
	scale := func(d time.Duration) time.Duration { return time.Duration(float64(d) * o.FieldWorkScale) }
	f := &fieldRun{idle: make(chan *fieldWarrior, o.FieldWarriors), minWork: scale(5 * time.Second), maxWork: scale(60 * time.Second), failures: map[string]int{}}
	if f.maxWork <= f.minWork || o.FieldWarriors < fieldTrackers || o.FieldRate <= 0 {
		return nil, fmt.Errorf("-field-warriors %d, -field-rate %g, -field-work-scale %g: at least %d warriors, a rate and a scale above 0",
			o.FieldWarriors, o.FieldRate, o.FieldWorkScale, fieldTrackers)
	}
	// A step settles for the longest work, so the warriors at work reach
	// the new rate's number before it is measured.
	f.settle = max(f.maxWork, 10*time.Second)
	return f, nil
}

// fieldProject creates the field's project and sets its claims and the
// reclaim job as the field needs them; it returns the backfeed key. The
// caller puts the reclaim job back, whatever the error.
func (b *bench) fieldProject(f *fieldRun) (string, error) {
	key, err := b.createProject(fieldProject, "Field")
	if err != nil {
		return "", err
	}
	// Claims expire 15 s after the longest work: a never-reported claim
	// comes back within the run, a slow one is not taken from its holder.
	f.ttl = int(math.Ceil(f.maxWork.Seconds())) + 15
	for _, args := range [][]string{
		{"project", "set", fieldProject, fmt.Sprintf("reclaim_ttl=%d", f.ttl)},
		{"project", "set", fieldProject, fmt.Sprintf("claimer_network=%v", b.o.FieldClaimerNetwork)},
		{"jobs", "set", "reclaim", "--every", fieldReclaimEvery.String()},
	} {
		if _, err := b.cli("", args...); err != nil {
			return "", err
		}
	}
	return key, nil
}

// fieldProcesses starts the tracker processes beside the bench's own and
// makes a load for each, all recording into one stats; it returns the
// processes it started, for the caller to stop, even on an error.
func (b *bench) fieldProcesses(ctx context.Context, f *fieldRun, key string) ([]*nodes.Tracker, error) {
	more, urls, err := b.moreTrackers(ctx, fieldTrackers-1)
	if err != nil {
		return more, err
	}
	f.pids = []int{b.serve.PID()}
	for _, t := range more {
		f.pids = append(f.pids, t.PID())
	}
	urls = append([]string{b.url}, urls...)
	f.ports = make([]int, len(urls))
	f.stats = load.NewStats()
	for i, u := range urls {
		p, err := url.Parse(u)
		if err != nil {
			return more, err
		}
		f.ports[i], _ = strconv.Atoi(p.Port())
		f.loads = append(f.loads, &load.Load{Base: u, Project: fieldProject, BackfeedKey: key, Stats: f.stats, BackfeedEvery: fieldBackfeedEvery})
	}
	return more, nil
}

// connectAll connects every warrior before the first step and measures
// what the idle connections cost: the memory a tracker process spends on
// an idle keep-alive connection is the difference the connections make to
// its resident set.
func (f *fieldRun) connectAll(ctx context.Context) {
	f.baseRSS = make([]int64, len(f.pids))
	for i, pid := range f.pids {
		f.baseRSS[i] = nodes.ResidentRSS(pid)
	}
	failed := f.connect(ctx, f.warriorList)
	time.Sleep(time.Second)
	for i, pid := range f.pids {
		f.idleConns += int64(nodes.Established(f.ports[i]))
		f.idleGrowth += nodes.ResidentRSS(pid) - f.baseRSS[i]
	}
	fmt.Fprintf(os.Stderr, "field: %d warriors connected (%d failed), %d connections held\n", len(f.warriorList)-failed, failed, f.idleConns)
}

// grabScripts starts the field's grab scripts, spread over the tracker
// processes, until ctx ends.
func (f *fieldRun) grabScripts(ctx context.Context) *sync.WaitGroup {
	var scripts sync.WaitGroup
	for i := range fieldGrabScripts {
		scripts.Add(1)
		go func() {
			defer scripts.Done()
			// Each starts at its own moment: in step, their posts would
			// come in bursts no field sends.
			if load.Sleep(ctx, rand.N(fieldBackfeedEvery)) {
				f.loads[i%len(f.loads)].GrabScript(ctx, 2000+i)
			}
		}()
	}
	return &scripts
}

// fieldSteps raises the arrival rate step by step until the tracker falls
// behind or the warriors run out; start starts the arrivals once the
// first step's items are queued. A step queues what its rate takes, half
// again for the import of the next (made at this step's rate), then
// settles before it is measured for -duration.
func (b *bench) fieldSteps(ctx context.Context, f *fieldRun, start func()) ([]fieldStep, error) {
	var steps []fieldStep
	for k := 0; k < fieldMaxSteps && ctx.Err() == nil; k++ {
		target := b.o.FieldRate * math.Pow(fieldStepFactor, float64(k))
		queue := int(target * fieldMeanItems * (f.settle + b.o.Duration).Seconds() * 1.5)
		if _, err := b.fillLines(fieldProject, queue, func(w *bufio.Writer, i int) {
			fmt.Fprintf(w, "field:%d:%d\n", k, i)
		}); err != nil {
			return steps, err
		}
		f.rate.Store(math.Float64bits(target))
		if k == 0 {
			start()
		}
		load.Sleep(ctx, f.settle)
		s := f.measure(ctx, b, target, f.pids, f.ports, f.stats)
		steps = append(steps, s)
		fmt.Fprintf(os.Stderr, "field %6.1f/s: request p99 %s ms, %d missed, %s\n", target, report.Ms(s.row.Latency["request"][2]), s.missed, s.row.Errors)
		if lastStep(steps) {
			break
		}
	}
	return steps, nil
}

// lastStep says whether the steps so far end the run: the warriors ran
// out, an answer came that no client expects, or two steps in a row were
// not sustained (one is forgiven: on a shared machine a neighbour's burst
// can spoil a minute).
func lastStep(steps []fieldStep) bool {
	s := steps[len(steps)-1]
	return s.missed > 0 || s.unexpected > 0 || !s.sustained() && len(steps) > 1 && !steps[len(steps)-2].sustained()
}

// finishWork waits for the warriors at work to finish their items, up to
// the longest work and a minute, then stops them.
func (f *fieldRun) finishWork(stopWork context.CancelFunc) {
	finished := make(chan struct{})
	go func() { f.work.Wait(); close(finished) }()
	select {
	case <-finished:
	case <-time.After(f.maxWork + time.Minute):
	}
	stopWork()
	<-finished
}

// measure measures one step for the run's duration: the answers, the
// processes' CPU, connections and memory at its end, PostgreSQL's
// connections.
func (f *fieldRun) measure(ctx context.Context, b *bench, target float64, pids, ports []int, st *load.Stats) fieldStep {
	pm := b.postmaster()
	b.pool.Exec(ctx, "SELECT pg_stat_statements_reset()")
	trackerCPU := func() float64 {
		s := 0.0
		for _, pid := range pids {
			s += nodes.CPUSeconds(pid)
		}
		return s
	}
	cpu0, pg0, load0 := trackerCPU(), nodes.ClusterCPUSeconds(pm), nodes.CPUSeconds(os.Getpid())
	arrivals0, missed0, served0, empty0, done0, closed0 := f.arrivals.Load(), f.missed.Load(), f.served.Load(), f.empty.Load(), f.done.Load(), f.closedIdle.Load()
	st.Take() // the settling is not measured
	server0 := f.serverHistogram("request")
	start := time.Now()
	load.Sleep(ctx, b.o.Duration)
	answers := st.Take()
	secs := time.Since(start).Seconds()
	server := f.serverHistogram("request")

	s := fieldStep{
		target: target, rate: float64(f.arrivals.Load()-arrivals0) / secs,
		missed: f.missed.Load() - missed0, busy: f.busy.Load(),
		served: f.served.Load() - served0, empty: f.empty.Load() - empty0,
		serverP99: p99Bucket(server0, server), loadavg: nodes.LoadAverage(),
		closedIdle: f.closedIdle.Load() - closed0,
	}
	s.row = &report.Row{
		Name: fmt.Sprintf("field %.0f/s", target), Clients: cap(f.idle),
		ItemsPerS: float64(f.done.Load()-done0) / secs,
		ReqPerS:   float64(answers.Total()) / secs,
		Latency:   map[string][3]time.Duration{},
		Errors:    answers.Errors(),
		TrackerS:  (trackerCPU() - cpu0) / secs,
		PostgresS: (nodes.ClusterCPUSeconds(pm) - pg0) / secs,
		LoadS:     (nodes.CPUSeconds(os.Getpid()) - load0) / secs,
		Note: fmt.Sprintf("%d warriors on %d tracker processes, %.1f arrivals/s asked, %.1f made (%d found no warrior idle); items/s counts items reported done; tracker CPU and peak RSS: the processes together, the largest",
			cap(f.idle), len(pids), target, s.rate, s.missed),
	}
	for _, e := range answers.Endpoints() {
		p50, p90, p99 := answers.Percentiles(e)
		s.row.Latency[e] = [3]time.Duration{p50, p90, p99}
	}
	s.unexpected = answers.Unexpected(http.StatusNotFound, http.StatusTooManyRequests)
	s.unexpected -= int(s.closedIdle) // recorded as failed, forgiven
	for i, pid := range pids {
		s.conns = append(s.conns, int64(nodes.Established(ports[i])))
		s.rss = append(s.rss, nodes.ResidentRSS(pid))
		s.row.RSSMB = max(s.row.RSSMB, float64(nodes.PeakRSS(pid))/(1<<20))
	}
	s.pgConns = b.pgConnections(ctx)
	s.row.Top = b.topStatements(ctx, secs)
	b.rows = append(b.rows, s.row)
	return s
}

// serverHistogram sums the tracker processes' histograms of a route's
// answer times (tracker_http_request_duration_seconds in /metrics): the
// answers within each bucket's bound, by bound.
func (f *fieldRun) serverHistogram(route string) map[string]float64 {
	h := map[string]float64{}
	for _, l := range f.loads {
		resp, err := http.Get(l.Base + "/metrics")
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			line := sc.Text()
			if !strings.HasPrefix(line, "tracker_http_request_duration_seconds_bucket{") || !strings.Contains(line, `route="`+route+`"`) {
				continue
			}
			_, le, _ := strings.Cut(line, `le="`)
			le, _, _ = strings.Cut(le, `"`)
			if v, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64); err == nil {
				h[le] += v
			}
		}
		resp.Body.Close()
	}
	return h
}

// p99Bucket is the least bucket bound within which 99 % of the answers
// between two readings of a histogram fell, as "≤ 100 ms".
func p99Bucket(before, after map[string]float64) string {
	total := after["+Inf"] - before["+Inf"]
	if total <= 0 {
		return "-"
	}
	var bounds []float64
	for le := range after {
		if v, err := strconv.ParseFloat(le, 64); err == nil && !math.IsInf(v, 1) {
			bounds = append(bounds, v)
		}
	}
	slices.Sort(bounds)
	for _, v := range bounds {
		le := strconv.FormatFloat(v, 'g', -1, 64)
		if after[le]-before[le] >= 0.99*total {
			return fmt.Sprintf("≤ %g ms", v*1000)
		}
	}
	return fmt.Sprintf("> %g ms", bounds[len(bounds)-1]*1000)
}

// pgConnections counts PostgreSQL's client backends.
func (b *bench) pgConnections(ctx context.Context) int {
	var n int
	b.pool.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend'").Scan(&n)
	return n
}

// fieldPGPeak samples PostgreSQL's client backends every second until ctx
// ends; the function returned gives the most seen.
func (b *bench) fieldPGPeak(ctx context.Context) func() int {
	var peak atomic.Int64
	go func() {
		for load.Sleep(ctx, time.Second) {
			if n := int64(b.pgConnections(ctx)); n > peak.Load() {
				peak.Store(n)
			}
		}
	}()
	return func() int { return int(peak.Load()) }
}

// fieldExpiries waits, up to wait, until the field project's claims have
// expired as many times as names were withheld, and returns how many did.
func (b *bench) fieldExpiries(ctx context.Context, withheld int64, wait time.Duration) int64 {
	deadline := time.Now().Add(wait)
	for {
		var n int64
		b.pool.QueryRow(ctx, `SELECT count(*) FROM claim_expiries e JOIN projects p ON p.id = e.project_id WHERE p.slug = $1`, fieldProject).Scan(&n)
		if n >= withheld || time.Now().After(deadline) || !load.Sleep(ctx, 2*time.Second) {
			return n
		}
	}
}

// moreTrackers starts n more tracker processes on the bench's data
// directory, beside its own, and returns them and their URLs.
func (b *bench) moreTrackers(ctx context.Context, n int) ([]*nodes.Tracker, []string, error) {
	// The profiles are the first process's: an address serves one.
	serve, own, debug := b.serve, b.url, b.o.DebugAddr
	defer func() { b.serve, b.url, b.o.DebugAddr = serve, own, debug }()
	b.o.DebugAddr = ""
	var cmds []*nodes.Tracker
	var urls []string
	for range n {
		if err := b.start(ctx); err != nil {
			return cmds, urls, err
		}
		cmds, urls = append(cmds, b.serve), append(urls, b.url)
	}
	return cmds, urls, nil
}

// raiseOpenFiles raises the limit on open files to need, which every
// warrior's connection takes here whatever the processes, and fails when
// this machine does not let it reach that.
func raiseOpenFiles(need uint64) error {
	limit, err := nodes.RaiseOpenFiles(need)
	if err != nil {
		return err
	}
	if limit < need {
		// The population this machine allows is the limit's.
		return fmt.Errorf("the field needs %d open files and the limit is %d, which this machine does not let be raised (ulimit -Hn): "+
			"at most -field-warriors %d here; a smaller -field-work-scale lets as many warriors arrive more often",
			need, limit, limit-fieldGrabScripts-1000)
	}
	return nil
}
