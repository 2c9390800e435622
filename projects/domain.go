package projects

// OtherDomain is the byte-count domain that sums the bytes of every domain
// not counted apart: a done's keys that are no host-like name, and the
// domains beyond the ones a project keeps (see stats.DomainsKept).
const OtherDomain = "other"

// MaxDomainLen bounds a byte-count domain, a DNS label's length.
const MaxDomainLen = 63

// ValidDomain says whether d is a host-like byte-count domain, a key of a
// done's bytes a project counts apart: 1 to MaxDomainLen lowercase ASCII
// letters, digits, '-', '.' and '_', starting with a letter or a digit.
// Grab scripts report the file groups they upload ("data", "warc",
// "media") or the hosts they fetched from.
func ValidDomain(d string) bool {
	if d == "" || len(d) > MaxDomainLen {
		return false
	}
	for i, c := range []byte(d) {
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
		case i > 0 && (c == '-' || c == '.' || c == '_'):
		default:
			return false
		}
	}
	return true
}
