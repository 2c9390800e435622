package db_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"tracker/db/dbtest"
)

// answer_bytes measures a name as the answer's encoder writes it: exactly,
// but for a tab, a backspace and a form feed (two bytes each as sent,
// counted as six: the bound errs on the safe side).
func TestAnswerBytesAsSent(t *testing.T) {
	t.Parallel()
	pool := dbtest.New(t)
	for _, name := range []string{"a", "user:123", `a"b\c`, "https://example.com/?a=1&b=<2>", "\x01\x1f", "\u2028x\u2029", "é中",
		"tab\there", "\b\f", strings.Repeat("&", 1400)} {
		sent, err := json.Marshal(name)
		if err != nil {
			t.Fatal(err)
		}
		// Its place in the list of names (\u0000 before it), and with
		// parameters of 10 bytes, the name again, a colon and a comma.
		want := []int64{int64(len(sent)) + 6, 2*int64(len(sent)) + 6 + 10 + 2}
		for i, params := range []int64{0, 10} {
			var got int64
			if err := pool.QueryRow(context.Background(), "SELECT answer_bytes($1, $2)", name, params).Scan(&got); err != nil {
				t.Fatal(err)
			}
			short := strings.ContainsAny(name, "\t\b\f")
			if got != want[i] && !(short && got > want[i]) {
				t.Errorf("answer_bytes(%q, %d) = %d, sent %d", name, params, got, want[i])
			}
		}
	}
}
