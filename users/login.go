package users

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"runtime"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"tracker/addrkey"
	"tracker/db"
	"tracker/refusal"
)

// Login throttling. Addresses are counted by their network (addrkey.Of:
// an IPv6 address by its /64), so a client cannot pass a limit by taking
// another address of its own. Within a window of loginWindow:
//   - an account from one network: maxAccountFailures. The count is per
//     network, so strangers failing with a known admin name lock out
//     themselves, never the admin signing in from elsewhere;
//   - a network, whatever the names: maxAddressFailures, so one network
//     cannot try many names instead;
//   - an account from everywhere: past accountFreeFailures, the account is
//     being guessed, and a network that failed on it must wait after its
//     own last failure on it 1 s, doubling with each failure of the
//     account past those, up to accountBackoffCap. Strangers' failures slow
//     every guesser of the account, but they cannot lock the admin out: a
//     network that has not failed on the account in the window is never
//     held back by this, and one that has waits at most accountBackoffCap
//     after its own last failure (or loginWindow after its
//     maxAccountFailures-th).
//
// Every attempt is written down before its password is looked at and
// counted with every attempt before it: parallel guesses cannot all slip
// under the limits. A right password takes its attempt back, and so does
// a refused one, whose password was never looked at: retrying while
// refused does not make the wait longer.
const (
	loginWindow          = 15 * time.Minute
	maxAccountFailures   = 5
	maxAddressFailures   = 20
	accountFreeFailures  = 10
	accountBackoffCap    = 5 * time.Minute
	LoginThrottleSeconds = int(loginWindow / time.Second)
)

// ErrThrottled means too many failed logins lately. A sign-in the
// throttle refuses is a Throttled refusal (reason login-throttled)
// wrapping it, its RetryAfter how long until the limit that refused lifts,
// at the most.
var ErrThrottled = errors.New("too many failed logins: wait a while")

// throttled is the refusal of a sign-in held back for wait.
func throttled(wait time.Duration) error {
	return &refusal.Error{Kind: refusal.Throttled, Reason: "login-throttled",
		Err: fmt.Errorf("%w (%v)", ErrThrottled, wait.Round(time.Second)), RetryAfter: wait}
}

// accountBackoff is how long a network that failed on an account waits
// after its last failure, once the account failed failures times in the
// window from everywhere (0 while it is under accountFreeFailures).
func accountBackoff(failures int64) time.Duration {
	if failures < accountFreeFailures {
		return 0
	}
	past := failures - accountFreeFailures
	if past >= 20 { // 2^20 s is well past the cap
		return accountBackoffCap
	}
	return min(time.Second<<past, accountBackoffCap)
}

// passwordChecks bounds the bcrypt comparisons running at once: each takes
// a core for a quarter of a second, and a flood of sign-ins must not take
// the cores the warriors are served with.
var passwordChecks = make(chan struct{}, max(1, runtime.GOMAXPROCS(0)/2))

// Login checks a login from ip, throttled per account and network, per
// network, and per account.
func (s *Store) Login(ctx context.Context, username, password string, ip netip.Addr) (Account, error) {
	network := "unknown"
	if n := addrkey.Of(ip); n.IsValid() {
		network = n.String()
	}
	name := strings.ToLower(username)
	accountKey := "user:" + name + "@" + network // the account from this network
	addressKey := "ip:" + network
	everywhereKey := "user:" + name // the account from every network
	keys := []string{accountKey, addressKey, everywhereKey}
	// The database keeps microseconds: so does the attempt's time, which
	// finds its rows again.
	now := s.now().Truncate(time.Microsecond)
	since := now.Add(-loginWindow)
	if err := s.q.LoginFailureAdd(ctx, db.LoginFailureAddParams{Keys: keys, At: now}); err != nil {
		return Account{}, err
	}
	refuse := func(wait time.Duration) (Account, error) {
		if err := s.q.LoginFailureTakeBack(ctx, db.LoginFailureTakeBackParams{Keys: keys, At: now}); err != nil {
			return Account{}, err
		}
		return Account{}, throttled(wait)
	}
	var counts [3]int64
	for i, k := range keys {
		n, err := s.q.LoginFailuresCount(ctx, db.LoginFailuresCountParams{Keys: []string{k}, Since: since})
		if err != nil {
			return Account{}, err
		}
		counts[i] = n
	}
	// The counts include this attempt.
	if counts[0] > maxAccountFailures || counts[1] > maxAddressFailures {
		return refuse(loginWindow)
	}
	if backoff := accountBackoff(counts[2] - 1); backoff > 0 {
		last, err := s.q.LoginFailureLastBefore(ctx, db.LoginFailureLastBeforeParams{Key: accountKey, Since: since, Before: now})
		switch {
		case err == nil:
			if wait := last.Add(backoff).Sub(now); wait > 0 {
				return refuse(wait)
			}
		case !errors.Is(err, pgx.ErrNoRows):
			return Account{}, err
		}
	}
	select {
	case passwordChecks <- struct{}{}:
	case <-ctx.Done():
		return Account{}, ctx.Err()
	}
	u, err := s.authenticate(ctx, username, password)
	<-passwordChecks
	if err != nil {
		return Account{}, err // a wrong password leaves its attempt counted
	}
	if err := s.q.LoginFailuresClear(ctx, accountKey); err != nil {
		return Account{}, err
	}
	if err := s.q.LoginFailureTakeBack(ctx, db.LoginFailureTakeBackParams{Keys: keys[1:], At: now}); err != nil {
		return Account{}, err
	}
	return account(u, nil), nil
}
