package users_test

import (
	"context"
	"errors"
	"net/netip"
	"sync"
	"testing"

	"tracker/db/dbtest"
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
		s.Login(ctx, "nobody"+string(rune('a'+i)), "a guess a guess", home)
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
