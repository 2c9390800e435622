package db_test

import (
	"context"
	"net/netip"
	"testing"

	"tracker/db"
	"tracker/db/dbtest"
)

// The batch rows reach PostgreSQL field by field as the row types name
// them: each Go field lands in the field of its name (a field given in
// the wrong place would be read as another of the same type).
func TestBatchTypesFields(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.New(t)
	ip := netip.MustParseAddr("192.0.2.7")

	done := db.DoneRequest{Downloader: "alice", Version: "20260101.01", Bytes: 123, Domains: []byte(`{"a.example": 123}`),
		ClientID: []byte(`{"sha1": "x"}`), IP: &ip, UserAgent: "seesaw/1", Names: []string{"item:1", "item:2"},
		Results: []byte(`{"item:1": {"r": 1}}`), Factors: []byte(`{"item:2": 0.5}`)}
	var got db.DoneRequest
	var gotIP netip.Addr
	var domains, clientID, results, factors string
	dbtest.MustScan(t, pool.QueryRow(ctx, `SELECT r.downloader, r.version, r.bytes, r.domains::text, r.client_id::text, r.ip, r.user_agent, r.names,
		r.results::text, r.factors::text FROM unnest($1::done_request[]) r`, []db.DoneRequest{done}),
		&got.Downloader, &got.Version, &got.Bytes, &domains, &clientID, &gotIP, &got.UserAgent, &got.Names, &results, &factors)
	if got.Downloader != done.Downloader || got.Version != done.Version || got.Bytes != done.Bytes || got.UserAgent != done.UserAgent ||
		len(got.Names) != 2 || got.Names[0] != "item:1" || got.Names[1] != "item:2" || gotIP != ip ||
		domains != `{"a.example": 123}` || clientID != `{"sha1": "x"}` || results != `{"item:1": {"r": 1}}` || factors != `{"item:2": 0.5}` {
		t.Errorf("done_request read back as %+v, ip %v, domains %s, id %s, results %s, factors %s", got, gotIP, domains, clientID, results, factors)
	}

	take := db.SiteTake{Site: 11, Items: 22, Slot: 33, Downloader: "bob", Version: "v2", IP: &ip, Carried: 44}
	var gotTake db.SiteTake
	var takeIP netip.Addr
	dbtest.MustScan(t, pool.QueryRow(ctx, `SELECT r.site, r.items, r.slot, r.downloader, r.version, r.ip, r.carried
		FROM unnest($1::site_take[]) r`, []db.SiteTake{take}),
		&gotTake.Site, &gotTake.Items, &gotTake.Slot, &gotTake.Downloader, &gotTake.Version, &takeIP, &gotTake.Carried)
	gotTake.IP = take.IP
	if gotTake != take || takeIP != ip {
		t.Errorf("site_take read back as %+v, ip %v; want %+v", gotTake, takeIP, take)
	}
}
