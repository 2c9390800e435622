// Package sites tells the site of an item: the host, or the registrable
// domain, of the URL an item names. A URL frontier keeps per-site
// politeness (how many items of a site are out, how often one is handed
// out) and affinity by it; names that are not URLs have no site.
package sites

import (
	"net"
	"net/url"
	"strings"

	"golang.org/x/net/publicsuffix"
)

// Key says what makes a site.
type Key string

const (
	// KeyOff: items have no site.
	KeyOff Key = "off"
	// KeyHost: the URL's host, as written (lower case, without its port):
	// www.example.org and example.org are two sites.
	KeyHost Key = "host"
	// KeyRegistrable: the domain one registers, by the public suffix list:
	// www.example.org and img.example.org are the site example.org, and
	// a.github.io and b.github.io two sites.
	KeyRegistrable Key = "registrable"
)

// Keys are the values a project's site_key takes.
var Keys = []Key{KeyOff, KeyHost, KeyRegistrable}

// contextSeparator ends the part of a name that identifies the item
// (backfeed context may follow it).
const contextSeparator = "\x1f"

// Of is the site of an item's name under key, or "" when the name names no
// URL: "https://host/…" and "http://…", "url:" before such a URL, and
// urls-grab's "custom:PARAMS" whose URL-encoded parameters hold url=. An IP
// address is its own site under either key.
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
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if host == "" {
		return ""
	}
	if key == KeyHost || net.ParseIP(host) != nil {
		return host
	}
	site, err := publicsuffix.EffectiveTLDPlusOne(host)
	if err != nil {
		// A public suffix itself (github.io) or a name with no known
		// suffix (intranet hosts): the host is the site.
		return host
	}
	return site
}
