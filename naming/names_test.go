package naming

import (
	"strings"
	"testing"
)

func TestValidNick(t *testing.T) {
	t.Parallel()
	for nick, ok := range map[string]bool{
		"alice": true, "Bob_the-archiver.2": true, "ab": true, "x": true, "Łukasz": true, "日本": true,
		strings.Repeat("n", 64): true, strings.Repeat("ń", 64): true,
		"": false, strings.Repeat("n", 65): false, "has space": false, "a/b": false,
		"<script>": false, "tab\t": false, "nul\x00": false, "bad\xff": false,
		// Path segments of their own; dots among other characters are fine.
		".": false, "..": false, "...": true, "a.b": true, ".alice": true,
		// Combining marks on a letter, and alone.
		"e\u0301": true, "\u0301": false, "\u0301\u0308\u20dd": false,
		// Characters that show as nothing, alone or hiding in a nick.
		"\u3164": false, "\u115f\u1160": false, "\u034f": false, "alice\u200b": false,
		"al\u200dice": false, "alice\ufe0f": false, "\uffa0": false, "a\u2060": false,
		// Compatibility forms are nicks as sent (blocks fold them).
		"ＡＬＩＣＥ": true, "STRASSE": true, "straße": true,
	} {
		if err := ValidNick(nick); (err == nil) != ok {
			t.Errorf("ValidNick(%q) = %v, want ok=%v", nick, err, ok)
		}
	}
}

func TestValidName(t *testing.T) {
	t.Parallel()
	for name, ok := range map[string]bool{
		"post:123": true, "url:https://example.com/a?b=c#d": true, "user:Ünïcode": true, "with space": true,
		strings.Repeat("u", MaxNameBytes): true,
		"":                                false, "a\x00b": false, "a\nb": false, "a\rb": false, "bad\xff": false, strings.Repeat("u", MaxNameBytes+1): false,
	} {
		if err := ValidName(name); (err == nil) != ok {
			t.Errorf("ValidName(%.20q) = %v, want ok=%v", name, err, ok)
		}
	}
}

func TestCompareVersions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"20240101.10", "20240101.9", 1},
		{"1.10", "1.9", 1},
		{"0.8.5", "0.8.5", 0},
		{"1.0", "1", 0},
		{"1.0-beta", "1.0", -1},
		{"2", "10", -1},
		{"", "1", -1},
		{"abc", "abd", -1},
	} {
		if got := CompareVersions(tc.a, tc.b); got != tc.want {
			t.Errorf("CompareVersions(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := CompareVersions(tc.b, tc.a); got != -tc.want {
			t.Errorf("CompareVersions(%q, %q) = %d, want %d", tc.b, tc.a, got, -tc.want)
		}
	}
}
