package projects

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strings"

	"tracker/db"
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
	Value     string // a nick, or a network in CIDR notation
	Reason    string
}

// ParseBlock checks and normalises a block: an IP value may be an address
// or a network and is stored as a network ("192.0.2.7" → "192.0.2.7/32").
func ParseBlock(kind, value string) (Block, error) {
	switch kind {
	case BlockNick:
		if value == "" || len(value) > 256 {
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

// AddBlock stores a block (its reason replaced if it exists).
func (s *Store) AddBlock(ctx context.Context, b Block) error {
	_, err := s.q.BlockInsert(ctx, db.BlockInsertParams{ProjectID: b.ProjectID, Kind: b.Kind, Value: b.Value, Reason: b.Reason})
	return err
}

// RemoveBlock deletes a block and says whether there was one.
func (s *Store) RemoveBlock(ctx context.Context, b Block) (bool, error) {
	n, err := s.q.BlockDelete(ctx, db.BlockDeleteParams{ProjectID: b.ProjectID, Kind: b.Kind, Value: b.Value})
	return n > 0, err
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
		bs = append(bs, Block{ProjectID: r.ProjectID, Kind: r.Kind, Value: r.Value, Reason: r.Reason})
	}
	return bs, nil
}

// Match finds the block refusing a nick or an address. Nicks compare
// without regard to case, as people read them.
func (bs Blocks) Match(nick string, ip netip.Addr) (Block, bool) {
	for _, b := range bs {
		switch b.Kind {
		case BlockNick:
			if strings.EqualFold(b.Value, nick) {
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
