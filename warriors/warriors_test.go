package warriors_test

import (
	"context"
	"math"
	"net/netip"
	"slices"
	"testing"
	"time"

	"tracker/db/dbtest"
	"tracker/warriors"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

const ua = "ArchiveTeam Warrior/0.10.3 Warrior 1"

func TestParseUserAgent(t *testing.T) {
	for _, tc := range []struct{ ua, version, runner string }{
		{"ArchiveTeam Warrior/0.10.3 Warrior 20260101", "0.10.3", "Warrior"},
		{"ArchiveTeam Warrior/0.8.5 Standalone", "0.8.5", "Standalone"},
		{"ArchiveTeam Warrior/0.10.3b1", "0.10.3b1", ""},
		{"ArchiveTeam Warrior/<script> x", "", "x"},
		{"curl/8.0", "", ""},
		{"", "", ""},
	} {
		v, r := warriors.ParseUserAgent(tc.ua)
		if v != tc.version || r != tc.runner {
			t.Errorf("%q: %q %q, want %q %q", tc.ua, v, r, tc.version, tc.runner)
		}
	}
}

func TestRound(t *testing.T) {
	for _, tc := range []struct {
		in       []float64
		lat, lng int16
		ok       bool
	}{
		{[]float64{52.3702, 4.8952}, 52, 5, true},
		{[]float64{-33.51, -70.49}, -34, -70, true},
		{[]float64{90, 180}, 90, 180, true},
		{[]float64{91, 0}, 0, 0, false},
		{[]float64{0, -180.5}, 0, 0, false},
		{[]float64{math.Inf(1), 0}, 0, 0, false},
		{[]float64{math.NaN(), 0}, 0, 0, false},
		{[]float64{1}, 0, 0, false},
		{nil, 0, 0, false},
	} {
		lat, lng, ok := warriors.Round(tc.in)
		if lat != tc.lat || lng != tc.lng || ok != tc.ok {
			t.Errorf("%v: %d %d %v", tc.in, lat, lng, ok)
		}
	}
}

// A location is two JSON numbers; anything else is none, never 0°, 0°.
func TestParseLatLng(t *testing.T) {
	for in, want := range map[string][]float64{
		`[52.37, 4.89]`:     {52.37, 4.89},
		` [ -33 , -70.5 ] `: {-33, -70.5},
		`[91, 0]`:           {91, 0}, // a number, which Round refuses
		`["1", "2"]`:        nil,
		`[1e999, 5]`:        nil,
		`[1, 2, 3]`:         nil,
		`[1]`:               nil,
		`[null, null]`:      nil,
		`[true, 1]`:         nil,
		`{"lat": 1}`:        nil,
		`"51.5,-0.1"`:       nil,
		`null`:              nil,
		``:                  nil,
	} {
		got := warriors.ParseLatLng([]byte(in))
		if !slices.Equal(got, want) || (got == nil) != (want == nil) {
			t.Errorf("%s: %v, want %v", in, got, want)
		}
	}
}

func TestOutdated(t *testing.T) {
	if !warriors.Outdated("0.8.3", "0.8.5") || warriors.Outdated("0.10.3", "0.8.5") || warriors.Outdated("", "0.8.5") {
		t.Error("versions compared as text, or an unknown one called outdated")
	}
}

func TestRecordsAndLimits(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.New(t)
	s := warriors.NewStore(pool)
	addr := netip.MustParseAddr("192.0.2.7")

	id, err := s.Register(ctx, warriors.Contact{UserAgent: ua, Version: "0.10.3", Address: addr})
	if err != nil || len(id) < 20 || id == warriors.Anonymous {
		t.Fatalf("register: %q %v", id, err)
	}
	alice := warriors.Contact{ID: id, Nick: "alice", SelectedProject: "auto",
		LatLng: []float64{52.3702, 4.8952}, UserAgent: ua, Address: addr}
	ok, err := s.Update(ctx, alice)
	if err != nil || !ok {
		t.Fatalf("update: %v %v", ok, err)
	}
	var lat, lng int16
	var nick, version, runner, project string
	err = pool.QueryRow(ctx, "SELECT lat, lng, nick, seesaw_version, runner_type, selected_project FROM warriors WHERE id = $1", id).
		Scan(&lat, &lng, &nick, &version, &runner, &project)
	if err != nil || lat != 52 || lng != 5 || nick != "alice" || version != "0.10.3" || runner != "Warrior" || project != "auto" {
		t.Fatalf("stored %d %d %q %q %q %q %v", lat, lng, nick, version, runner, project, err)
	}

	// The Docker warrior's empty id: one record per address and nick,
	// however often it calls.
	for range 3 {
		if ok, err := s.Update(ctx, warriors.Contact{Nick: "bob", UserAgent: ua, Address: addr}); err != nil || !ok {
			t.Fatalf("empty id: %v %v", ok, err)
		}
	}
	if ok, err := s.Update(ctx, warriors.Contact{ID: warriors.Anonymous, Nick: "carol", Address: addr}); err != nil || ok {
		t.Error("the anonymous id was recorded", err)
	}
	count := func() int64 {
		t.Helper()
		return dbtest.Count(t, pool, "SELECT count(*) FROM warriors")
	}
	if n := count(); n != 2 {
		t.Fatalf("%d records, want 2", n)
	}

	// A flood from one address: RegistrationsPerHour records, then the
	// shared id; unknown ids in updates count against the same limit.
	anonymous := 0
	for range warriors.RegistrationsPerHour + 5 {
		id, err := s.Register(ctx, warriors.Contact{UserAgent: ua, Address: addr})
		if err != nil {
			t.Fatal(err)
		}
		if id == warriors.Anonymous {
			anonymous++
		}
	}
	if n := count(); n != warriors.RegistrationsPerHour || anonymous != 7 {
		t.Fatalf("%d records and %d anonymous ids after the flood", n, anonymous)
	}
	if ok, err := s.Update(ctx, warriors.Contact{ID: "made-up", Address: addr}); err != nil || ok {
		t.Error("an unknown id past the limit was recorded", err)
	}
	if ok, err := s.Update(ctx, warriors.Contact{ID: "made-up", Address: netip.MustParseAddr("2001:db8::1")}); err != nil || !ok {
		t.Error("another address was refused", err)
	}
	// Known warriors keep being recorded past the limit.
	if ok, err := s.Update(ctx, alice); err != nil || !ok {
		t.Error("a known warrior's update was refused", err)
	}

	o, err := s.Online(ctx, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if o.Total != count() || o.Projects["auto"] != 1 || o.Versions["0.10.3"] != o.Total-1 || o.Versions[""] != 1 ||
		len(o.Places) != 1 || o.Places[0] != (warriors.Place{Lat: 52, Lng: 5, Warriors: 1}) {
		t.Errorf("online: %+v", o)
	}
	if o, err := s.Online(ctx, time.Now().Add(warriors.OnlineWindow+time.Minute)); err != nil || o.Total != 0 {
		t.Errorf("%d online a quarter of an hour later: %v", o.Total, err)
	}

	// Records not seen for Kept go.
	dbtest.Age(t, pool, 31*24*time.Hour, dbtest.Warriors(id))
	before := count()
	if n, err := s.Prune(ctx, time.Now()); err != nil || n != 1 || count() != before-1 {
		t.Errorf("prune: %d %v", n, err)
	}
}
