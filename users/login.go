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
func (s *Store) Login(ctx context.Context, username, password string, ip netip.Addr) (db.User, error) {
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
		return db.User{}, err
	}
	m, err := s.q.LoginFailuresCount(ctx, db.LoginFailuresCountParams{Keys: keys[1:], Since: since})
	if err != nil {
		return db.User{}, err
	}
	if n >= maxAccountFailures || m >= maxAddressFailures {
		return db.User{}, ErrThrottled
	}
	u, err := s.Authenticate(ctx, username, password)
	if errors.Is(err, ErrBadLogin) {
		if err := s.q.LoginFailureAdd(ctx, keys); err != nil {
			return db.User{}, err
		}
		return db.User{}, ErrBadLogin
	}
	if err != nil {
		return db.User{}, err
	}
	return u, s.q.LoginFailuresClear(ctx, userKey)
}
