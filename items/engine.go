package items

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"

	"tracker/db"
	"tracker/projects"
)

// Engine hands out and completes the items of every project.
type Engine struct {
	pool *pgxpool.Pool
	q    *db.Queries
}

func NewEngine(pool *pgxpool.Pool) *Engine {
	return &Engine{pool: pool, q: db.New(pool)}
}

// ClaimRequest is a warrior asking for work.
type ClaimRequest struct {
	Downloader string
	Version    string
	IP         netip.Addr // the zero Addr when unknown
	Max        int        // items wanted, at least 1
}

// Claim hands up to req.Max items to the downloader, taking them from its own
// downloader queue first, then from the project's queues in order. It returns
// no names when every queue is empty.
func (e *Engine) Claim(ctx context.Context, p projects.Project, req ClaimRequest) ([]string, error) {
	queues := append([]string{DownloaderQueue(req.Downloader)}, projects.StandardQueues...)
	var names []string
	for _, queue := range queues {
		want := req.Max - len(names)
		if want <= 0 {
			break
		}
		rows, err := e.q.ClaimsTakeFromQueue(ctx, db.ClaimsTakeFromQueueParams{
			ProjectID:  p.ID,
			Queue:      queue,
			Max:        int32(want),
			Downloader: req.Downloader,
			Version:    req.Version,
			IP:         addrOrNil(req.IP),
		})
		if err != nil {
			return names, fmt.Errorf("claim from %s: %w", queue, err)
		}
		// RETURNING gives no order; hand the batch out in queue order.
		slices.SortFunc(rows, func(a, b db.ClaimsTakeFromQueueRow) int { return cmp.Compare(a.ID, b.ID) })
		for _, r := range rows {
			names = append(names, r.Name)
		}
	}
	return names, nil
}

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
}

// MaxDomains bounds the entries of a done's bytes object.
const MaxDomains = 100

// Validate says why c cannot be recorded, or returns nil.
func (c *Completion) Validate() error {
	if err := ValidNick(c.Downloader); err != nil {
		return err
	}
	if len(c.Items) == 0 {
		return errors.New("no items")
	}
	for _, name := range c.Items {
		if err := ValidName(name); err != nil {
			return err
		}
	}
	if len(c.Bytes) > MaxDomains {
		return fmt.Errorf("bytes names more than %d domains", MaxDomains)
	}
	var total int64
	for domain, n := range c.Bytes {
		if domain == "" || len(domain) > 255 || strings.ContainsRune(domain, 0) {
			return fmt.Errorf("bytes: invalid domain name %q", domain)
		}
		if n < 0 {
			return fmt.Errorf("bytes: negative count for %q", domain)
		}
		if total+n < total {
			return errors.New("bytes: total overflows")
		}
		total += n
	}
	return nil
}

// TotalBytes is the sum over the domains.
func (c *Completion) TotalBytes() int64 {
	var total int64
	for _, n := range c.Bytes {
		total += n
	}
	return total
}

// Complete records the claimed items of c as done and credits the
// downloader, all in one transaction. Items not claimed (a repeated done, or
// one never handed out) are ignored. It returns how many items it recorded.
func (e *Engine) Complete(ctx context.Context, p projects.Project, c Completion) (int64, error) {
	if err := c.Validate(); err != nil {
		return 0, err
	}
	domains, err := json.Marshal(c.Bytes)
	if err != nil {
		return 0, err
	}
	if c.Bytes == nil {
		domains = []byte("{}")
	}
	return e.q.DoneRecordClaimed(ctx, db.DoneRecordClaimedParams{
		ProjectID:  p.ID,
		Names:      c.Items,
		Bytes:      c.TotalBytes(),
		Downloader: c.Downloader,
		Version:    c.Version,
		Domains:    domains,
		ClientID:   []byte(c.ClientID),
		IP:         addrOrNil(c.IP),
	})
}

func addrOrNil(a netip.Addr) *netip.Addr {
	if !a.IsValid() {
		return nil
	}
	return &a
}
