package items_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"pgregory.net/rapid"

	"tracker/archive"
	"tracker/books"
	"tracker/db"
	"tracker/db/dbtest"
	"tracker/items"
	"tracker/naming"
	"tracker/projects"
	"tracker/refusal"
)

// The model test drives the item engine as a state machine: random
// sequences of imports, backfeed (with and without skipbloom), requests,
// completions, releases (of an
// item or of a site's claims), expiries, reclaims, revisits, queue moves
// and configuration changes, sent to two engines on two pools (two
// tracker processes) sharing one database, each with a view of the
// project that may be stale, as the project cache's is.
// A small model says where each item must be; after every step the database
// must agree with it, every item must be in exactly one place, and the
// books must balance. A drain (the step that asks for everything) checks
// that every queued item is served unless a documented limit holds it.
//
// `go test ./items -run TestModel -rapid.checks=N -rapid.steps=M` runs it
// longer; a failure prints the seed (-rapid.seed) that replays it.

// Where an item is, in the model.
const (
	mQueued    = "queued"    // in queue (todo)
	mOut       = "out"       // claimed by holder
	mScheduled = "scheduled" // waiting for its next visit (revisits)
	mDone      = "done"      // completed, in no queue
	mDropped   = "dropped"   // drained: seen, in no table of a state
)

type mItem struct {
	where string
	// name is the item's name as queued and handed out: the model's key
	// (its name up to any 0x1F) and, when backfed with one, a context
	// carrying an update tag.
	name string
	// queue is the item's queue while queued, and the queue it goes back
	// to while out. A revisit band is "revisit:" (its number is the
	// engine's business).
	queue  string
	holder string // while out
	// last is the downloader that held the item last: it may still report
	// it done.
	last string
	// net and lastNet are the networks the holder and the last holder
	// claimed the item from (see netOf): with claimer_network, what a done
	// or release must come from.
	net, lastNet string
	claims       int // hand-outs counted toward max_claims
	// expired: out, and its claim aged past any reclaim TTL.
	expired bool
	// completions are the item's completions in the hot table (not yet
	// archived).
	completions []mCompletion
	// due: scheduled, and its next visit is due.
	due bool
	// score is the item's score in a recurring project: 1 until visits
	// say otherwise.
	score float64
	// params are the parameters it was first queued with, as handed out
	// ("" for none); tag the update tag it was queued with last.
	params, tag string
}

// mCompletion is one completion of an item.
type mCompletion struct {
	name   string // the item's name as completed
	result string // its result ("" for none)
	// claimAged: its claim is older than any recrawl_after; old: it is a
	// day or more old, so the archive job takes it.
	claimAged, old bool
}

// aged says whether a recrawl may queue the item again: it has a
// completion in the hot table, and the latest is older than recrawl_after.
func (it *mItem) aged() bool {
	if len(it.completions) == 0 {
		return false
	}
	for _, c := range it.completions {
		if !c.claimAged {
			return false
		}
	}
	return true
}

// held says whether the tracker still holds the item: queued, out or
// scheduled (its parameters stay then).
func (it *mItem) held() bool {
	return it.where == mQueued || it.where == mOut || it.where == mScheduled
}

// modelNames are the names the operations draw from: plain items, and URLs
// whose host and registrable domain group them differently.
var modelNames = func() []string {
	var names []string
	for i := range 6 {
		names = append(names, fmt.Sprintf("item:%d", i))
	}
	for i, host := range []string{"a.one.example", "b.one.example", "a.one.example", "two.example", "two.example", "www.three.example", "three.example", "a.one.example", "four.example", "four.example"} {
		names = append(names, fmt.Sprintf("https://%s/%d", host, i))
	}
	return names
}()

var modelNicks = []string{"alice", "bob", "carol"}

type process struct {
	pool   *pgxpool.Pool
	engine *items.Engine
	store  *projects.Store
	live   *projects.Live // this process's view: refreshed only sometimes
}

type modelWorld struct {
	ctx     context.Context
	procs   [2]*process
	project projects.Project // as stored now
	items   map[string]*mItem
	days    int // the days that passed (later)
	// at is where each nick's calls come from now (see roam), its home
	// address when not set.
	at map[string]string
}

