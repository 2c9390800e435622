package items

import (
	"context"
	"errors"
	"net/netip"

	"github.com/jackc/pgx/v5"

	"tracker/db"
	"tracker/projects"
)

// MaxReceiptsPerItem bounds the upload receipts kept of one item: one per
// uploader and server, as many as a few warriors that each held the item
// would send; a repeat of a receipt replaces it.
const MaxReceiptsPerItem = 8

// MaxReceiptServer bounds a receipt's server name, in bytes.
const MaxReceiptServer = 1024

// ErrNotOut means an upload receipt names an item the project has neither
// out nor done: nobody could have uploaded it.
var ErrNotOut = errors.New("the project has no such item out or done")

// ErrTooManyReceipts means the item has MaxReceiptsPerItem receipts and
// this one is none of them.
var ErrTooManyReceipts = errors.New("the item has as many upload receipts as are kept")

// RecordUpload keeps a warrior's receipt for an upload of item, which the
// project must have out (claimed) or done; once the item's completion is
// archived, its receipts go (archive.Archiver). Receipts for anything else
// are refused, so strangers cannot grow the table with made-up names.
func (e *Engine) RecordUpload(ctx context.Context, p projects.Project, uploader, item, server string, ip netip.Addr) error {
	seen, err := e.q.SeenFind(ctx, db.SeenFindParams{ProjectID: p.ID, Shard: "", Name: item})
	if errors.Is(err, pgx.ErrNoRows) {
		return ErrNotOut
	}
	if err != nil {
		return err
	}
	r, err := e.q.UploadRecord(ctx, db.UploadRecordParams{
		Hash: seen.Item, ProjectID: p.ID, ID: seen.ID, Uploader: uploader, Server: server, IP: addrOrNil(ip),
		MaxPerItem: MaxReceiptsPerItem,
	})
	switch {
	case err != nil:
		return err
	case !r.Known:
		return ErrNotOut
	case !r.Kept:
		return ErrTooManyReceipts
	}
	return nil
}
