package views

import (
	"strings"
	"testing"
)

// A board says what state its project is in: finished (a badge, and
// thanks instead of the call to run a warrior), paused (a badge), or at
// work (the call to run a warrior). Its live rows carry what the live
// script needs to keep them: the page's size, each row's bytes.
func TestBoardStates(t *testing.T) {
	for _, c := range []struct {
		name              string
		finished, paused  bool
		badge, note, call string
	}{
		{"at work", false, false, "", "", "Run a warrior"},
		{"paused", false, true, "paused", "", "Run a warrior"},
		{"finished", true, true, "finished", "Thank you", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := leaderboardView()
			v.Project.Finished, v.Project.Paused = c.finished, c.paused
			v.Ranking.Offset = 0 // the first page: the live one
			d := doc(t, Leaderboard(v))
			if got := strings.TrimSpace(d.Find("h1 .badge").Text()); got != c.badge {
				t.Errorf("badge %q, want %q", got, c.badge)
			}
			if got := testid(d, "finished-note").Text(); !strings.Contains(got, c.note) || (c.note == "") != (got == "") {
				t.Errorf("note %q, want one with %q", got, c.note)
			}
			if got := testid(d, "cta").Text(); !strings.Contains(got, c.call) || (c.call == "") != (got == "") {
				t.Errorf("call to action %q, want one with %q", got, c.call)
			}
			if size, _ := d.Find("tbody[data-live-leaders]").Attr("data-live-leaders"); size != "100" {
				t.Errorf("the live rows' size %q", size)
			}
			if b, _ := testid(d, "leader").First().Attr("data-bytes"); b != "5368709120" {
				t.Errorf("the first row's bytes %q", b)
			}
		})
	}
}
