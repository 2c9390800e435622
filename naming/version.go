package naming

import (
	"cmp"
	"strconv"
	"strings"
)

// CompareVersions orders two script versions part by part, numerically where
// both parts are numbers ("20240101.10" > "20240101.9", "1.10" > "1.9"), as
// text otherwise; a missing part counts as 0. It returns -1, 0 or +1.
func CompareVersions(a, b string) int {
	as, bs := versionParts(a), versionParts(b)
	for i := range max(len(as), len(bs)) {
		pa, pb := "0", "0"
		if i < len(as) {
			pa = as[i]
		}
		if i < len(bs) {
			pb = bs[i]
		}
		if c := comparePart(pa, pb); c != 0 {
			return c
		}
	}
	return 0
}

func versionParts(v string) []string {
	return strings.FieldsFunc(v, func(r rune) bool { return r == '.' || r == '-' || r == '_' || r == '+' })
}

func comparePart(a, b string) int {
	na, errA := strconv.ParseUint(a, 10, 64)
	nb, errB := strconv.ParseUint(b, 10, 64)
	switch {
	case errA == nil && errB == nil:
		return cmp.Compare(na, nb)
	case errA == nil: // a number sorts after a pre-release word: 1.0 > 1.0-beta
		return 1
	case errB == nil:
		return -1
	}
	return strings.Compare(a, b)
}
