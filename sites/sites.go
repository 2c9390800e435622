// Package sites tells the site of an item: the host, or the registrable
// domain, of the URL an item names. A URL frontier keeps per-site
// politeness (how many items of a site are out, how often one is handed
// out) and affinity by it; names that are not URLs have no site.
package sites

import (
	"net/netip"
	"net/url"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"
	"golang.org/x/net/publicsuffix"
)

// Key says what makes a site.
type Key string

const (
	// KeyOff: items have no site.
	KeyOff Key = "off"
	// KeyHost: the URL's host, normalised (see Host), without its port:
	// www.example.org and example.org are two sites.
	KeyHost Key = "host"
	// KeyRegistrable: the domain one registers, by the public suffix list:
	// www.example.org and img.example.org are the site example.org, and
	// a.github.io and b.github.io two sites. A host that is a public
	// suffix of the ICANN section (com, co.uk) has none; one of the
	// private section (github.io) is its own site.
	KeyRegistrable Key = "registrable"
)

// Keys are the values a project's site_key takes.
var Keys = []Key{KeyOff, KeyHost, KeyRegistrable}

// contextSeparator ends the part of a name that identifies the item
// (backfeed context may follow it).
const contextSeparator = "\x1f"

// Of is the site of an item's name under key, or "" when the name names no
// URL: "https://host/…" and "http://…", "url:" before such a URL, and
// urls-grab's "custom:PARAMS" whose URL-encoded parameters hold url=; or
// when its host is no valid name (see Host). An IP address is its own site
// under either key.
func Of(name string, key Key) string {
	if key != KeyHost && key != KeyRegistrable {
		return ""
	}
	name, _, _ = strings.Cut(name, contextSeparator)
	raw := name
	switch {
	case strings.HasPrefix(name, "url:"):
		raw = name[len("url:"):]
	case strings.HasPrefix(name, "custom:"):
		params, err := url.ParseQuery(name[len("custom:"):])
		if err != nil {
			return ""
		}
		raw = params.Get("url")
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "http" && u.Scheme != "https" {
		return ""
	}
	host, ip := Host(u.Hostname())
	if host == "" || key == KeyHost || ip {
		return host
	}
	if suffix, icann := publicsuffix.PublicSuffix(host); suffix == host && icann {
		// com, co.uk: registered by nobody.
		return ""
	}
	site, err := publicsuffix.EffectiveTLDPlusOne(host)
	if err != nil {
		// A public suffix of the private section (github.io, registered
		// by its owner) or a name with no known suffix (intranet hosts):
		// the host is the site.
		return host
	}
	return site
}

// hostProfile maps a host name as a browser does before a lookup (UTS 46,
// nontransitional: ß stays ß; full-width letters and dots become ASCII,
// upper case lower, soft hyphens and zero-width spaces go) and writes it
// in A-labels (xn--…), checking the labels (joiners in their contexts,
// bidi, a valid punycode) and the lengths of DNS (63 bytes a label, 253 a
// name). Unlike idna.Lookup it takes the host names found on the web that
// STD3 refuses: an underscore (my_blog.tumblr.com), hyphens in the third
// and fourth places (r3---sn-x.googlevideo.com); the ASCII left is checked
// by validLabel.
var hostProfile = idna.New(
	idna.MapForLookup(),
	idna.Transitional(false),
	idna.BidiRule(),
	idna.VerifyDNSLength(true),
	idna.StrictDomainName(false),
	idna.CheckHyphens(false),
)

// Host is the site key of a URL's host (as url.URL.Hostname gives it: no
// port, no brackets): an IP address in its canonical form (ip), or the
// name in lower-case A-labels without a trailing dot, so that every
// spelling of a name (bücher.de, xn--bcher-kva.de, BÜCHER.DE., full-width
// letters) is one site. It is "" for a host that is no valid name: empty
// labels (.com, a..b), a character no host name has (a*b, a zero-width
// joiner out of its script's context), invalid punycode, a label over 63
// bytes or a name over 253, or a name ending in a number that is no
// dotted-quad IPv4 address (1.2.3, 0x7f.1).
func Host(host string) (key string, ip bool) {
	if addr, err := netip.ParseAddr(host); err == nil {
		// The zone names an interface of the fetching machine, not the
		// server; a mapped IPv4 address is that address.
		return addr.WithZone("").Unmap().String(), true
	}
	if strings.Contains(host, ":") || !utf8.ValidString(host) {
		// The mapping would write a byte that is no UTF-8 as U+FFFD,
		// which no name has.
		return "", false
	}
	name := host
	if !plain(host) {
		var err error
		if name, err = hostProfile.ToASCII(host); err != nil {
			return "", false
		}
	}
	name = strings.TrimSuffix(name, ".")
	if len(name) > 253 {
		return "", false
	}
	if addr, err := netip.ParseAddr(name); err == nil && addr.Is4() {
		// Written with full-width digits or dots.
		return addr.String(), true
	}
	labels := strings.Split(name, ".")
	for _, label := range labels {
		if !validLabel(label) {
			return "", false
		}
	}
	if numeric(labels[len(labels)-1]) {
		return "", false
	}
	return name, false
}

// plain: a host the mapping leaves as it is (lower-case ASCII letters,
// digits, hyphens, underscores and dots, no A-label to check), as most
// are: it is spared the mapping, which costs more than the rest of Of.
// validLabel and the lengths still apply.
func plain(host string) bool {
	for i := range len(host) {
		c := host[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return !strings.Contains(host, "xn--")
}

// validLabel: a label of a host name in A-labels has 1 to 63 letters,
// digits, hyphens, and underscores (found on the web, though DNS host
// names have none).
func validLabel(label string) bool {
	if label == "" || len(label) > 63 {
		return false
	}
	for i := range len(label) {
		c := label[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// numeric: a last label that browsers read as a number, making the host
// an IPv4 address (decimal, or hexadecimal with 0x); no top-level domain
// is one.
func numeric(label string) bool {
	digits := "0123456789"
	if rest, ok := strings.CutPrefix(label, "0x"); ok {
		label, digits = rest, "0123456789abcdef"
	}
	return strings.Trim(label, digits) == ""
}
