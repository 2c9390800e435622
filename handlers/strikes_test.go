package handlers

import (
	"net/netip"
	"testing"
	"time"
)

func TestStrikes(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	s := newStrikes(3, time.Minute)
	s.now = func() time.Time { return now }
	a, b := netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("192.0.2.2")
	for range 3 {
		if s.wait(a) != 0 {
			t.Fatal("turned away before the limit")
		}
		s.add(a)
	}
	if w := s.wait(a); w != time.Minute {
		t.Fatalf("wait %v after the limit", w)
	}
	if s.wait(b) != 0 {
		t.Fatal("another address turned away")
	}
	now = now.Add(30 * time.Second)
	if w := s.wait(a); w != 30*time.Second {
		t.Fatalf("wait %v half-way", w)
	}
	now = now.Add(30 * time.Second)
	if s.wait(a) != 0 {
		t.Fatal("still turned away after the window")
	}
}
