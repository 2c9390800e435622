package sites_test

import (
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

// Of never panics and never names a site for a name that is no URL.
func FuzzOf(f *testing.F) {
	for _, s := range []string{"https://example.org/", "custom:url=http%3A%2F%2Fa.b", "url:http://[::1]", "user:x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		site := sites.Of(name, sites.KeyRegistrable)
		if site != "" && sites.Of(name, sites.KeyHost) == "" {
			t.Fatalf("%q: registrable site %q without a host", name, site)
		}
	})
}
