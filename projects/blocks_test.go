package projects_test

import (
	"context"
	"net/netip"
	"testing"

	"tracker/db/dbtest"
	"tracker/projects"
)

// Nick blocks compare nicks as people read them: a block on one spelling
// refuses the others that read the same, whichever side the odd spelling
// is on, and refuses nothing else.
func TestBlockMatchesNickAsRead(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		block, nick string
		blocked     bool
	}{
		{"alice", "alice", true},
		{"alice", "ALICE", true},
		{"alice", "ＡＬＩＣＥ", true}, // fullwidth
		{"ＡＬＩＣＥ", "alice", true},
		{"straße", "STRASSE", true},
		{"straße", "strasse", true},
		{"STRASSE", "straße", true},
		{"ﬁsh", "fish", true},        // a ligature
		{"café", "cafe\u0301", true}, // composed and decomposed
		{"x²", "x2", true},
		{"alice", "alice\u200b", true}, // an invisible character changes nothing
		{"alice", "alicia", false},
		{"alice", "bob", false},
		{"straße", "strase", false},
		{"café", "cafe", false},
	} {
		b, err := projects.ParseBlock(projects.BlockNick, c.block)
		if err != nil {
			t.Fatalf("ParseBlock(%q): %v", c.block, err)
		}
		if b.Value != c.block {
			t.Errorf("block stored as %q, typed %q", b.Value, c.block)
		}
		if _, got := (projects.Blocks{b}).Match(c.nick, netip.Addr{}); got != c.blocked {
			t.Errorf("block %q, nick %q: blocked %v, want %v", c.block, c.nick, got, c.blocked)
		}
	}
}

// The same through the store and the project cache, as a request sees
// them.
func TestStoredBlockMatchesNickAsRead(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.New(t)
	store := projects.NewStore(pool)
	p := dbtest.Project(t, pool, "blocks", "")
	for _, v := range []string{"alice", "straße"} {
		b, err := projects.ParseBlock(projects.BlockNick, v)
		if err != nil {
			t.Fatal(err)
		}
		b.ProjectID = &p.ID
		if err := store.AddBlock(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	live, err := projects.NewCache(store, 0).Get(ctx, p.Slug)
	if err != nil {
		t.Fatal(err)
	}
	for nick, blocked := range map[string]bool{"ＡＬＩＣＥ": true, "STRASSE": true, "Alice": true, "bob": false} {
		b, got := live.Blocks.Match(nick, netip.Addr{})
		if got != blocked {
			t.Errorf("nick %q: blocked %v, want %v", nick, got, blocked)
		}
		if got && b.Value != "alice" && b.Value != "straße" {
			t.Errorf("nick %q: block shows as %q", nick, b.Value)
		}
	}
}

func TestNickBlockNeedsAVisibleNick(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"", "\u200b", "\u3164", "\ufe0f"} {
		if _, err := projects.ParseBlock(projects.BlockNick, v); err == nil {
			t.Errorf("ParseBlock(%q) accepted", v)
		}
	}
}
