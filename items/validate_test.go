package items

import (
	"encoding/json"
	"strings"
	"testing"
)

// A done is refused, whole, when it reports more than a physical amount
// of bytes or carries a huge id: one such done must not break the totals
// for everyone.
func TestCompletionValidateBounds(t *testing.T) {
	ok := Completion{Downloader: "alice", Items: []string{"a:1", "a:2"}, Bytes: map[string]int64{"data": 2 * MaxItemBytes}}
	if err := ok.Validate(); err != nil {
		t.Fatalf("two items of 1 TiB each: %v", err)
	}
	for name, c := range map[string]Completion{
		"near 2^63": {Downloader: "alice", Items: []string{"a:1"}, Bytes: map[string]int64{"data": 1<<63 - 1}},
		"over the bound across domains": {Downloader: "alice", Items: []string{"a:1"},
			Bytes: map[string]int64{"data": MaxItemBytes, "media": 1}},
		"a huge id": {Downloader: "alice", Items: []string{"a:1"},
			ClientID: json.RawMessage(`"` + strings.Repeat("x", MaxClientID) + `"`)},
	} {
		if err := c.Validate(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
