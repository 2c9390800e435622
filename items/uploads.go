package items

import (
	"context"
	"net/netip"

	"tracker/db"
	"tracker/projects"
)

// RecordUpload keeps a warrior's receipt for an upload.
func (e *Engine) RecordUpload(ctx context.Context, p projects.Project, uploader, item, server string, ip netip.Addr) error {
	return e.q.UploadInsert(ctx, db.UploadInsertParams{
		ProjectID: p.ID, Uploader: uploader, Item: item, Server: server, IP: addrOrNil(ip),
	})
}
