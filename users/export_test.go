package users

import "time"

// SetClock gives the sign-in throttle another clock.
func (s *Store) SetClock(now func() time.Time) { s.now = now }
