package nodes

import (
	"fmt"
	"strconv"
	"strings"
)

// Bytes is a size given as 4GiB, 512MiB, 1G or a number of bytes.
type Bytes int64

// String writes the size as gib(), "0" when none: the flag's default.
func (f *Bytes) String() string {
	if *f == 0 {
		return "0"
	}
	return gib(int64(*f))
}

// Set reads a size with a binary unit (or none: bytes), as -node-memory
// takes it.
func (f *Bytes) Set(s string) error {
	units := []struct {
		suffix string
		shift  uint
	}{{"TiB", 40}, {"GiB", 30}, {"MiB", 20}, {"KiB", 10}, {"T", 40}, {"G", 30}, {"M", 20}, {"K", 10}, {"B", 0}}
	num, shift := s, uint(0)
	for _, u := range units {
		if v, ok := strings.CutSuffix(s, u.suffix); ok {
			num, shift = v, u.shift
			break
		}
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if err != nil || v < 0 {
		return fmt.Errorf("%q: a size such as 4GiB or 512MiB", s)
	}
	*f = Bytes(v * float64(int64(1)<<shift))
	return nil
}

// gib writes a size in GiB, or MiB under one.
func gib(n int64) string {
	if n >= 1<<30 {
		return fmt.Sprintf("%.4g GiB", float64(n)/(1<<30))
	}
	return fmt.Sprintf("%.4g MiB", float64(n)/(1<<20))
}
