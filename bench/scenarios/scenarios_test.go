package scenarios

import "testing"

func TestSplitName(t *testing.T) {
	for _, c := range []struct {
		in    string
		base  string
		fixed int
		fails bool
	}{
		{"single", "single", 0, false},
		{"single:8", "single", 8, false},
		{"readers-200", "readers-200", 0, false},
		{"single:0", "", 0, true},
		{"single:-3", "", 0, true},
		{"single:many", "", 0, true},
	} {
		base, fixed, err := splitName(c.in)
		if (err != nil) != c.fails || base != c.base || fixed != c.fixed {
			t.Errorf("splitName(%q) = %q, %d, %v", c.in, base, fixed, err)
		}
	}
}

// The name's clients win over -clients, which wins over the default.
func TestPickClients(t *testing.T) {
	for _, c := range []struct{ fixed, flag, def, want int }{
		{0, 0, 64, 64},
		{0, 16, 64, 16},
		{8, 16, 64, 8},
		{4, 0, 64, 4},
	} {
		if got := pickClients(c.fixed, c.flag, c.def); got != c.want {
			t.Errorf("pickClients(%d, %d, %d) = %d, want %d", c.fixed, c.flag, c.def, got, c.want)
		}
	}
}

// An unknown name is refused before anything runs.
func TestUnknownScenario(t *testing.T) {
	b := &bench{}
	if err := b.scenario(t.Context(), "no-such"); err == nil || err.Error() != `unknown scenario "no-such"` {
		t.Errorf("got %v", err)
	}
	if err := b.scenario(t.Context(), "single:x"); err == nil {
		t.Error("single:x ran")
	}
}
