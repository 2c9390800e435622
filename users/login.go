package users

import (
	"context"
	"errors"
	"net/netip"
	"strings"
	"time"

	"tracker/db"
)

// Login throttling: past this many failures within loginWindow, for the
// account or for the address, attempts are refused without a look at the
// password.
const (
	loginWindow          = 15 * time.Minute
	maxAccountFailures   = 5
	maxAddressFailures   = 20
	LoginThrottleSeconds = int(loginWindow / time.Second)
)

// ErrThrottled means too many failed logins lately.
var ErrThrottled = errors.New("too many failed logins: wait a while")

// Login checks a login from ip, throttled per account and per address.
func (s *Store) Login(ctx context.Context, username, password string, ip netip.Addr) (Account, error) {
	userKey := "user:" + strings.ToLower(username)
	keys := []string{userKey}
	if ip.IsValid() {
		keys = append(keys, "ip:"+ip.String())
	}
	since := time.Now().Add(-loginWindow)
	// The address has the larger allowance; counting both, the account's
	// limit decides unless the address failed with many names.
	n, err := s.q.LoginFailuresCount(ctx, db.LoginFailuresCountParams{Keys: keys[:1], Since: since})
	if err != nil {
		return Account{}, err
	}
	m, err := s.q.LoginFailuresCount(ctx, db.LoginFailuresCountParams{Keys: keys[1:], Since: since})
	if err != nil {
		return Account{}, err
	}
	if n >= maxAccountFailures || m >= maxAddressFailures {
		return Account{}, ErrThrottled
	}
	u, err := s.authenticate(ctx, username, password)
	if errors.Is(err, ErrBadLogin) {
		if err := s.q.LoginFailureAdd(ctx, keys); err != nil {
			return Account{}, err
		}
		return Account{}, ErrBadLogin
	}
	if err != nil {
		return Account{}, err
	}
	return account(u, nil), s.q.LoginFailuresClear(ctx, userKey)
}
