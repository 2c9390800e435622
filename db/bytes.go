package db

import "math"

// AddBytes adds byte counts the way the byte totals of the database add
// them (see the LEAST(...) in the queries): saturating at the largest
// bigint, so a project near 2^63 bytes shows the maximum, never a negative
// total, and its books still balance.
func AddBytes(a, b int64) int64 {
	if b > 0 && a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}
