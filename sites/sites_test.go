package sites_test

import (
	"strings"
	"testing"

	"tracker/sites"
)

func TestOf(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name             string
		host, registered string
	}{
		{"https://www.Example.org/a?b=c", "www.example.org", "example.org"},
		{"http://img.example.org:8080/x.png", "img.example.org", "example.org"},
		{"https://a.github.io/page", "a.github.io", "a.github.io"},
		{"https://news.bbc.co.uk/", "news.bbc.co.uk", "bbc.co.uk"},
		{"https://example.org./", "example.org", "example.org"},
		{"url:https://t.me/s/channel", "t.me", "t.me"},
		{"https://t.me/s/channel\x1fparams after the context separator", "t.me", "t.me"},
		{"custom:url=https%3A%2F%2Fforum.example.com%2Fthread%3Fid%3D1&random=abc&all=1", "forum.example.com", "example.com"},
		{"http://192.0.2.7/index.html", "192.0.2.7", "192.0.2.7"},
		{"http://[2001:db8::1]:80/", "2001:db8::1", "2001:db8::1"},
		{"http://intranet/", "intranet", "intranet"},
		{"https://github.io/", "github.io", "github.io"},
		{"https://blogspot.com/", "blogspot.com", "blogspot.com"},
		// An ICANN public suffix is registered by nobody.
		{"https://com/", "com", ""},
		{"https://co.uk./", "co.uk", ""},
		{"https://COM./", "com", ""},
		// No URL, no site.
		{"user:alice", "", ""},
		{"post:123", "", ""},
		{"ftp://example.org/file", "", ""},
		{"custom:random=abc", "", ""},
		{"custom:%zz", "", ""},
		{"https:///path-without-host", "", ""},
		{"url:not a url", "", ""},
	} {
		if got := sites.Of(c.name, sites.KeyHost); got != c.host {
			t.Errorf("Of(%q, host) = %q, want %q", c.name, got, c.host)
		}
		if got := sites.Of(c.name, sites.KeyRegistrable); got != c.registered {
			t.Errorf("Of(%q, registrable) = %q, want %q", c.name, got, c.registered)
		}
		if got := sites.Of(c.name, sites.KeyOff); got != "" {
			t.Errorf("Of(%q, off) = %q, want none", c.name, got)
		}
	}
}

