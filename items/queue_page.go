package items

import (
	"context"

	"tracker/db"
	"tracker/naming"
	"tracker/projects"
	"tracker/refusal"
)

// QueuedItem is an item waiting in a queue.
type QueuedItem struct {
	ID         int64  `json:"id"`
	Name       string `json:"item"`
	ClaimCount int32  `json:"claim_count"`
	// LastDownloader held the item last, if anyone did.
	LastDownloader string `json:"last_downloader,omitempty"`
}

// QueuePage lists up to max items of a queue in order, after the item with
// id after (0: from the head), whose names start with prefix (when set): a
// type is a prefix ("user:"). Pages of the error queue are how admins go
// through the items that failed.
func (e *Engine) QueuePage(ctx context.Context, p projects.Project, queue, prefix string, after int64, max int) ([]QueuedItem, error) {
	if err := naming.ValidQueue(queue); err != nil {
		return nil, refusal.New(refusal.Invalid, "", err)
	}
	// The queues no request is served from are one stretch; another queue
	// is read in the order of its ids across the stretches of its types.
	types := []string{""}
	if queue != naming.ErrorQueue && queue != naming.RetiredQueue {
		types = p.Config.Stretches()
	}
	rows, err := e.q.TodoPage(ctx, db.TodoPageParams{ProjectID: p.ID, Queue: queue, Types: types,
		AfterID: after, Prefix: prefix, Max: int32(max)})
	if err != nil {
		return nil, err
	}
	out := make([]QueuedItem, len(rows))
	for i, r := range rows {
		out[i] = QueuedItem{ID: r.ID, Name: r.Name, ClaimCount: r.ClaimCount, LastDownloader: r.LastDownloader}
	}
	return out, nil
}
