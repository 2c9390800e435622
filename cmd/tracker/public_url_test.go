package main

import (
	"strings"
	"testing"
)

// A --public-url (or $TRACKER_PUBLIC_URL) that is no http(s) URL of a host
// is a usage error, found before the database is opened.
func TestServePublicURLRefused(t *testing.T) {
	t.Parallel()
	const nowhere = "host=/no/such/dir dbname=x"
	for _, c := range []struct {
		env  map[string]string
		args []string
	}{
		{nil, []string{"serve", "--public-url", "tracker.example.org"}},
		{nil, []string{"serve", "--public-url", "ftp://tracker.example.org"}},
		{map[string]string{"TRACKER_PUBLIC_URL": "https://x/?a=b"}, []string{"serve"}},
	} {
		code, _, errOut := tracker(t, nowhere, "", c.env, c.args...)
		if code != 2 || !strings.Contains(errOut, "--public-url") {
			t.Errorf("%v %v: exit %d %q, want 2 naming --public-url", c.env, c.args, code, errOut)
		}
	}
}
