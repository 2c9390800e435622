package items_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"tracker/items"
)

// An import line whose parameters PostgreSQL would refuse, or would keep far
// larger than they were sent, is reported and left out; every other line is
// queued, its parameters as they are stored.
func TestAddLeavesOutParamsPostgreSQLWouldNotKeep(t *testing.T) {
	t.Parallel()
	f := setup(t)
	input := strings.Join([]string{
		"ok:1",
		"bad:1\t{\"n\":1e-20000}", // jsonb refuses it: the batch failed whole
		"bad:2\t{\"n\":1e-16383}", // jsonb keeps it as 16,385 characters
		"bad:3\t{\"s\":\"" + strings.Repeat("<", 61440) + "\"}", // 60 KiB sent, 360 KiB escaped
		"ok:2\t{\"n\":1.5e-7,\"id\":123456789012345678901,\"e\":1E3}",
	}, "\n")
	res, err := f.engine.Add(context.Background(), f.project, "todo", strings.NewReader(input))
	if err != nil {
		t.Fatal(err)
	}
	if res.Added != 2 || res.Invalid != 3 || len(res.InvalidLines) != 3 ||
		!strings.HasPrefix(res.InvalidLines[0], "line 2:") || !strings.HasPrefix(res.InvalidLines[2], "line 4:") {
		t.Fatalf("%+v, want lines 2 to 4 reported and the 2 others added", res)
	}
	if got := f.claim(t, "alice", 10); strings.Join(got, ",") != "ok:1,ok:2" {
		t.Fatalf("claimed %q", got)
	}
	// Numbers are kept digit for digit, written out as jsonb prints them.
	if st := f.status(t, "ok:2"); string(st.Params) != `{"e": 1000, "n": 0.00000015, "id": 123456789012345678901}` {
		t.Fatalf("params as stored: %s", st.Params)
	}
}

// A done naming more items than one request hands out is refused whole; so
// is one with outcomes or results for names it does not name, however many
// (looked up in a set: thousands of keys cost no more than reading them),
// while one with a result and an outcome for each of its items is taken.
func TestCompletionBounds(t *testing.T) {
	t.Parallel()
	names := make([]string, items.MaxDoneItems+1)
	for i := range names {
		names[i] = fmt.Sprintf("x:%d", i)
	}
	over := items.Completion{Downloader: "alice", Items: names}
	if err := over.Validate(); err == nil || !strings.Contains(err.Error(), "more than the 10000") {
		t.Fatalf("a done of %d items: %v", len(names), err)
	}
	names = names[:items.MaxDoneItems]
	strangers := items.Completion{Downloader: "alice", Items: names, Results: map[string]json.RawMessage{}}
	for i := range 5 * items.MaxDoneItems {
		strangers.Results[fmt.Sprintf("y:%d", i)] = json.RawMessage("1")
	}
	if err := strangers.Validate(); err == nil || !strings.Contains(err.Error(), "is not an item of this done") {
		t.Fatalf("results for names the done does not name: %v", err)
	}
	all := items.Completion{Downloader: "alice", Items: names, Results: map[string]json.RawMessage{}, Outcomes: map[string]items.Outcome{}}
	for _, name := range names {
		all.Results[name] = json.RawMessage("1")
		all.Outcomes[name] = items.Outcome{Word: "full"}
	}
	if err := all.Validate(); err != nil {
		t.Fatalf("a result and an outcome for each of %d items: %v", len(names), err)
	}
}
