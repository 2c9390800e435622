package items

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"tracker/naming"
)

func TestParseBackfeed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		body, delim, sep string
		want             []BackfeedEntry
	}{
		{"a\x00b\x00", "", "", []BackfeedEntry{{Key: "a", Item: "a"}, {Key: "b", Item: "b"}}},
		{"a\x00\x00b", "", "", []BackfeedEntry{{Key: "a", Item: "a"}, {Key: "b", Item: "b"}}},
		{"a\nb\n", "\n", "", []BackfeedEntry{{Key: "a", Item: "a"}, {Key: "b", Item: "b"}}},
		{"a||b", "||", "", []BackfeedEntry{{Key: "a", Item: "a"}, {Key: "b", Item: "b"}}},
		// KEY SEP ITEM: the item is kept verbatim, split at the first SEP.
		{"a\x1eitem:a\x00b", "", "\x1e", []BackfeedEntry{{Key: "a", Item: "item:a"}, {Key: "b", Item: "b"}}},
		{"a\x1ex\x1ey", "", "\x1e", []BackfeedEntry{{Key: "a", Item: "x\x1ey"}}},
		// As urls-grab sends it.
		{"url\x1furl\x00url2\x1furl2\x1fparams\x00", "\x00", "\x1f",
			[]BackfeedEntry{{Key: "url", Item: "url"}, {Key: "url2", Item: "url2\x1fparams"}}},
		// Without an item separator, context stays in the one name.
		{"url:x\x1fctx", "", "", []BackfeedEntry{{Key: "url:x\x1fctx", Item: "url:x\x1fctx"}}},
		{"", "", "", nil},
	} {
		got, err := ParseBackfeed([]byte(tc.body), []byte(tc.delim), []byte(tc.sep), false)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("ParseBackfeed(%q, %q, %q) = %q, %v; want %q", tc.body, tc.delim, tc.sep, got, err, tc.want)
		}
	}
	for _, body := range []string{"bad\xff", "a\nb", "\x1eonly-item", "key\x1e", "\x1fkey\x1eitem", "key\x1e\x1fitem"} {
		if _, err := ParseBackfeed([]byte(body), nil, []byte("\x1e"), false); err == nil {
			t.Errorf("ParseBackfeed(%q) accepted", body)
		}
	}
}

// With params, an item's parameters are cut off after its first tab before
// the item is checked as a name: each is held to its own bound, the name to
// 8 KiB, the parameters to 64 KiB as stored.
func TestParseBackfeedParams(t *testing.T) {
	t.Parallel()
	long := "n:" + strings.Repeat("x", naming.MaxNameBytes-2)
	big := `{"p":"` + strings.Repeat("y", 30<<10) + `"}`
	for _, tc := range []struct {
		body string
		want []BackfeedEntry
	}{
		{"new:1\t{\"depth\": 2}\x00new:2\x00", []BackfeedEntry{{Key: "new:1", Item: "new:1", Params: `{"depth":2}`}, {Key: "new:2", Item: "new:2"}}},
		{"k\x1fitem\t{}", []BackfeedEntry{{Key: "k", Item: "item", Params: "{}"}}},
		{long + "\t" + big, []BackfeedEntry{{Key: long, Item: long, Params: big}}},
	} {
		got, err := ParseBackfeed([]byte(tc.body), nil, []byte("\x1f"), true)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("ParseBackfeed(%.60q) = %.200q, %v; want %.200q", tc.body, got, err, tc.want)
		}
	}
	for _, body := range []string{
		long + "x\t{}", "n:1\t" + `{"p":"` + strings.Repeat("y", MaxDocumentBytes) + `"}`, "n:1\t", "n:1\t[1]",
		"\t{}", "k\x1f\t{}", "k\x1f\x1f\t{}",
	} {
		if got, err := ParseBackfeed([]byte(body), nil, []byte("\x1f"), true); err == nil {
			t.Errorf("ParseBackfeed(%.60q) accepted: %.100q", body, got)
		}
	}
	// Without params a tab is part of the name.
	if got, err := ParseBackfeed([]byte("a\tb"), nil, nil, false); err != nil || len(got) != 1 || got[0].Item != "a\tb" || got[0].Params != "" {
		t.Errorf("without params: %q, %v", got, err)
	}
}

func TestValidShard(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "onetime", "periodic2026327", "a-b_C9", strings.Repeat("x", MaxShardLen)} {
		if err := ValidShard(s); err != nil {
			t.Errorf("ValidShard(%q): %v", s, err)
		}
	}
	for _, s := range []string{"a b", "a/b", "a\x00", "é", "a.b", strings.Repeat("x", MaxShardLen+1)} {
		if ValidShard(s) == nil {
			t.Errorf("ValidShard(%q) accepted", s)
		}
	}
}

// Whatever the body and separators, the parser returns valid names or an
// error, never a panic, and the names are what a claim can hand out.
func FuzzParseBackfeed(f *testing.F) {
	f.Add([]byte("a\x00b\x00"), []byte(""), []byte(""))
	f.Add([]byte("url:x\x1ectx\nurl:y"), []byte("\n"), []byte("\x1e"))
	f.Add([]byte("url\x1furl\x00url2\x1furl2\x1fparams\x00"), []byte("\x00"), []byte("\x1f"))
	f.Fuzz(func(t *testing.T, body, delim, sep []byte) {
		if entries, err := ParseBackfeed(body, delim, sep, true); err == nil {
			for _, e := range entries {
				if naming.ValidName(e.Key) != nil || naming.ValidName(e.Item) != nil || e.Key[0] == 0x1f || e.Item[0] == 0x1f {
					t.Fatalf("with params, entry %q", e)
				}
			}
		}
		entries, err := ParseBackfeed(body, delim, sep, false)
		if err != nil {
			return
		}
		for _, e := range entries {
			if err := naming.ValidName(e.Key); err != nil {
				t.Fatalf("key %q: %v", e.Key, err)
			}
			if err := naming.ValidName(e.Item); err != nil {
				t.Fatalf("item %q: %v", e.Item, err)
			}
			// What item_hash identifies the key and the item by is never empty.
			if e.Key[0] == 0x1f || e.Item[0] == 0x1f {
				t.Fatalf("entry %q starts with the context separator", e)
			}
			if len(sep) > 0 && e.Key != e.Item && !bytes.Contains(body, []byte(e.Key+string(sep)+e.Item)) {
				t.Fatalf("entry %q is not KEY SEP ITEM of the body", e)
			}
		}
	})
}
