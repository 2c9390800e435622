package stats

import "math"

// addBytes adds byte counts, saturating at the largest int64 as the totals
// in the database do: a project near 2^63 bytes shows the maximum instead
// of a negative total.
func addBytes(a, b int64) int64 {
	if b > 0 && a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}
