package report

import (
	"strings"
	"testing"
	"time"
)

// The table's line for a row is what docs/BENCHMARKS.md quotes: its
// columns, their order and their units must not move.
func TestPrintRow(t *testing.T) {
	r := &Row{
		Name: "single", Clients: 64, ItemsPerS: 1500, ReqPerS: 3000.4,
		Latency: map[string][3]time.Duration{
			"request": {1500 * time.Microsecond, 4 * time.Millisecond, 12 * time.Millisecond},
			"done":    {time.Millisecond, 2 * time.Millisecond, 3 * time.Millisecond},
			"lookup":  {100 * time.Microsecond, 200 * time.Microsecond, 300 * time.Microsecond},
			"board":   {5 * time.Millisecond, 6 * time.Millisecond, 7 * time.Millisecond},
		},
		Errors: "404 no-items×3", TrackerS: 0.8, PostgresS: 0.7, LoadS: 0.25, RSSMB: 42.4,
		Floor: 3000, River: 6000, Note: "a note", Top: []string{"1 ms/s in 2 calls/s of 0.500 ms: `SELECT 1`"},
	}
	var b strings.Builder
	Print(&b, []*Row{r, {Name: "empty", Latency: map[string][3]time.Duration{}, Errors: "-"}}, []Goal{{Name: "a goal", Measured: "1 ×", Status: Met(true)}})
	lines := strings.Split(b.String(), "\n")
	want := "| single | 64 | 1500 | 3000 | 1.5 / 4.0 / 12.0 | 1.0 / 2.0 / 3.0 | board 5.0 / 6.0 / 7.0; lookup 0.1 / 0.2 / 0.3 | 404 no-items×3 | 0.80 cores | 0.70 cores | 1.000 ms | 0.25 cores | 42 MB | 3000 | 0.50 | - | - | 6000 | 0.25 |"
	if lines[2] != want {
		t.Errorf("row:\n got %s\nwant %s", lines[2], want)
	}
	wantEmpty := "| empty | 0 | 0 | 0 | - | - | - | - | 0.00 cores | 0.00 cores | - | 0.00 cores | 0 MB | - | - | - | - | - | - |"
	if lines[3] != wantEmpty {
		t.Errorf("a row with nothing measured:\n got %s\nwant %s", lines[3], wantEmpty)
	}
	for _, part := range []string{"\n- single: a note\n", "| a goal | 1 × | met |\n", "\nsingle:\n- 1 ms/s in 2 calls/s of 0.500 ms: `SELECT 1`\n", "\nempty:\n"} {
		if !strings.Contains(b.String(), part) {
			t.Errorf("the output lacks %q:\n%s", part, b.String())
		}
	}
	if strings.Contains(b.String(), "- empty:") {
		t.Error("a row without a note has a note line")
	}
	if strings.Count(lines[0], "|") != strings.Count(lines[1], "|") || strings.Count(lines[0], "|") != strings.Count(lines[2], "|") {
		t.Errorf("the header, the rule and a row have different column counts:\n%s\n%s\n%s", lines[0], lines[1], lines[2])
	}
}

// Without goals the goal table is left out.
func TestPrintNoGoals(t *testing.T) {
	var b strings.Builder
	Print(&b, nil, nil)
	if strings.Contains(b.String(), "| goal |") {
		t.Errorf("a goal table without goals:\n%s", b.String())
	}
}

func TestFormats(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{Short(100_000), "100k"},
		{Short(10_000_000), "10M"},
		{Short(1_500_000), "1500k"},
		{Short(1234), "1234"},
		{Short(999), "999"},
		{Pct(199, 200), "99.5 %"},
		{Pct(0, 0), "-"},
		{JoinInts([]int64{12 << 20, 34 << 20}, 1<<20), "12 / 34"},
		{JoinInts(nil, 1), ""},
		{Ms(1250 * time.Microsecond), "1.2"},
		{Met(false), "not met"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
