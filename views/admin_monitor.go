package views

import "strconv"

// rate is a rate a second as the overview says it: two significant
// decimals under 10, whole numbers with separators above.
func rate(r float64) string {
	switch {
	case r <= 0:
		return "0"
	case r < 10:
		return strconv.FormatFloat(r, 'f', 2, 64)
	}
	return FormatInt(int64(r + 0.5))
}
