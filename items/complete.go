package items

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"tracker/db"
	"tracker/naming"
	"tracker/projects"
	"tracker/refusal"
)

// Completion is a warrior reporting items done.
type Completion struct {
	Downloader string
	Version    string
	IP         netip.Addr
	Items      []string
	// Bytes per domain, for the whole batch of items.
	Bytes map[string]int64
	// ClientID is the client's "id" value, raw JSON (nil when absent).
	ClientID json.RawMessage
	// Results are the items' results, by item name: kept with their
	// completions, beside who ran them and when (the claim and the done).
	Results map[string]json.RawMessage
	// Outcomes are what the visits found, by item name: "none", "some",
	// "full" or a number, the factor of the item's score in a recurring
	// project (see projects.Config.Outcome).
	Outcomes map[string]Outcome
	// UserAgent is the client's User-Agent, which the live log tells
	// (kept to MaxUserAgent bytes of text).
	UserAgent string
}

// Outcome is what a visit of an item found: a word or a number.
type Outcome struct {
	Word   string
	Number float64
}

// UnmarshalJSON takes "none", "some", "full" or any JSON number. A number
// past a float64's range is read as ±Inf, one too small for it as 0: the
// project clamps either to its span (projects.Config.Outcome) as any other,
// where a decoder's refusal would have refused the done, which its client
// retries forever.
func (o *Outcome) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, &o.Word); err == nil {
		return nil
	}
	o.Word = ""
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return errors.New(`an outcome is "none", "some", "full" or a number`)
	}
	f, err := strconv.ParseFloat(n.String(), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return errors.New(`an outcome is "none", "some", "full" or a number`)
	}
	o.Number = f
	return nil
}

// MaxDomains bounds the entries of a done's bytes object.
const MaxDomains = 100

// MaxDoneItems bounds the items one done names: a done reports at most what
// one request hands out.
const MaxDoneItems = projects.MaxMultiLimit

// MaxItemBytes bounds what one item of a done may report: far above any
// real download, far below what would let a few dones overflow the
// totals that sum them.
const MaxItemBytes = 1 << 40 // 1 TiB

// MaxClientID bounds the "id" a done carries, kept with the completion.
const MaxClientID = 64 << 10

// MaxUserAgent bounds the User-Agent kept with a done for the live log:
// seesaw's is some 40 bytes.
const MaxUserAgent = 256

// LogNames is how many of a done's item names (the first by name) the live
// log tells; a done names up to MaxDoneItems.
const LogNames = 100

// keptUserAgent is ua as it is kept: valid UTF-8 without control
// characters, cut to at most MaxUserAgent bytes on a character boundary.
// A User-Agent is whatever the client sends; it is told, never refused.
func keptUserAgent(ua string) string {
	ua = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, strings.ToValidUTF8(ua, "\uFFFD"))
	for len(ua) > MaxUserAgent {
		_, size := utf8.DecodeLastRuneInString(ua)
		ua = ua[:len(ua)-size]
	}
	return ua
}

// Validate says why c cannot be recorded, or returns nil.
func (c *Completion) Validate() error {
	if err := naming.ValidNick(c.Downloader); err != nil {
		return err
	}
	if len(c.Items) == 0 {
		return errors.New("no items")
	}
	if len(c.Items) > MaxDoneItems {
		return fmt.Errorf("%d items, more than the %d one done may name", len(c.Items), MaxDoneItems)
	}
	for _, name := range c.Items {
		if err := naming.ValidName(name); err != nil {
			return err
		}
	}
	if err := naming.ValidVersion(c.Version); err != nil {
		return err
	}
	if len(c.Bytes) > MaxDomains {
		return fmt.Errorf("bytes names more than %d domains", MaxDomains)
	}
	var total int64
	// A domain that is no host-like name is counted under "other" (see
	// countedDomains), not refused: the warrior would retry forever.
	for domain, n := range c.Bytes {
		if n < 0 {
			return fmt.Errorf("bytes: negative count for %.80q", domain)
		}
		if n > MaxItemBytes*int64(len(c.Items)) || total+n > MaxItemBytes*int64(len(c.Items)) {
			return fmt.Errorf("bytes: more than %d bytes an item", int64(MaxItemBytes))
		}
		total += n
	}
	if len(c.ClientID) > MaxClientID {
		return fmt.Errorf("id: larger than %d bytes", MaxClientID)
	}
	// What the outcomes and results say is checked once, where they are
	// read for the project (newDoneOp). Looked up in a set: a done may
	// name thousands of items and carry as many keys.
	if len(c.Outcomes) == 0 && len(c.Results) == 0 {
		return nil
	}
	names := make(map[string]struct{}, len(c.Items))
	for _, name := range c.Items {
		names[name] = struct{}{}
	}
	for name := range c.Outcomes {
		if _, ok := names[name]; !ok {
			return fmt.Errorf("outcome: %.200q is not an item of this done", name)
		}
	}
	for name := range c.Results {
		if _, ok := names[name]; !ok {
			return fmt.Errorf("result: %.200q is not an item of this done", name)
		}
	}
	return nil
}

