package items

import (
	"strings"
	"testing"
)

func TestParseBackfeed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		body, delim, sep string
		want             []string
	}{
		{"a\x00b\x00", "", "", []string{"a", "b"}},
		{"a\x00\x00b", "", "", []string{"a", "b"}},
		{"a\nb\n", "\n", "", []string{"a", "b"}},
		{"a||b", "||", "", []string{"a", "b"}},
		{"a\x1ectx\x00b", "", "\x1e", []string{"a\x1fctx", "b"}},
		{"url:x\x1fctx", "", "\x1f", []string{"url:x\x1fctx"}},
		{"", "", "", nil},
	} {
		got, err := ParseBackfeed([]byte(tc.body), []byte(tc.delim), []byte(tc.sep))
		if err != nil || strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("ParseBackfeed(%q, %q, %q) = %q, %v; want %q", tc.body, tc.delim, tc.sep, got, err, tc.want)
		}
	}
	for _, body := range []string{"bad\xff", "a\nb", "\x1eonly-context"} {
		if _, err := ParseBackfeed([]byte(body), nil, []byte("\x1e")); err == nil {
			t.Errorf("ParseBackfeed(%q) accepted", body)
		}
	}
}

// Whatever the body and separators, the parser returns valid names or an
// error, never a panic, and the names are what a claim can hand out.
func FuzzParseBackfeed(f *testing.F) {
	f.Add([]byte("a\x00b\x00"), []byte(""), []byte(""))
	f.Add([]byte("url:x\x1ectx\nurl:y"), []byte("\n"), []byte("\x1e"))
	f.Fuzz(func(t *testing.T, body, delim, sep []byte) {
		names, err := ParseBackfeed(body, delim, sep)
		if err != nil {
			return
		}
		for _, n := range names {
			if err := ValidName(n); err != nil {
				t.Fatalf("name %q: %v", n, err)
			}
		}
	})
}