// Every spelling of a host is one site, in lower-case A-labels; a host
// that is no valid name is no site.
func TestOfNormalises(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", 63)
	for _, c := range []struct {
		why, name        string
		host, registered string
	}{
		// IDNA: Unicode and A-labels, in either case, are one name.
		{"U-label", "https://bücher.de/1", "xn--bcher-kva.de", "xn--bcher-kva.de"},
		{"A-label", "https://xn--bcher-kva.de/2", "xn--bcher-kva.de", "xn--bcher-kva.de"},
		{"upper-case A-label", "https://WWW.XN--BCHER-KVA.DE/", "www.xn--bcher-kva.de", "xn--bcher-kva.de"},
		{"upper-case U-label", "https://BÜCHER.de/", "xn--bcher-kva.de", "xn--bcher-kva.de"},
		{"percent-encoded U-label", "https://b%C3%BCcher.de/", "xn--bcher-kva.de", "xn--bcher-kva.de"},
		{"U-label in custom:", "custom:url=https%3A%2F%2Fwww.b%C3%BCcher.de%2F", "www.xn--bcher-kva.de", "xn--bcher-kva.de"},
		{"nontransitional ß", "https://straße.de/", "xn--strae-oqa.de", "xn--strae-oqa.de"},
		{"U-label under an IDN suffix", "https://www.例え.jp/", "www.xn--r8jz45g.jp", "xn--r8jz45g.jp"},
		{"full-width letters", "https://ｅｘａｍｐｌｅ.com/", "example.com", "example.com"},
		{"full-width upper case and dots", "https://ＷＷＷ．Ｅｘａｍｐｌｅ。ＣＯＭ/", "www.example.com", "example.com"},
		{"upper case", "https://WWW.Example.ORG/", "www.example.org", "example.org"},
		// What a mapping removes goes.
		{"zero-width space", "https://exa\u200bmple.com/", "example.com", "example.com"},
		{"word joiner", "https://exa\u2060mple.com/", "example.com", "example.com"},
		{"byte order mark", "https://exa\ufeffmple.com/", "example.com", "example.com"},
		{"soft hyphen", "https://exa\u00admple.com/", "example.com", "example.com"},
		// What it keeps must be in its context.
		{"zero-width joiner", "https://exa\u200dmple.com/", "", ""},
		{"zero-width non-joiner", "https://exa\u200cmple.com/", "", ""},
		{"zero-width non-joiner between Arabic letters", "https://\u0646\u0627\u0645\u0647\u200c\u0627\u06cc.ir/", "xn--mgba3gch31f060k.ir", "xn--mgba3gch31f060k.ir"},
		{"only a zero-width space", "https://%E2%80%8B/", "", ""},
		// Ports, user info, trailing dots.
		{"port", "https://example.com:8443/", "example.com", "example.com"},
		{"empty port", "https://example.com:/", "example.com", "example.com"},
		{"user info", "https://user:secret@www.example.com/", "www.example.com", "example.com"},
		{"user info and port", "http://u@Example.com:80/", "example.com", "example.com"},
		{"trailing dot", "https://www.example.com./", "www.example.com", "example.com"},
		{"full-width trailing dot", "https://example.com。/", "example.com", "example.com"},
		{"trailing dot and port", "https://example.com.:8080/", "example.com", "example.com"},
		{"two trailing dots", "https://example.com../", "", ""},
		// Empty labels.
		{"leading dot", "https://.com/", "", ""},
		{"leading dot of a name", "https://.example.com/", "", ""},
		{"empty label", "https://a..b/", "", ""},
		{"only a dot", "https://./", "", ""},
		// Characters no host name has, bad punycode, bidi.
		{"asterisk", "https://a*b.example.com/", "", ""},
		{"invalid punycode", "https://xn--zz.com/", "", ""},
		{"no UTF-8", "http://\x80a.com/", "", ""},
		{"mixed directions", "https://a\u05d0.com/", "", ""},
		{"right to left", "https://\u05d0\u05d1.com/", "xn--4dbc.com", "xn--4dbc.com"},
		// What the web has, though STD3 refuses it.
		{"underscore", "https://my_blog.blogspot.com/", "my_blog.blogspot.com", "my_blog.blogspot.com"},
		{"hyphens in the third and fourth places", "https://r3---sn-abc.googlevideo.com/v", "r3---sn-abc.googlevideo.com", "googlevideo.com"},
		// Lengths of DNS.
		{"label of 63 bytes", "https://" + long + ".com/", long + ".com", long + ".com"},
		{"label of 64 bytes", "https://" + long + "a.com/", "", ""},
		{"name of 253 bytes", "https://" + strings.Repeat(long+".", 3) + strings.Repeat("a", 61) + "/", strings.Repeat(long+".", 3) + strings.Repeat("a", 61), long + "." + strings.Repeat("a", 61)},
		{"name of 254 bytes", "https://" + strings.Repeat(long+".", 3) + strings.Repeat("a", 62) + "/", "", ""},
		{"U-label whose A-label has 62 bytes", "https://日本語のドメイン名がとても長い例を書いてみました.jp/", "xn--n8jaw0czbzbcm6c5jk6a7qmjoummhkm579bk5raes5fnzek6a6670dso3b.jp", "xn--n8jaw0czbzbcm6c5jk6a7qmjoummhkm579bk5raes5fnzek6a6670dso3b.jp"},
		{"U-label whose A-label has 64 bytes", "https://日本語のドメイン名がとても長い例を書いてみましたよ.jp/", "", ""},
		// IP addresses are sites, in their canonical form.
		{"IPv4", "http://192.0.2.7:8080/", "192.0.2.7", "192.0.2.7"},
		{"IPv4 with a trailing dot", "http://192.0.2.7./", "192.0.2.7", "192.0.2.7"},
		{"IPv4 in full-width digits", "http://１９２．０．２．７/", "192.0.2.7", "192.0.2.7"},
		{"IPv6", "http://[2001:DB8:0::0001]:443/", "2001:db8::1", "2001:db8::1"},
		{"IPv6 with user info", "http://u:p@[2001:db8::1]/", "2001:db8::1", "2001:db8::1"},
		{"IPv4-mapped IPv6", "http://[::ffff:192.0.2.7]/", "192.0.2.7", "192.0.2.7"},
		{"IPv6 with a zone", "http://[fe80::1%25eth0]/", "fe80::1", "fe80::1"},
		{"IPv6 without brackets", "http://2001:db8::1/", "", ""},
		{"bad IPv6", "http://[2001:db8::g]/", "", ""},
		// Names ending in a number are IPv4 addresses in other spellings.
		{"IPv4 as one number", "http://3221226055/", "", ""},
		{"IPv4 in three parts", "http://192.0.519/", "", ""},
		{"IPv4 with a leading zero", "http://192.0.2.07/", "", ""},
		{"IPv4 in hexadecimal", "http://0xc0.0.2.7/", "", ""},
		{"hexadecimal last label", "http://a.0x7f/", "", ""},
		{"a number before the suffix", "https://1.2.3.example/", "1.2.3.example", "3.example"},
	} {
		if got := sites.Of(c.name, sites.KeyHost); got != c.host {
			t.Errorf("%s: Of(%q, host) = %q, want %q", c.why, c.name, got, c.host)
		}
		if got := sites.Of(c.name, sites.KeyRegistrable); got != c.registered {
			t.Errorf("%s: Of(%q, registrable) = %q, want %q", c.why, c.name, got, c.registered)
		}
	}
}

