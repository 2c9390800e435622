package items

import (
	"context"
	"encoding/json"
	"errors"
	"net/netip"
	"time"

	"github.com/jackc/pgx/v5"

	"tracker/db"
	"tracker/projects"
)

// timelineMax bounds each kind of event an item's history lists: the
// newest of its completions (a recurring item's visits) and of its claims
// that ran out.
const timelineMax = 100

// History is what the database keeps of an item's life, for its page in
// the admin panel: where it stands now, and its events.
type History struct {
	// Status is where the item stands (as Lookup answers, in full).
	Status ItemStatus
	ID     int64
	// Queued is when and how the item was first queued; nil when that was
	// not recorded (before the tracker recorded it, or in a project in
	// random order).
	Queued *QueuedBatch
	// Claim is the claim out now, nil when none is.
	Claim *HistoryClaim
	// Expired are its claims that ran out, newest first (at most 100;
	// those older than 30 days are forgotten unless the item failed).
	Expired []HistoryExpiry
	// Done are its completions in the hot tables, newest first (at most
	// 100): a recurring item's visits.
	Done []HistoryDone
	// Uploads are the upload receipts of the item, newest first.
	Uploads []HistoryUpload
	// Tag is the update tag it was queued with last ("" for none).
	Tag string
}

// QueuedBatch is the batch that first queued an item.
type QueuedBatch struct {
	At time.Time
	// Source is BatchImport or BatchBackfeed.
	Source, Queue, Shard string
	// OwnKey says the item was deduplicated under its own name; false: a
	// backfeed post's KEY of its own.
	OwnKey bool
}

// HistoryClaim is a claim of the item out now.
type HistoryClaim struct {
	Downloader, Version, Queue string
	IP                         netip.Addr
	At                         time.Time
	Count                      int32
}

// HistoryExpiry is a claim of the item that ran out.
type HistoryExpiry struct {
	Downloader           string
	IP                   netip.Addr
	ClaimedAt, ExpiredAt time.Time
}

// HistoryDone is a completion of the item.
type HistoryDone struct {
	Downloader, Version string
	IP                  netip.Addr
	ClaimedAt, DoneAt   time.Time
	Bytes               int64
	ClaimCount          int32
	Domains, Result     json.RawMessage
}

// HistoryUpload is an upload receipt of the item.
type HistoryUpload struct {
	Uploader, Server string
	IP               netip.Addr
	At               time.Time
}

// History reads what the database keeps of the item name's life, from one
// snapshot, in every queue that holds items now. Every read is by the
// item's id or hash, through an index.
func (e *Engine) History(ctx context.Context, live *projects.Live, name string) (h History, err error) {
	err = pgx.BeginTxFunc(ctx, e.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		q := db.Of(tx)
		sum, err := projects.SummaryOf(ctx, q, live.Project)
		if err != nil {
			return err
		}
		now := *live
		now.Summary = sum
		if h.Status, err = e.lookup(ctx, q, &now, "", name); err != nil {
			return err
		}
		return e.history(ctx, q, live.Project, name, &h)
	})
	return h, err
}

// history reads the events of the item name, found by lookup as h.Status.
func (e *Engine) history(ctx context.Context, q *db.Queries, p projects.Project, name string, h *History) error {
	st := &h.Status
	h.ID = st.id
	seen, err := q.SeenFind(ctx, db.SeenFindParams{ProjectID: p.ID, Name: name})
	if err != nil {
		return err
	}
	// An item's id carries the block of ids of the batch that queued it.
	batch, err := q.ItemBatchOf(ctx, db.ItemBatchOfParams{ProjectID: p.ID, Block: h.ID >> 20})
	switch {
	case err == nil:
		own, err := q.SeenKeyedOf(ctx, db.SeenKeyedOfParams{ProjectID: p.ID, Shard: batch.Shard, Name: st.Name, ID: h.ID})
		if err != nil {
			return err
		}
		h.Queued = &QueuedBatch{At: batch.QueuedAt, Source: batch.Source, Queue: batch.Queue, Shard: batch.Shard, OwnKey: own}
	case !errors.Is(err, pgx.ErrNoRows):
		return err
	}
	claim, err := q.ClaimOfItem(ctx, db.ClaimOfItemParams{ProjectID: p.ID, Hash: seen.Item, ID: h.ID})
	switch {
	case err == nil:
		h.Claim = &HistoryClaim{Downloader: claim.Downloader, Version: claim.Version, Queue: claim.Queue,
			IP: addr(claim.IP), At: claim.ClaimedAt, Count: claim.ClaimCount}
	case !errors.Is(err, pgx.ErrNoRows):
		return err
	}
	expired, err := q.ClaimExpiriesOfItemRecent(ctx, db.ClaimExpiriesOfItemRecentParams{ProjectID: p.ID, ID: h.ID, Max: timelineMax})
	if err != nil {
		return err
	}
	for _, x := range expired {
		h.Expired = append(h.Expired, HistoryExpiry{Downloader: x.Downloader, IP: addr(x.IP), ClaimedAt: x.ClaimedAt, ExpiredAt: x.ExpiredAt})
	}
	done, err := q.DoneOfItem(ctx, db.DoneOfItemParams{ProjectID: p.ID, ID: h.ID, Max: timelineMax})
	if err != nil {
		return err
	}
	for _, d := range done {
		hd := HistoryDone{Downloader: d.Downloader, Version: d.Version, IP: addr(d.IP), ClaimedAt: d.ClaimedAt, DoneAt: d.DoneAt,
			Bytes: d.Bytes, ClaimCount: d.ClaimCount}
		if d.Domains != "" && d.Domains != "{}" {
			hd.Domains = json.RawMessage(d.Domains)
		}
		if d.Result != "" {
			hd.Result = json.RawMessage(d.Result)
		}
		h.Done = append(h.Done, hd)
	}
	uploads, err := q.UploadsOfItem(ctx, db.UploadsOfItemParams{ProjectID: p.ID, ID: h.ID})
	if err != nil {
		return err
	}
	for _, u := range uploads {
		h.Uploads = append(h.Uploads, HistoryUpload{Uploader: u.Uploader, Server: u.Server, IP: addr(u.IP), At: u.At})
	}
	h.Tag, err = q.ItemTagOf(ctx, db.ItemTagOfParams{ProjectID: p.ID, ID: h.ID})
	return err
}

func addr(a *netip.Addr) netip.Addr {
	if a == nil {
		return netip.Addr{}
	}
	return *a
}
