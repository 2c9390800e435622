package users

import (
	"context"
	"errors"
	"net/netip"
	"runtime"
	"strings"
	"time"

	"tracker/db"
)

// Login throttling, counted in a window of loginWindow:
//   - an account from one address: maxAccountFailures. The count is per
//     address, so strangers failing with a known admin name lock out
//     themselves, never the admin signing in from elsewhere;
//   - an address, whatever the names: maxAddressFailures, so one address
//     cannot try many names instead.
//
// Every attempt is written down before its password is looked at and
// counted with every attempt before it: parallel guesses cannot all slip
// under the limit. A right password takes its attempt back.
const (
	loginWindow          = 15 * time.Minute
	maxAccountFailures   = 5
	maxAddressFailures   = 20
	LoginThrottleSeconds = int(loginWindow / time.Second)
)

// ErrThrottled means too many failed logins lately.
var ErrThrottled = errors.New("too many failed logins: wait a while")

// passwordChecks bounds the bcrypt comparisons running at once: each takes
// a core for a quarter of a second, and a flood of sign-ins must not take
// the cores the warriors are served with.
var passwordChecks = make(chan struct{}, max(1, runtime.GOMAXPROCS(0)/2))

// Login checks a login from ip, throttled per account and address and per
// address.
func (s *Store) Login(ctx context.Context, username, password string, ip netip.Addr) (Account, error) {
	accountKey := "user:" + strings.ToLower(username)
	var addressKey string
	if ip.IsValid() {
		accountKey += "@" + ip.String()
		addressKey = "ip:" + ip.String()
	}
	keys := []string{accountKey}
	if addressKey != "" {
		keys = append(keys, addressKey)
	}
	if err := s.q.LoginFailureAdd(ctx, keys); err != nil {
		return Account{}, err
	}
	since := time.Now().Add(-loginWindow)
	n, err := s.q.LoginFailuresCount(ctx, db.LoginFailuresCountParams{Keys: keys[:1], Since: since})
	if err != nil {
		return Account{}, err
	}
	m, err := s.q.LoginFailuresCount(ctx, db.LoginFailuresCountParams{Keys: keys[1:], Since: since})
	if err != nil {
		return Account{}, err
	}
	// The counts include this attempt.
	if n > maxAccountFailures || m > maxAddressFailures {
		return Account{}, ErrThrottled
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
	if addressKey != "" {
		if err := s.q.LoginFailureCancel(ctx, addressKey); err != nil {
			return Account{}, err
		}
	}
	return account(u, nil), nil
}