// A site asked for by name is found in any spelling of it.
func TestName(t *testing.T) {
	t.Parallel()
	for asked, want := range map[string]string{
		" www.Example.org. ": "www.example.org",
		"bücher.de":          "xn--bcher-kva.de",
		"XN--BCHER-KVA.DE":   "xn--bcher-kva.de",
		"ｅｘａｍｐｌｅ.com":        "example.com",
		"2001:DB8::1":        "2001:db8::1",
		"a..b":               "a..b", // no site has it: not found
	} {
		if got, err := sites.Name(asked); err != nil || got != want {
			t.Errorf("Name(%q) = %q, %v; want %q", asked, got, err, want)
		}
	}
	if _, err := sites.Name(" . "); err != sites.ErrNoName {
		t.Errorf("Name(\" . \") = %v, want ErrNoName", err)
	}
}

// Of never panics and never names a site for a name that is no URL.
func FuzzOf(f *testing.F) {
	for _, s := range []string{"https://example.org/", "custom:url=http%3A%2F%2Fa.b", "url:http://[::1]", "user:x", "https://Bücher.DE./", "http://[::ffff:1.2.3.4%25x]/", "https://ｅｘａｍｐｌｅ。com/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		site := sites.Of(name, sites.KeyRegistrable)
		host := sites.Of(name, sites.KeyHost)
		if site != "" && host == "" {
			t.Fatalf("%q: registrable site %q without a host", name, site)
		}
		// A site key is its own key: normalised once and for all.
		for _, key := range []string{site, host} {
			if got, _ := sites.Host(key); key != "" && got != key {
				t.Fatalf("%q: site %q, whose key is %q", name, key, got)
			}
		}
	})
}

// A host spelled in lower-case ASCII, which Host takes as it is, has the
// key of its other spellings, which go through the mapping.
func FuzzHost(f *testing.F) {
	for _, s := range []string{"example.org", "a..b", "xn--bcher-kva.de", "r3---sn-x.googlevideo.com.", "my_blog.example", "1.2.3", "192.0.2.7", "-a-.com"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, host string) {
		for i := range len(host) {
			if host[i] >= 0x80 {
				return
			}
		}
		lower, _ := sites.Host(strings.ToLower(host))
		upper, _ := sites.Host(strings.ToUpper(host))
		if lower != upper {
			t.Fatalf("%q: %q in lower case, %q in upper case", host, lower, upper)
		}
	})
}