// countedDomains are a done's bytes per domain as they are kept: the bytes
// of a key that is no host-like name (projects.ValidDomain) summed under
// projects.OtherDomain, so what a done may add to a project's domains is
// bounded in number and length. Validate bounds the sum.
func countedDomains(bytes map[string]int64) map[string]int64 {
	valid := true
	for domain := range bytes {
		valid = valid && projects.ValidDomain(domain)
	}
	if valid {
		return bytes
	}
	out := make(map[string]int64, len(bytes))
	for domain, n := range bytes {
		if !projects.ValidDomain(domain) {
			domain = projects.OtherDomain
		}
		out[domain] += n
	}
	return out
}

// TotalBytes is the sum over the domains.
func (c *Completion) TotalBytes() int64 {
	var total int64
	for _, n := range c.Bytes {
		total += n
	}
	return total
}

// doneOp is one done request's share of a batch of completions.
type doneOp struct {
	project  int32
	c        Completion
	credited int64    // the bytes that enter the stats
	domains  string   // the bytes per domain as JSON
	types    []string // the project's limited types: where its queued items are
	// factors are the outcomes' factors by item; cfg the project's
	// configuration (recurring or not, its revisit and retirement).
	factors map[string]float64
	cfg     projects.Config

	completed int64 // results, set by every run
	refused   int64
	away      int64 // items named under their holder's nick from another network
}

// Complete records the items of c its downloader holds, or held last, as
// done and credits the downloader; a completion that fails Validate is an
// *InvalidError. An item claimed by someone else, or queued when c's
// downloader was not its last holder, stays as it is and is counted
// (done_not_held): the warrior is still answered OK, since anything else
// makes it retry forever. Items neither claimed nor queued (a repeated
// done) are ignored. An item its holder (or last holder) claimed from
// another network than c's (another IPv4 /24, IPv6 /48) is counted
// (done_other_network), and in a project with claimer_network completes
// nothing, as a stranger's done does: a nick is anyone's to send. It
// returns how many items it recorded, once they are on disk. When the project lists its domains and the done reports bytes for
// another, the items are done but their bytes stay out of the totals.
// Completions arriving together are recorded by the same statement.
func (e *Engine) Complete(ctx context.Context, p projects.Project, c Completion) (int64, error) {
	op, err := newDoneOp(p, c)
	if err != nil {
		return 0, err
	}
	if !p.Config.AcceptsDomains(c.Bytes) {
		e.log.Warn("done reports bytes for domains the project does not list; its bytes stay out of the stats",
			"project", p.Slug, "downloader", c.Downloader, "ip", c.IP, "bytes", op.domains)
		op.credited = 0
	}
	if err := e.dones.do(ctx, op); err != nil {
		return 0, err
	}
	if op.refused > 0 {
		// A client bug or someone reporting names they were never given:
		// worth a line, not an alarm.
		e.log.Info("done reports items another downloader holds; they stay claimed",
			"project", p.Slug, "downloader", c.Downloader, "ip", c.IP, "items", op.refused, "completed", op.completed)
	}
	if op.away > 0 {
		// A warrior whose address changed since its claim, or someone
		// naming a holder's nick: what claimer_network refuses, or would.
		e.log.Info("done names items claimed from another network under their holder's nick",
			"project", p.Slug, "downloader", c.Downloader, "ip", c.IP, "items", op.away,
			"refused", p.Config.ClaimerNetwork, "completed", op.completed)
	}
	return op.completed, nil
}