func TestModel(t *testing.T) {
	if f := flag.Lookup("rapid.checks"); f != nil && f.Value.String() == f.DefValue {
		// A few seconds in `make test`; `make soak` and the flag run more.
		checks := "40"
		if v := os.Getenv("TRACKER_MODEL_CHECKS"); v != "" {
			checks = v
		}
		flag.Set("rapid.checks", checks)
	}
	if f := flag.Lookup("rapid.seed"); f != nil && f.Value.String() == f.DefValue {
		// The same sequences in every `make test`, so that a run fails
		// for the code, not for the draw; `make soak` explores
		// (TRACKER_MODEL_SEED=random) and prints the seed of a failure.
		switch seed := os.Getenv("TRACKER_MODEL_SEED"); seed {
		case "random":
		case "":
			flag.Set("rapid.seed", "20261124")
		default:
			flag.Set("rapid.seed", seed)
		}
	}
	dsn := dbtest.NewDSN(t)
	var procs [2]*process
	for i := range procs {
		pool, err := db.Open(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(pool.Close)
		procs[i] = &process{pool: pool, store: projects.NewStore(pool),
			engine: items.NewEngine(pool, slog.New(slog.NewTextHandler(io.Discard, nil)))}
	}
	run := 0
	rapid.Check(t, func(rt *rapid.T) {
		run++
		w := newModelWorld(rt, procs, fmt.Sprintf("m%d", run))
		rt.Repeat(w.actions())
		w.drain(rt)
	})
}

func newModelWorld(rt *rapid.T, procs [2]*process, slug string) *modelWorld {
	ctx := context.Background()
	p, err := procs[0].store.Create(ctx, slug, "Model")
	if err != nil {
		rt.Fatal(err)
	}
	w := &modelWorld{ctx: ctx, procs: procs, project: p, items: map[string]*mItem{}}
	// The recurring keys are set once; mode switches them on and off.
	w.set(rt, "revisit_after=60", "retire_below=0.3")
	for _, pr := range procs {
		pr.live = w.fresh(rt, pr)
	}
	return w
}

func (w *modelWorld) fresh(rt *rapid.T, pr *process) *projects.Live {
	live, err := projects.NewCache(pr.store, 0).Get(w.ctx, w.project.Slug)
	if err != nil {
		rt.Fatal(err)
	}
	return live
}

// proc draws the process a step goes to, and whether its view of the
// project is read afresh first (the cache's second has passed) or stays as
// it was.
func (w *modelWorld) proc(rt *rapid.T) *process {
	pr := w.procs[rapid.IntRange(0, 1).Draw(rt, "process")]
	if rapid.Bool().Draw(rt, "refresh") {
		pr.live = w.fresh(rt, pr)
	}
	return pr
}

func (w *modelWorld) set(rt *rapid.T, assignments ...string) {
	p, err := w.procs[0].store.Get(w.ctx, w.project.Slug)
	if err != nil {
		rt.Fatal(err)
	}
	if p, err = w.procs[0].store.Set(w.ctx, p, assignments); err != nil {
		rt.Fatalf("set %v: %v", assignments, err)
	}
	w.project = p
}

func (w *modelWorld) names(rt *rapid.T, label string) []string {
	return rapid.SliceOfNDistinct(rapid.SampledFrom(modelNames), 1, 5, rapid.ID[string]).Draw(rt, label)
}

// shardNames are names only ever backfed, into a shard of their own and
// under a key that is not their name: one key an item, so no item is
// queued twice as copies (which the model does not follow).
var shardNames = []string{"post:0", "post:1", "post:2", "post:3"}

// allNames are every name the model may meet.
var allNames = append(slices.Clone(modelNames), shardNames...)

const modelShard = "s1"

func shardKey(name string) string { return "key/" + name }

func (w *modelWorld) actions() map[string]func(*rapid.T) {
	return map[string]func(*rapid.T){
		"":          w.check,
		"add":       w.add,
		"backfeed":  w.backfeed,
		"skipbloom": w.skipbloom,
		"request":   w.request,
		"done":      w.done,
		"release":   w.release,
		"site":      w.releaseSite,
		"later":     w.later,
		"reclaim":   w.reclaim,
		"revisit":   w.revisit,
		"move":      w.move,
		"requeue":   w.requeue,
		"markDone":  w.markDone,
		"archive":   w.archive,
		"drain":     w.drain,
		"configure": w.configure,
		"delete":    w.deleteProject, // model_delete_test.go
		// Addresses and claimer_network (model_network_test.go).
		"roam":           w.roam,
		"impostor":       w.impostor,
		"impostorLet":    w.impostorRelease,
		"rejected":       w.rejectedRelease,
		"claimerNetwork": w.claimerNetwork,
	}
}

// mEntry is a name as an import or a backfeed queues it.
type mEntry struct {
	key         string // the model's key: the name up to any 0x1F
	name        string // as queued
	params, tag string
}

// keyOf is the model's key of a name: the part that identifies the item.
func keyOf(name string) string {
	key, _, _ := strings.Cut(name, "\x1f")
	return key
}

// queued puts fresh names in a queue, and, when the process's view of the
// project recrawls, names done long enough ago or coming with a new update
// tag again.
func (w *modelWorld) queued(entries []mEntry, queue string, recrawl bool) {
	for _, e := range entries {
		it, seen := w.items[e.key]
		switch {
		case !seen:
			it = &mItem{where: mQueued, name: e.name, queue: queue, score: 1, params: e.params}
			w.items[e.key] = it
		case recrawl && (it.where == mDone || it.where == mDropped) &&
			(it.aged() || (e.tag != "" && e.tag != it.tag)):
			it.where, it.name, it.queue, it.last, it.claims, it.due = mQueued, e.name, queue, "", 0, false
		default:
			continue
		}
		// Update tags are kept only by a project that recrawls.
		if recrawl && e.tag != "" {
			it.tag = e.tag
		}
	}
}

func (w *modelWorld) add(rt *rapid.T) {
	pr := w.proc(rt)
	var entries []mEntry
	var lines []string
	for _, name := range w.names(rt, "names") {
		e := mEntry{key: name, name: name}
		if rapid.Bool().Draw(rt, "params") {
			e.params = fmt.Sprintf(`{"n": %d}`, rapid.IntRange(0, 9).Draw(rt, "n"))
			lines = append(lines, name+"\t"+e.params)
		} else {
			lines = append(lines, name)
		}
		entries = append(entries, e)
	}
	queue := rapid.SampledFrom([]string{"todo", "secondary", "redo", "downloader:alice"}).Draw(rt, "queue")
	if _, err := pr.engine.Add(w.ctx, pr.live.Project, queue, strings.NewReader(strings.Join(lines, "\n"))); err != nil {
		rt.Fatalf("add: %v", err)
	}
	w.queued(entries, queue, pr.live.Config.RecrawlAfter > 0)
}

// backfeed posts names keyed by themselves, some with a context carrying
// an update tag (as urls-grab's "url 0x1F tag=..." entries), and names
// of a shard under keys of their own.
func (w *modelWorld) backfeed(rt *rapid.T) {
	pr := w.proc(rt)
	sharded := rapid.Bool().Draw(rt, "shard")
	shard, names := "", w.names(rt, "names")
	if sharded {
		shard = modelShard
		names = rapid.SliceOfNDistinct(rapid.SampledFrom(shardNames), 1, 3, rapid.ID[string]).Draw(rt, "names")
	}
	var entries []mEntry
	var posted []items.BackfeedEntry
	for _, name := range names {
		e := mEntry{key: name, name: name}
		if tag := rapid.SampledFrom([]string{"", "", "v1", "v2"}).Draw(rt, "tag"); tag != "" {
			e.name, e.tag = name+"\x1ftag="+tag, tag
		}
		entries = append(entries, e)
		key := e.key
		if sharded {
			key = shardKey(name)
		}
		posted = append(posted, items.BackfeedEntry{Key: key, Item: e.name})
	}
	if _, _, err := pr.engine.Backfeed(w.ctx, pr.live.Project, shard, posted); err != nil {
		rt.Fatalf("backfeed: %v", err)
	}
	w.queued(entries, "backfeed", pr.live.Config.RecrawlAfter > 0)
}

// skipbloom backfeeds as a script reporting items again (skipbloom=1):
// names seen before are queued again when they are nowhere now (done or
// drained), never when queued (the error and retired queues included),
// out or scheduled. Those a recrawl would have queued anyway are not
// counted as queued again because of it.
func (w *modelWorld) skipbloom(rt *rapid.T) {
	pr := w.proc(rt)
	names := w.names(rt, "names")
	var entries []items.BackfeedEntry
	for _, n := range names {
		entries = append(entries, items.BackfeedEntry{Key: n, Item: n})
	}
	recrawl := pr.live.Config.RecrawlAfter > 0
	var again int64
	for _, name := range names {
		if it, seen := w.items[name]; seen && (it.where == mDone || it.where == mDropped) && !(recrawl && it.aged()) {
			again++
		}
	}
	r, err := pr.engine.BackfeedPost(w.ctx, pr.live.Project, items.BackfeedOptions{SkipSeen: true}, entries)
	if err != nil {
		rt.Fatalf("backfeed with skipbloom: %v", err)
	}
	if r.Again != again {
		rt.Fatalf("backfeed with skipbloom queued %d seen names again, want %d", r.Again, again)
	}
	for _, name := range names {
		it, seen := w.items[name]
		switch {
		case !seen:
			w.items[name] = &mItem{where: mQueued, name: name, queue: "backfeed", score: 1}
		case it.where == mDone || it.where == mDropped:
			it.where, it.name, it.queue, it.last, it.claims, it.due = mQueued, name, "backfeed", "", 0, false
		}
	}
}

// take asks for n items as nick and moves what it got in the model.
func (w *modelWorld) take(rt *rapid.T, pr *process, nick string, n int) ([]string, error) {
	h, err := pr.engine.Request(w.ctx, pr.live, items.ClaimRequest{Downloader: nick, Version: "1", Max: n, IP: w.ip(nick)})
	if err != nil {
		var r *items.Refusal
		if !errors.As(err, &r) {
			rt.Fatalf("request: %v", err)
		}
		return nil, r
	}
	if len(h.Names) > n {
		rt.Fatalf("asked for %d, got %d", n, len(h.Names))
	}
	for _, name := range h.Names {
		it := w.items[keyOf(name)]
		switch {
		case it == nil:
			rt.Fatalf("%s handed out an item never queued: %q", nick, name)
		case name != it.name:
			rt.Fatalf("%s handed out %q, queued as %q", nick, name, it.name)
		case it.where == mQueued && (it.queue == "error" || it.queue == "retired"):
			rt.Fatalf("%s handed out %s from the %s queue", nick, name, it.queue)
		case it.where == mQueued && strings.HasPrefix(it.queue, "downloader:") && it.queue != naming.DownloaderQueue(nick):
			rt.Fatalf("%s handed out %s from %s", nick, name, it.queue)
		case it.where == mQueued:
		case it.where == mOut && it.expired:
			// A reclaim: the holder may still report it.
			it.last, it.lastNet = it.holder, it.net
		default:
			rt.Fatalf("%s handed out %s, which is %s (%s %s)", nick, name, it.where, it.queue, it.holder)
		}
		if pr.live.Config.Paused {
			rt.Fatalf("a paused project handed out %s", name)
		}
		if got := string(h.Params[name]); !sameJSON(got, it.params) {
			rt.Fatalf("%s handed out %s with params %q, queued with %q", nick, name, got, it.params)
		}
		it.where, it.holder, it.expired = mOut, nick, false
		it.net = netOf(w.addr(nick))
		it.claims++
	}
	return h.Names, nil
}

// canonical is a JSON document as Go writes it, "" for none.
func canonical(rt *rapid.T, doc string) string {
	if doc == "" {
		return ""
	}
	var v any
	if err := json.Unmarshal([]byte(doc), &v); err != nil {
		rt.Fatal(err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		rt.Fatal(err)
	}
	return string(b)
}

// sameJSON compares two JSON documents, "" standing for none.
func sameJSON(a, b string) bool {
	if a == "" || b == "" {
		return a == b
	}
	var x, y any
	return json.Unmarshal([]byte(a), &x) == nil && json.Unmarshal([]byte(b), &y) == nil && reflect.DeepEqual(x, y)
}

func (w *modelWorld) request(rt *rapid.T) {
	pr := w.proc(rt)
	nick := rapid.SampledFrom(modelNicks).Draw(rt, "nick")
	w.take(rt, pr, nick, rapid.IntRange(1, 4).Draw(rt, "n"))
}

// results draws the results of some of names.
func results(rt *rapid.T, names []string) map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	for _, name := range names {
		if rapid.Bool().Draw(rt, "result") {
			out[name] = json.RawMessage(fmt.Sprintf(`{"r": %d}`, rapid.IntRange(0, 9).Draw(rt, "r")))
		}
	}
	return out
}

// outcomes draws what the visits of some of names found: a word, or a
// number of any size (the engine clamps it to the project's factors).
func outcomes(rt *rapid.T, names []string) map[string]items.Outcome {
	out := map[string]items.Outcome{}
	for _, name := range names {
		switch rapid.IntRange(0, 4).Draw(rt, "outcome") {
		case 0:
		case 1:
			out[name] = items.Outcome{Number: rapid.SampledFrom([]float64{1e-9, 0.01, 0.7, 1, 3, 1e9}).Draw(rt, "factor")}
		default:
			out[name] = items.Outcome{Word: rapid.SampledFrom([]string{"none", "some", "full"}).Draw(rt, "word")}
		}
	}
	return out
}

// complete reports names done as nick, through the process and with the
// view of the project it has, and moves them in the model.
func (w *modelWorld) complete(rt *rapid.T, pr *process, nick string, names []string, found map[string]items.Outcome, res map[string]json.RawMessage) {
	if _, err := pr.engine.Complete(w.ctx, pr.live.Project, items.Completion{
		Downloader: nick, Version: "1", Items: names, Bytes: map[string]int64{"data": int64(len(names))},
		Outcomes: found, Results: res, IP: w.ip(nick),
	}); err != nil {
		rt.Fatalf("done: %v", err)
	}
	w.completed(rt, pr.live.Config, nick, w.addr(nick), names, found, res)
}

// completed moves names that nick completed from address from ("": none
// known) under configuration cfg, with results res.
func (w *modelWorld) completed(rt *rapid.T, cfg projects.Config, nick, from string, names []string, found map[string]items.Outcome, res map[string]json.RawMessage) {
	// The queues a done finds a queued item in: those a claim goes back to.
	looked := func(queue string) bool {
		return slices.Contains(naming.StandardQueues, queue) || queue == "error" ||
			queue == naming.DownloaderQueue(nick) || (cfg.Recurring() && strings.HasPrefix(queue, "revisit:"))
	}
	// An item named twice (under two contexts) takes the result and the
	// outcome given first for any of its names.
	result, outcome := map[string]string{}, map[string]items.Outcome{}
	for _, name := range names {
		if r, ok := res[name]; ok {
			if _, given := result[keyOf(name)]; !given {
				result[keyOf(name)] = string(r)
			}
		}
		if o, ok := found[name]; ok {
			if _, given := outcome[keyOf(name)]; !given {
				outcome[keyOf(name)] = o
			}
		}
	}
	for _, name := range names {
		it := w.items[keyOf(name)]
		if it == nil {
			continue
		}
		finished := (it.where == mOut && ((it.holder == nick && near(cfg, from, it.net)) || (it.last == nick && near(cfg, from, it.lastNet)))) ||
			(it.where == mQueued && it.last == nick && near(cfg, from, it.lastNet) && looked(it.queue))
		if !finished {
			continue
		}
		// A completion is as old as its claim (a queued item's: now), and
		// recrawls look at that: a claim aged past its TTL makes the
		// completion old at once.
		it.completions = append(it.completions, mCompletion{name: it.name, result: result[keyOf(name)], claimAged: it.where == mOut && it.expired})
		// Whoever held it last did this visit's work, not the next one's.
		it.where, it.queue, it.holder, it.last, it.claims, it.expired = mDone, "", "", "", 0, false
		if !cfg.Recurring() {
			continue
		}
		if o, ok := outcome[keyOf(name)]; ok {
			f, err := cfg.Outcome(o.Word, o.Number)
			if err != nil {
				rt.Fatal(err)
			}
			it.score = min(max(it.score*f, 1e-200), 1e200)
		}
		if it.score < cfg.RetireBelow {
			it.where, it.queue = mQueued, "retired"
		} else {
			it.where = mScheduled
		}
	}
}

func (w *modelWorld) done(rt *rapid.T) {
	pr := w.proc(rt)
	nick := rapid.SampledFrom(modelNicks).Draw(rt, "nick")
	var held []string
	for _, key := range slices.Sorted(maps.Keys(w.items)) {
		if it := w.items[key]; (it.where == mOut && it.holder == nick) || it.last == nick {
			held = append(held, it.name)
		}
	}
	names := rapid.SliceOfDistinct(rapid.SampledFrom(append(held, allNames...)), rapid.ID[string]).Filter(func(s []string) bool { return len(s) > 0 }).Draw(rt, "items")
	w.complete(rt, pr, nick, names, outcomes(rt, names), results(rt, names))
}

// markDone completes an item by hand, as an admin does: a claimed item for
// its holder, a queued or failed one for the admin.
func (w *modelWorld) markDone(rt *rapid.T) {
	pr := w.proc(rt)
	key := rapid.SampledFrom(allNames).Draw(rt, "item")
	it := w.items[key]
	err := pr.engine.MarkDone(w.ctx, pr.live, key, "admin")
	switch {
	case it != nil && it.where == mOut:
		if err != nil {
			rt.Fatalf("mark %s done: %v", key, err)
		}
		w.completed(rt, pr.live.Config, it.holder, "", []string{it.name}, nil, nil)
	case it != nil && it.where == mQueued && it.queue != "retired":
		if err != nil {
			rt.Fatalf("mark %s (queued in %s) done: %v", key, it.queue, err)
		}
		it.where, it.holder, it.expired = mOut, "admin", false
		it.claims++
		w.completed(rt, pr.live.Config, "admin", "", []string{it.name}, nil, nil)
	default:
		var invalid *refusal.Error
		if !errors.As(err, &invalid) && !errors.Is(err, items.ErrUnknownItem) {
			rt.Fatalf("mark %s (%v) done: %v", key, it, err)
		}
	}
}

// requeue queues completed items again, as an admin does, one by its name
// or all of a prefix: those neither queued nor out (a scheduled one is
// visited now), with a fresh count of hand-outs.
func (w *modelWorld) requeue(rt *rapid.T) {
	pr := w.proc(rt)
	queue := rapid.SampledFrom([]string{"redo", "todo", "downloader:bob"}).Draw(rt, "queue")
	match := func(name string) bool { return strings.HasPrefix(name, "https://") }
	sel := items.Selection{Prefix: "https://"}
	if rapid.Bool().Draw(rt, "one") {
		name := rapid.SampledFrom(allNames).Draw(rt, "item")
		if it := w.items[name]; it != nil {
			name = it.name
		}
		sel, match = items.Exactly(name), func(n string) bool { return n == name }
	}
	if _, err := pr.engine.RequeueDone(w.ctx, pr.live.Project, queue, sel); err != nil {
		rt.Fatalf("requeue %v in %s: %v", sel, queue, err)
	}
	for _, it := range w.items {
		// The selection looks at the names of the completions.
		var latest string
		for _, c := range it.completions {
			if match(c.name) {
				latest = c.name
			}
		}
		if latest == "" || it.where == mQueued || it.where == mOut {
			continue
		}
		// Under the name it last completed with.
		it.where, it.name, it.queue, it.last, it.claims, it.due = mQueued, it.completions[len(it.completions)-1].name, queue, "", 0, false
	}
}

func (w *modelWorld) release(rt *rapid.T) {
	pr := w.proc(rt)
	var out []string
	for _, key := range slices.Sorted(maps.Keys(w.items)) {
		if w.items[key].where == mOut {
			out = append(out, key)
		}
	}
	if len(out) == 0 {
		rt.Skip("nothing out")
	}
	key := rapid.SampledFrom(out).Draw(rt, "item")
	it := w.items[key]
	if rapid.Bool().Draw(rt, "by admin") {
		released, err := pr.engine.ReleaseItem(w.ctx, pr.live.Project, key)
		if err != nil || !released {
			rt.Fatalf("admin release of %s: %v, %v", key, released, err)
		}
	} else {
		nick := rapid.SampledFrom(modelNicks).Draw(rt, "nick")
		_, err := pr.engine.ReleaseFrom(w.ctx, pr.live.Project, []string{it.name}, nick, w.ip(nick))
		if nick != it.holder || !near(pr.live.Config, w.addr(nick), it.net) {
			if !errors.Is(err, items.ErrNotHeld) {
				rt.Fatalf("%s released %s, held by %s: %v", nick, key, it.holder, err)
			}
			return
		}
		if err != nil {
			rt.Fatalf("release: %v", err)
		}
	}
	it.where, it.last, it.lastNet, it.holder, it.expired = mQueued, it.holder, it.net, "", false
}

// releaseSite gives back every claim of one site, as an admin does from
// the sites section. The site is one the claims were made under (they keep
// it; the model does not follow site keys), and each of its claims goes
// back to its queue.
func (w *modelWorld) releaseSite(rt *rapid.T) {
	pr := w.proc(rt)
	rows, err := pr.pool.Query(w.ctx, `SELECT s.name, c.name FROM claims c JOIN sites s ON s.project_id = c.project_id AND s.id = c.site
		WHERE c.project_id = $1 ORDER BY s.name, c.name`, w.project.ID)
	if err != nil {
		rt.Fatal(err)
	}
	bySite := map[string][]string{}
	for rows.Next() {
		var site, name string
		if err := rows.Scan(&site, &name); err != nil {
			rt.Fatal(err)
		}
		bySite[site] = append(bySite[site], name)
	}
	if err := rows.Err(); err != nil {
		rt.Fatal(err)
	}
	if len(bySite) == 0 {
		rt.Skip("no site out")
	}
	site := rapid.SampledFrom(slices.Sorted(maps.Keys(bySite))).Draw(rt, "site")
	name, n, err := pr.engine.ReleaseSite(w.ctx, pr.live.Project, site)
	if err != nil || name != site || n != int64(len(bySite[site])) {
		rt.Fatalf("release of site %s: %q %d, %v; want its %d claims", site, name, n, err, len(bySite[site]))
	}
	for _, name := range bySite[site] {
		it := w.items[keyOf(name)]
		if it == nil || it.where != mOut {
			rt.Fatalf("site %s released %s, which the model has not out", site, name)
		}
		it.where, it.last, it.lastNet, it.holder, it.expired = mQueued, it.holder, it.net, "", false
	}
}

// later lets a day pass: every claim is a day older (past any reclaim TTL),
// every completion older than any recrawl_after and in a past day's
// partition, which the archive job takes, and every scheduled visit is
// due. The completions of each day that passes get a day of their own, far
// back: an archived day is never written again.
func (w *modelWorld) later(rt *rapid.T) {
	w.days++
	const day = 24 * time.Hour
	pool, id := w.procs[0].pool, w.project.ID
	dbtest.Pass(rt, pool, day, dbtest.Claims(id), dbtest.Revisits(id), dbtest.ExpiredClaims(id))
	// Each day's completions land on a day of their own (in its
	// partition), long past and later than the days before's: their order
	// stays as it was.
	dbtest.Pass(rt, pool, time.Duration(1000-w.days)*day, dbtest.CompletionsWithin(id, day))
	for _, it := range w.items {
		for i := range it.completions {
			it.completions[i].claimAged, it.completions[i].old = true, true
		}
		switch it.where {
		case mOut:
			it.expired = true
		case mScheduled:
			it.due = true
		}
	}
}

// archive runs the archive job's step with archive_after a day: the
// completions of days that ended before then leave the hot table (the
// model's old ones: see later), and with them the parameters and scores of
// items the tracker no longer holds.
func (w *modelWorld) archive(rt *rapid.T) {
	var now time.Time
	if err := w.procs[0].pool.QueryRow(w.ctx, `SELECT now()`).Scan(&now); err != nil {
		rt.Fatal(err)
	}
	p := w.project
	p.Config.ArchiveAfter, p.Config.ArchiveMode = 86400, archive.ModeDiscard
	if _, err := archive.New(w.procs[rapid.IntRange(0, 1).Draw(rt, "process")].pool, "").Project(w.ctx, p, now); err != nil {
		rt.Fatalf("archive: %v", err)
	}
	for _, it := range w.items {
		it.completions = slices.DeleteFunc(it.completions, func(c mCompletion) bool { return c.old })
		if !it.held() && len(it.completions) == 0 {
			it.params, it.score = "", 1
		}
	}
}

// reclaim runs the reclaim job's step: expired claims go back to their
// queue, or to the error queue after max_claims hand-outs.
func (w *modelWorld) reclaim(rt *rapid.T) {
	pr := w.proc(rt)
	cfg := pr.live.Config
	if _, _, err := pr.engine.ReclaimExpired(w.ctx, pr.live.Project, 1000); err != nil {
		rt.Fatalf("reclaim: %v", err)
	}
	if cfg.ReclaimTTL <= 0 {
		return
	}
	for _, it := range w.items {
		if it.where != mOut || !it.expired {
			continue
		}
		it.where, it.last, it.lastNet, it.holder, it.expired = mQueued, it.holder, it.net, "", false
		if cfg.MaxClaims > 0 && int64(it.claims) >= cfg.MaxClaims {
			it.queue = "error"
		}
	}
}

// revisit runs the revisit job's step: the visits due (those scheduled a
// day ago) are queued, and every scheduled one of a project that became
// once.
func (w *modelWorld) revisit(rt *rapid.T) {
	pr := w.proc(rt)
	if _, err := pr.engine.RevisitDue(w.ctx, pr.live.Project, 1000); err != nil {
		rt.Fatalf("revisit: %v", err)
	}
	every := !pr.live.Config.Recurring()
	for _, it := range w.items {
		if it.where == mScheduled && (it.due || every) {
			it.where, it.queue, it.due, it.last = mQueued, "revisit:", false, ""
		}
	}
}

// move moves a queue's items, all or one by its name, to another queue or
// drops them, as an admin does (the item page's requeue and drop of a
// failed or retired item are such moves).
func (w *modelWorld) move(rt *rapid.T) {
	pr := w.proc(rt)
	from := rapid.SampledFrom([]string{"todo", "backfeed", "redo", "error", "retired", "downloader:alice"}).Draw(rt, "from")
	to := rapid.SampledFrom([]string{"todo", "secondary", "redo", "", "downloader:bob"}).Filter(func(to string) bool { return to != from }).Draw(rt, "to")
	sel, match := items.Selection{}, func(*mItem) bool { return true }
	if rapid.Bool().Draw(rt, "one") {
		name := rapid.SampledFrom(allNames).Draw(rt, "item")
		if it := w.items[name]; it != nil {
			name = it.name
		}
		sel, match = items.Exactly(name), func(it *mItem) bool { return it.name == name }
	}
	if _, err := pr.engine.MoveQueue(w.ctx, pr.live.Project, from, to, sel); err != nil {
		rt.Fatalf("move %s to %q: %v", from, to, err)
	}
	for _, it := range w.items {
		if it.where != mQueued || it.queue != from || !match(it) {
			continue
		}
		if to == "" {
			// Dropped: seen, so not queued again but by a recrawl; its
			// parameters and score go unless a completion keeps them.
			it.where = mDropped
			if len(it.completions) == 0 {
				it.params, it.score = "", 1
			}
			continue
		}
		it.queue = to
		switch from {
		case "error":
			it.claims = 0
		case "retired":
			it.score = 1
		}
	}
}

// modelKeys are the configuration keys the model changes: all of them, or
// those $TRACKER_MODEL_KEYS lists (comma-separated), to look at a few.
func modelKeys() []string {
	if keys := os.Getenv("TRACKER_MODEL_KEYS"); keys != "" {
		return strings.Split(keys, ",")
	}
	return []string{"site_key", "site_claims_limit", "site_interval", "max_claims", "mode", "recrawl_after", "paused", "reclaim_ttl", "retire_below"}
}

func (w *modelWorld) configure(rt *rapid.T) {
	key := rapid.SampledFrom(modelKeys()).Draw(rt, "key")
	values := map[string][]string{
		"site_key":          {"off", "host", "registrable"},
		"site_claims_limit": {"0", "1", "2", "3"},
		"site_interval":     {"0", "30"},
		"max_claims":        {"0", "1", "2", "3"},
		"mode":              {"once", "recurring"},
		"recrawl_after":     {"0", "60"},
		"paused":            {"false", "true"},
		"reclaim_ttl":       {"0", "60"},
		"retire_below":      {"0.01", "0.3", "0.9"},
	}[key]
	value := rapid.SampledFrom(values).Draw(rt, "value")
	p, err := w.procs[0].store.Get(w.ctx, w.project.Slug)
	if err != nil {
		rt.Fatal(err)
	}
	p, err = w.procs[0].store.Set(w.ctx, p, []string{key + "=" + value})
	var fe projects.FieldErrors
	if errors.As(err, &fe) {
		// A combination the configuration refuses: nothing changed.
		return
	}
	if err != nil {
		rt.Fatalf("set %s=%s: %v", key, value, err)
	}
	w.project = p
}

// drain asks for everything as a warrior that finishes each item at once,
// through both processes with fresh views, letting every site be due. Every
// item queued in a queue requests are served from must come out, unless the
// project is paused or the item's site is at its limit of items out.
func (w *modelWorld) drain(rt *rapid.T) {
	cfg := w.project.Config
	for round := 0; round < 2*len(allNames)+4; round++ {
		// Every site due, in the order they were: a site named in a
		// request and giving nothing to it (its items are in another's
		// own queue) goes to the back of the line, as its pace says.
		dbtest.Pass(rt, w.procs[0].pool, 24*time.Hour, dbtest.Sites(w.project.ID))
		pr := w.procs[round%2]
		pr.live = w.fresh(rt, pr)
		names, _ := w.take(rt, pr, "drainer", rapid.IntRange(1, 3).Draw(rt, "n"))
		if len(names) > 0 {
			w.complete(rt, pr, "drainer", names, nil, nil)
		}
	}
	if cfg.Paused {
		return
	}
	limit := cfg.SiteClaimsLimit
	for _, key := range slices.Sorted(maps.Keys(w.items)) {
		it := w.items[key]
		if it.where != mQueued || it.queue == "error" || it.queue == "retired" ||
			(strings.HasPrefix(it.queue, "downloader:") && it.queue != naming.DownloaderQueue("drainer")) {
			continue
		}
		if strings.HasPrefix(it.queue, "downloader:") {
			continue
		}
		var site string
		var out int64
		err := w.procs[0].pool.QueryRow(w.ctx, `SELECT coalesce(s.name, ''), coalesce(s.out, 0) FROM todo t LEFT JOIN sites s ON s.project_id = t.project_id AND s.id = t.site
			WHERE t.project_id = $1 AND t.name = $2`, w.project.ID, it.name).Scan(&site, &out)
		if err != nil {
			rt.Fatalf("queued item %s: %v", it.name, err)
		}
		if site != "" && limit > 0 && out >= limit {
			continue // held by its site's limit
		}
		rt.Fatalf("%s stays queued in %s after the drain (site %q, %d out, limit %d)", it.name, it.queue, site, out, limit)
	}
}

// check compares the database with the model: each item in exactly one
// place, the one the model says, under the name the model says, with its
// score and parameters; then the books.
func (w *modelWorld) check(rt *rapid.T) {
	type place struct{ where, name, queue, holder string }
	found := map[string][]place{}
	pool := w.procs[0].pool
	read := func(sql string, f func(name, a string)) {
		rows, err := pool.Query(w.ctx, sql, w.project.ID)
		if err != nil {
			rt.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var name, a string
			if err := rows.Scan(&name, &a); err != nil {
				rt.Fatal(err)
			}
			f(name, a)
		}
		if err := rows.Err(); err != nil {
			rt.Fatal(err)
		}
	}
	in := func(p place) func(name, a string) {
		return func(name, a string) {
			p := p
			p.name = name
			switch p.where {
			case mQueued:
				p.queue = a
				if strings.HasPrefix(a, "revisit:") {
					p.queue = "revisit:"
				}
			case mOut:
				p.holder = a
			}
			found[keyOf(name)] = append(found[keyOf(name)], p)
		}
	}
	read(`SELECT name, queue FROM todo WHERE project_id = $1`, in(place{where: mQueued}))
	read(`SELECT name, downloader FROM claims WHERE project_id = $1`, in(place{where: mOut}))
	read(`SELECT name, '' FROM revisits WHERE project_id = $1`, in(place{where: mScheduled}))
	for _, key := range slices.Sorted(maps.Keys(found)) {
		if w.items[key] == nil {
			rt.Fatalf("%s is in the database (%v) but was never queued", key, found[key])
		}
	}
	for _, key := range slices.Sorted(maps.Keys(w.items)) {
		it, places := w.items[key], found[key]
		var want []place
		switch it.where {
		case mQueued:
			want = []place{{where: mQueued, name: it.name, queue: it.queue}}
		case mOut:
			want = []place{{where: mOut, name: it.name, holder: it.holder}}
		case mScheduled:
			want = []place{{where: mScheduled, name: it.name}}
		}
		if !slices.Equal(places, want) {
			rt.Fatalf("%s: the model has %s %q %s %s, the database %v", key, it.where, it.name, it.queue, it.holder, places)
		}
	}
	// Scores and parameters, of the items a name in the project's tables
	// still tells.
	named := `(SELECT id, name FROM todo WHERE project_id = $1 UNION SELECT id, name FROM claims WHERE project_id = $1
		UNION SELECT id, name FROM revisits WHERE project_id = $1 UNION SELECT id, name FROM done WHERE project_id = $1)`
	scores, params := map[string]string{}, map[string]string{}
	read(`SELECT n.name, s.score::text FROM item_scores s JOIN `+named+` n ON n.id = s.id WHERE s.project_id = $1`,
		func(name, score string) { scores[keyOf(name)] = score })
	read(`SELECT n.name, p.params::text FROM item_params p JOIN `+named+` n ON n.id = p.id WHERE p.project_id = $1`,
		func(name, doc string) { params[keyOf(name)] = doc })
	for _, key := range slices.Sorted(maps.Keys(w.items)) {
		it := w.items[key]
		if it.where == mDropped && len(it.completions) == 0 {
			continue // no name tells it
		}
		score := 1.0
		if s, ok := scores[key]; ok {
			var err error
			if score, err = strconv.ParseFloat(s, 64); err != nil {
				rt.Fatal(err)
			}
		}
		if score != it.score {
			rt.Fatalf("%s: the model scores it %g, the database %g", key, it.score, score)
		}
		if !sameJSON(params[key], it.params) {
			rt.Fatalf("%s (%s): the model has params %q, the database %q", key, it.where, it.params, params[key])
		}
	}
	// The completions in the hot table, with their names and results.
	completions := map[string][]string{}
	read(`SELECT name, coalesce(result::text, '') FROM done WHERE project_id = $1`, func(name, result string) {
		completions[keyOf(name)] = append(completions[keyOf(name)], name+" "+canonical(rt, result))
	})
	for _, key := range slices.Sorted(maps.Keys(w.items)) {
		var want []string
		for _, c := range w.items[key].completions {
			want = append(want, c.name+" "+canonical(rt, c.result))
		}
		slices.Sort(want)
		got := completions[key]
		slices.Sort(got)
		if !slices.Equal(got, want) {
			rt.Fatalf("%s: the model has the completions %q, the database %q", key, want, got)
		}
	}
	r, err := books.Of(w.ctx, pool, w.project)
	if err != nil {
		rt.Fatal(err)
	}
	if !r.Balanced {
		var failed []string
		for _, c := range r.Checks {
			if !c.OK {
				failed = append(failed, c.Name+": want "+strconv.FormatInt(c.Want, 10)+", found "+strconv.FormatInt(c.Found, 10))
			}
		}
		rt.Fatalf("the books do not balance: %s", strings.Join(failed, "; "))
	}
}
