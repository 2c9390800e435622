package dictionaries

import (
	"regexp"
	"strconv"
)

// packerProject is what the staging servers' packer takes for a project in
// the name of a file grab scripts upload, `{base}.{project}.{id}.warc.zst`:
// megawarc reads both with `\.([0-9a-zA-Z-]+)\.([0-9]{10})\.warc\.zst$`.
var packerProject = regexp.MustCompile(`^[0-9a-zA-Z-]+$`)

// Packable says whether the packer can read slug back from the names grab
// scripts give their files. A slug it cannot carry (one with '_') makes it
// refuse every file of the project as a bad name: its WARCs are never
// packed.
func Packable(slug string) bool { return packerProject.MatchString(slug) }

// IDDigits says whether s is written as an id is: 1 to 19 decimal digits.
func IDDigits(s string) bool {
	if len(s) == 0 || len(s) > 19 {
		return false
	}
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// ParseID is the id s names, as ids are written (decimal, no sign nor
// leading zero: what the answers hold, and so the scripts' file names);
// false when s is written otherwise. The packer asks for the id it read
// and compares the answer's, as a string, with it: "0123" names no
// dictionary, as no answer would say it.
func ParseID(s string) (int64, bool) {
	if !IDDigits(s) {
		return 0, false
	}
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id < 1 || strconv.FormatInt(id, 10) != s {
		return 0, false
	}
	return id, true
}