// newDoneOp checks c and prepares its share of a batch.
func newDoneOp(p projects.Project, c Completion) (*doneOp, error) {
	if err := c.Validate(); err != nil {
		return nil, refusal.New(refusal.Invalid, "invalid-done", err)
	}
	// Results as jsonb stores them, and the outcomes' factors.
	if len(c.Results) > 0 {
		results := make(map[string]json.RawMessage, len(c.Results))
		for name, result := range c.Results {
			normal, err := normalDocument("result of "+name, result)
			if err != nil {
				return nil, refusal.New(refusal.Invalid, "invalid-done", err)
			}
			results[name] = normal
		}
		c.Results = results
	}
	factors := map[string]float64{}
	for name, o := range c.Outcomes {
		f, err := p.Config.Outcome(o.Word, o.Number)
		if err != nil {
			return nil, refusal.New(refusal.Invalid, "invalid-done", err)
		}
		factors[name] = f
	}
	c.Results, factors = onePerItem(c.Items, c.Results), onePerItem(c.Items, factors)
	domains, err := json.Marshal(countedDomains(c.Bytes))
	if err != nil {
		return nil, err
	}
	if c.Bytes == nil {
		domains = []byte("{}")
	}
	c.UserAgent = keptUserAgent(c.UserAgent)
	return &doneOp{project: p.ID, c: c, credited: c.TotalBytes(), domains: string(domains),
		types: p.Config.Stretches(), factors: factors, cfg: p.Config}, nil
}

// onePerItem keeps, of values given by item name, one per item, under
// the item's name up to its first 0x1F (its context): the part item_hash
// hashes, which DoneRecordBatch looks the values up by. A done may name an
// item twice, under names that differ in their context, and its
// completion takes the value given first in the order of items.
func onePerItem[V any](items []string, byName map[string]V) map[string]V {
	if len(byName) == 0 {
		return nil
	}
	kept := make(map[string]V, len(byName))
	for _, name := range items {
		v, ok := byName[name]
		key, _, _ := strings.Cut(name, contextSeparator)
		if _, given := kept[key]; !ok || given {
			continue
		}
		kept[key] = v
	}
	return kept
}

// request is the done request as DoneRecordBatch takes it.
func (o *doneOp) request() (db.DoneRequest, error) {
	r := db.DoneRequest{Downloader: o.c.Downloader, Version: o.c.Version, Bytes: o.credited,
		Domains: json.RawMessage(o.domains), ClientID: o.c.ClientID, IP: addrOrNil(o.c.IP),
		UserAgent: o.c.UserAgent, Names: o.c.Items}
	var err error
	if len(o.c.Results) > 0 {
		if r.Results, err = json.Marshal(o.c.Results); err != nil {
			return r, err
		}
	}
	if len(o.factors) > 0 {
		if r.Factors, err = json.Marshal(o.factors); err != nil {
			return r, err
		}
	}
	return r, nil
}

// runDones records a batch of completions: one statement per project.
func (e *Engine) runDones(ctx context.Context, q *db.Queries, ops []*doneOp) error {
	byProject := map[int32][]*doneOp{}
	var order []int32
	for _, o := range ops {
		o.completed, o.refused, o.away = 0, 0, 0
		if _, ok := byProject[o.project]; !ok {
			order = append(order, o.project)
		}
		byProject[o.project] = append(byProject[o.project], o)
	}
	for _, id := range order {
		group := byProject[id]
		// A queued item is looked for in the standard queues and in the
		// reporters' own: the queues a claim goes back to.
		cfg := group[0].cfg
		// A failed item may still be reported by its last holder, whose
		// claim expired: they did the work.
		queues := append(slices.Clone(naming.StandardQueues), naming.ErrorQueue)
		if cfg.Recurring() {
			// An item put back in its band's queue (a release, an
			// expired claim) may still be reported by its last holder.
			queues = append(queues, naming.RevisitQueues...)
		}
		p := db.DoneRecordBatchParams{ProjectID: id, Queues: queues, Types: group[0].types,
			ClaimerNetwork: cfg.ClaimerNetwork, Recurring: cfg.Recurring(), RetireBelow: cfg.RetireBelow,
			RevisitAfter: projects.Duration(cfg.RevisitAfter), LogNames: LogNames}
		for _, o := range group {
			if q := naming.DownloaderQueue(o.c.Downloader); !slices.Contains(p.Queues, q) {
				p.Queues = append(p.Queues, q)
			}
			r, err := o.request()
			if err != nil {
				return err
			}
			p.Requests = append(p.Requests, r)
		}
		rows, err := e.recordDones(ctx, q, p)
		if err != nil {
			return err
		}
		for _, r := range rows {
			group[r.Req-1].completed, group[r.Req-1].refused, group[r.Req-1].away = r.Completed, r.Refused, r.Away
		}
	}
	return nil
}

// recordDones runs DoneRecordBatch, as the database's driver does.
func (e *Engine) recordDones(ctx context.Context, q *db.Queries, p db.DoneRecordBatchParams) ([]db.DoneRecordBatchRow, error) {
	d, err := e.driver(ctx)
	if err != nil {
		return nil, err
	}
	return d.DoneRecordBatch(ctx, q, p)
}
