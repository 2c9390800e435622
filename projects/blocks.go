package projects

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"time"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"

	"tracker/audit"
	"tracker/db"
	"tracker/naming"
)

// Block kinds.
const (
	BlockNick = "nick"
	BlockIP   = "ip"
)

// Block refuses a nick, or an address or network, on one project or (with
// ProjectID nil) on all of them.
type Block struct {
	ProjectID *int32
	Kind      string
	Value     string // a nick as the admin typed it, or a network in CIDR notation
	Reason    string
	// CreatedBy is the admin who set it ("" for the shell), CreatedAt when
	// (set by the store).
	CreatedBy string
	CreatedAt time.Time

	key string // NickKey of a nick block's Value, set when read from the store
}

// NickKey is the form nicks are compared in: compatibility forms folded
// (NFKC: "ＡＬＩＣＥ" is "ALICE"), then case folded ("STRASSE" is "straße"),
// and characters that show as nothing dropped. Nicks are stored and shown
// as sent; only blocks compare through this, so a block on one spelling
// refuses every spelling that reads the same.
func NickKey(nick string) string {
	k := norm.NFKC.String(cases.Fold().String(norm.NFKC.String(nick)))
	return strings.Map(func(r rune) rune {
		if naming.Invisible(r) {
			return -1
		}
		return r
	}, k)
}

// ParseBlock checks and normalises a block: an IP value may be an address
// or a network and is stored as a network ("192.0.2.7" → "192.0.2.7/32").
func ParseBlock(kind, value string) (Block, error) {
	switch kind {
	case BlockNick:
		if value == "" || len(value) > MaxBlockNick || NickKey(value) == "" {
			return Block{}, errors.New("a nick block needs a nick")
		}
		return Block{Kind: kind, Value: value}, nil
	case BlockIP:
		if p, err := netip.ParsePrefix(value); err == nil {
			return Block{Kind: kind, Value: p.Masked().String()}, nil
		}
		a, err := netip.ParseAddr(value)
		if err != nil {
			return Block{}, fmt.Errorf("%q is no IP address or network", value)
		}
		a = a.Unmap()
		return Block{Kind: kind, Value: netip.PrefixFrom(a, a.BitLen()).String()}, nil
	}
	return Block{}, fmt.Errorf("unknown block kind %q: nick or ip", kind)
}

// AddBlock stores a block (its reason and setter replaced if it exists).
// Its reason is one line of at most MaxBlockReason bytes.
func (s *Store) AddBlock(ctx context.Context, b Block) error {
	if err := boundedLine("reason", b.Reason, MaxBlockReason); err != nil {
		return err
	}
	return db.WithTx(ctx, s.pool, func(q *db.Queries) error {
		_, err := q.BlockInsert(ctx, db.BlockInsertParams{ProjectID: b.ProjectID, Kind: b.Kind, Value: b.Value, Reason: b.Reason,
			CreatedBy: b.CreatedBy})
		if err != nil {
			return err
		}
		return b.record(ctx, q, "block.add")
	})
}

// RemoveBlock deletes a block and says whether there was one.
func (s *Store) RemoveBlock(ctx context.Context, b Block) (bool, error) {
	var n int64
	err := db.WithTx(ctx, s.pool, func(q *db.Queries) error {
		var err error
		if n, err = q.BlockDelete(ctx, db.BlockDeleteParams{ProjectID: b.ProjectID, Kind: b.Kind, Value: b.Value}); err != nil || n == 0 {
			return err
		}
		return b.record(ctx, q, "block.remove")
	})
	return n > 0, err
}

// record writes a change of the block to the audit log: a global block's
// entry belongs to no project.
func (b Block) record(ctx context.Context, q *db.Queries, action string) error {
	var project int32
	scope := "all"
	if b.ProjectID != nil {
		project, scope = *b.ProjectID, ""
	}
	detail := map[string]any{"kind": b.Kind, "value": b.Value, "reason": b.Reason}
	if scope != "" {
		detail["scope"] = scope
	}
	return audit.Record(ctx, q, action, project, detail)
}

// Blocks are the blocks that apply to one project.
type Blocks []Block

// Blocks lists the project's blocks and the global ones.
func (s *Store) Blocks(ctx context.Context, p Project) (Blocks, error) {
	rows, err := s.q.BlocksForProject(ctx, &p.ID)
	if err != nil {
		return nil, err
	}
	bs := make(Blocks, 0, len(rows))
	for _, r := range rows {
		b := Block{ProjectID: r.ProjectID, Kind: r.Kind, Value: r.Value, Reason: r.Reason, CreatedBy: r.CreatedBy, CreatedAt: r.CreatedAt}
		if b.Kind == BlockNick {
			// Once per read of the project (the cache's), not per request.
			b.key = NickKey(b.Value)
		}
		bs = append(bs, b)
	}
	return bs, nil
}

// Match finds the block refusing a nick or an address. Nicks compare by
// NickKey, as people read them: without regard to case, width or
// compatibility forms.
func (bs Blocks) Match(nick string, ip netip.Addr) (Block, bool) {
	key := ""
	for _, b := range bs {
		switch b.Kind {
		case BlockNick:
			if key == "" {
				key = NickKey(nick)
			}
			k := b.key
			if k == "" {
				k = NickKey(b.Value)
			}
			if k == key {
				return b, true
			}
		case BlockIP:
			if p, err := netip.ParsePrefix(b.Value); err == nil && ip.IsValid() && p.Contains(ip.Unmap()) {
				return b, true
			}
		}
	}
	return Block{}, false
}
