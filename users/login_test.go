package users_test

import (
	"context"
	"errors"
	"net/netip"
	"sync"
	"testing"
	"time"

	"tracker/db/dbtest"
	"tracker/refusal"
	"tracker/users"
)

func setup(t *testing.T) *users.Store {
	t.Helper()
	s := users.NewStore(dbtest.New(t))
	if _, err := s.Create(context.Background(), "root", "correct horse battery", users.RoleAdmin); err != nil {
		t.Fatal(err)
	}
	return s
}

var (
	stranger = netip.MustParseAddr("192.0.2.66")
	home     = netip.MustParseAddr("198.51.100.7")
)

// Parallel guesses are counted before their passwords are checked: no
// more than the limit of them are ever tried.
func TestLoginGuessesInParallel(t *testing.T) {
	t.Parallel()
	s := setup(t)
	var mu sync.Mutex
	tried, throttled := 0, 0
	var wg sync.WaitGroup
	for range 60 {
		wg.Go(func() {
			_, err := s.Login(context.Background(), "root", "a guess a guess", stranger)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case errors.Is(err, users.ErrBadLogin):
				tried++
			case errors.Is(err, users.ErrThrottled):
				throttled++
			default:
				t.Errorf("login: %v", err)
			}
		})
	}
	wg.Wait()
	if tried > 5 || tried+throttled != 60 {
		t.Fatalf("%d guesses tried, %d throttled: at most 5 may be tried", tried, throttled)
	}
}

// A stranger failing with a known admin name locks out the stranger, not
// the admin signing in from elsewhere; the stranger's address is locked
// for every name.
func TestLoginLockIsPerAddress(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := setup(t)
	for range 5 {
		if _, err := s.Login(ctx, "root", "a guess a guess", stranger); !errors.Is(err, users.ErrBadLogin) {
			t.Fatalf("guess: %v", err)
		}
	}
	if _, err := s.Login(ctx, "root", "correct horse battery", stranger); !errors.Is(err, users.ErrThrottled) {
		t.Fatalf("the right password from the guessing address: %v", err)
	}
	if _, err := s.Login(ctx, "root", "correct horse battery", home); err != nil {
		t.Fatalf("the admin from home: %v", err)
	}
	for i := range 20 {
		// Refused, whether as a bad guess or, once they add up, throttled.
		if _, err := s.Login(ctx, "nobody"+string(rune('a'+i)), "a guess a guess", home); !errors.Is(err, users.ErrBadLogin) && !errors.Is(err, users.ErrThrottled) {
			t.Fatalf("guess %d: %v", i+1, err)
		}
	}
	if _, err := s.Login(ctx, "root", "correct horse battery", home); !errors.Is(err, users.ErrThrottled) {
		t.Fatalf("an address that tried 20 names: %v", err)
	}
}

// A right password takes its attempt back: an admin who signs in often
// never locks themselves out.
func TestLoginSuccessIsNotCounted(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := setup(t)
	for range 25 {
		if _, err := s.Login(ctx, "root", "correct horse battery", home); err != nil {
			t.Fatalf("login: %v", err)
		}
	}
}

// Addresses of one IPv6 /64 count as one: five failures from it refuse
// the account from every address of it, and from no other /64.
func TestLoginCountsIPv6By64(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := setup(t)
	for i := range 5 {
		ip := netip.AddrFrom16([16]byte{0x20, 0x01, 0x0d, 0xb8, 0, 1, 0, 2, 15: byte(i + 1)})
		if _, err := s.Login(ctx, "root", "a guess a guess", ip); !errors.Is(err, users.ErrBadLogin) {
			t.Fatalf("guess from %s: %v", ip, err)
		}
	}
	if _, err := s.Login(ctx, "root", "correct horse battery", netip.MustParseAddr("2001:db8:1:2:ffff::1")); !errors.Is(err, users.ErrThrottled) {
		t.Fatalf("the right password from the guessing /64: %v", err)
	}
	if _, err := s.Login(ctx, "root", "correct horse battery", netip.MustParseAddr("2001:db8:1:3::1")); err != nil {
		t.Fatalf("the next /64: %v", err)
	}
}

// An account guessed from many addresses slows every guesser of it down,
// but cannot be locked: the admin signs in at once from an address that
// has not failed on it, and within the backoff's cap of their own last
// failure from one that has, however many strangers keep failing.
func TestLoginAccountGuessedFromEverywhere(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := setup(t)
	now := time.Now()
	s.SetClock(func() time.Time { return now })
	guesser := func(i int) netip.Addr { return netip.AddrFrom4([4]byte{203, 0, 113, byte(i)}) }
	// Each stranger fails once: 20 failures of the account in a few
	// seconds, none refused (no address reaches its own limits), and the
	// backoff at its cap.
	for i := range 20 {
		now = now.Add(100 * time.Millisecond)
		if _, err := s.Login(ctx, "root", "a guess a guess", guesser(i)); !errors.Is(err, users.ErrBadLogin) {
			t.Fatalf("stranger %d: %v", i, err)
		}
	}
	// A stranger who failed tries again: held back, for at most the cap.
	_, err := s.Login(ctx, "root", "a guess a guess", guesser(0))
	throttled, ok := refusal.Of(err)
	if !ok || throttled.Kind != refusal.Throttled || !errors.Is(err, users.ErrThrottled) || throttled.RetryAfter <= 0 || throttled.RetryAfter > 5*time.Minute {
		t.Fatalf("a stranger's second guess at once: %v", err)
	}
	// The admin from home, where nothing failed: in at once.
	if _, err := s.Login(ctx, "root", "correct horse battery", home); err != nil {
		t.Fatalf("the admin from home: %v", err)
	}
	// The admin mistypes once from home: held back like the strangers, and
	// retrying while held back does not make it longer.
	if _, err := s.Login(ctx, "root", "correct horse batteyr", home); !errors.Is(err, users.ErrBadLogin) {
		t.Fatalf("the typo: %v", err)
	}
	for range 3 {
		now = now.Add(time.Minute)
		if _, err := s.Login(ctx, "root", "correct horse battery", home); !errors.Is(err, users.ErrThrottled) {
			t.Fatalf("right after the typo, the account guessed: %v", err)
		}
	}
	// The strangers keep failing meanwhile, from fresh addresses.
	for i := range 3 {
		if _, err := s.Login(ctx, "root", "a guess a guess", guesser(100+i)); !errors.Is(err, users.ErrBadLogin) {
			t.Fatalf("a fresh stranger: %v", err)
		}
	}
	now = now.Add(2 * time.Minute) // 5 minutes after the typo
	if _, err := s.Login(ctx, "root", "correct horse battery", home); err != nil {
		t.Fatalf("the admin 5 minutes after their typo: %v", err)
	}
	// A stranger's second guess is taken once the cap has passed.
	if _, err := s.Login(ctx, "root", "a guess a guess", guesser(1)); !errors.Is(err, users.ErrBadLogin) {
		t.Fatalf("a stranger's second guess 5 minutes on: %v", err)
	}
}
