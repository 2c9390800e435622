package db

import (
	"context"
	"encoding/json"
	"fmt"
	"net/netip"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// DoneRequest is one done request of a batch, as DoneRecordBatch takes it:
// a row of the type done_request, whose fields Index gives in order.
type DoneRequest struct {
	Downloader string
	Version    string
	// Bytes are the bytes credited: shared out over the items completed.
	Bytes int64
	// Domains are the bytes per domain, a JSON object.
	Domains json.RawMessage
	// ClientID is the client's "id" (nil: none); IP its address (nil:
	// unknown).
	ClientID json.RawMessage
	IP       *netip.Addr
	// UserAgent is the client's, for the live log.
	UserAgent string
	// Names are the items reported.
	Names []string
	// Results and Factors are JSON objects by item name up to its context
	// (the part item_hash hashes): the results reported and the outcomes'
	// factors (nil: none).
	Results json.RawMessage
	Factors json.RawMessage
}

// IsNull and Index give pgx the fields in the row type's order, read
// without reflection.
var (
	_ pgtype.CompositeIndexGetter = DoneRequest{}
	_ pgtype.CompositeIndexGetter = SiteTake{}
)

func (r DoneRequest) IsNull() bool { return false }

func (r DoneRequest) Index(i int) any {
	switch i {
	case 0:
		return r.Downloader
	case 1:
		return r.Version
	case 2:
		return r.Bytes
	case 3:
		return r.Domains
	case 4:
		return r.ClientID
	case 5:
		return r.IP
	case 6:
		return r.UserAgent
	case 7:
		return r.Names
	case 8:
		return r.Results
	default:
		return r.Factors
	}
}

// SiteTake is the items of one site handed to one request, as SitesTake
// takes them: a row of the type site_take, whose fields Index gives in
// order.
type SiteTake struct {
	Site int32
	// Items is up to how many of the site's items.
	Items int32
	// Slot is the request's, returned with each item it gets.
	Slot       int32
	Downloader string
	Version    string
	IP         *netip.Addr
	// Carried is the bytes of parameters the request's answer carries
	// already.
	Carried int64
}

func (t SiteTake) IsNull() bool { return false }

func (t SiteTake) Index(i int) any {
	switch i {
	case 0:
		return t.Site
	case 1:
		return t.Items
	case 2:
		return t.Slot
	case 3:
		return t.Downloader
	case 4:
		return t.Version
	case 5:
		return t.IP
	default:
		return t.Carried
	}
}

// batchTypeFields reads the row types above: each one's OID, its array's,
// and its fields in order with their types' OIDs. pgx encodes a struct
// into a row type once it knows the type's fields: each connection reads
// them when it opens (registerBatchTypes), with a few probes of the
// catalog's keys (pgx's LoadTypes reads the whole of pg_type, some 20 ms
// a connection). A database not yet migrated has none of the types.
const batchTypeFields = `SELECT t.typname::text, t.oid, t.typarray, a.attname::text, a.atttypid
FROM unnest(ARRAY['done_request', 'site_take']) n (name)
JOIN pg_type t ON t.oid = to_regtype(n.name)
JOIN pg_attribute a ON a.attrelid = t.typrelid AND a.attnum > 0 AND NOT a.attisdropped
ORDER BY n.name, a.attnum`

// registerBatchTypes tells conn's pgx the batch types. A database not yet
// migrated has none of them: its connections learn them when MigrateUp
// has made them and reset the pool.
func registerBatchTypes(ctx context.Context, conn *pgx.Conn) error {
	rows, err := conn.Query(ctx, batchTypeFields, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		return err
	}
	defer rows.Close()
	m := conn.TypeMap()
	var types []*pgtype.Type
	var codec *pgtype.CompositeCodec
	for rows.Next() {
		var name, field string
		var oid, array, fieldOID uint32
		if err := rows.Scan(&name, &oid, &array, &field, &fieldOID); err != nil {
			return err
		}
		fieldType, ok := m.TypeForOID(fieldOID)
		if !ok {
			return fmt.Errorf("row type %s: field %s is of a type pgx does not know (OID %d)", name, field, fieldOID)
		}
		if len(types) == 0 || types[len(types)-2].Name != name {
			codec = &pgtype.CompositeCodec{}
			t := &pgtype.Type{Name: name, OID: oid, Codec: codec}
			types = append(types, t, &pgtype.Type{Name: "_" + name, OID: array, Codec: &pgtype.ArrayCodec{ElementType: t}})
		}
		codec.Fields = append(codec.Fields, pgtype.CompositeCodecField{Name: field, Type: fieldType})
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for _, t := range types {
		m.RegisterType(t)
	}
	return nil
}
