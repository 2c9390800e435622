package main

import (
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"

	"golang.org/x/crypto/acme"
	"golang.org/x/crypto/acme/autocert"
)

// tlsOptions say whether and how serve speaks TLS itself: --tls-addr,
// with a certificate's files (--tls-cert, --tls-key) or certificates from
// an ACME CA (--acme-domain, --acme-email, --acme-directory).
type tlsOptions struct {
	Addr, Cert, Key                       string
	ACMEDomains, ACMEEmail, ACMEDirectory string
}

// tlsServing is what serving TLS takes.
type tlsServing struct {
	config *tls.Config
	// plain wraps the plain-HTTP listener's handler: an ACME CA's
	// challenges are answered there.
	plain func(http.Handler) http.Handler
	// reload reads the certificate's files again (nil with ACME, whose
	// certificates renew themselves).
	reload func() error
}

// serving checks the options and makes what serving TLS takes; nil when
// --tls-addr is not set.
func (o tlsOptions) serving(dataDir string) (*tlsServing, error) {
	files, acmeOn := o.Cert != "" || o.Key != "", o.ACMEDomains != ""
	if o.Addr == "" {
		if files || acmeOn {
			return nil, &usageError{"--tls-cert, --tls-key and --acme-domain need --tls-addr, the address TLS is served on"}
		}
		return nil, nil
	}
	if _, _, err := net.SplitHostPort(o.Addr); err != nil {
		return nil, &usageError{fmt.Sprintf("--tls-addr %q: %v", o.Addr, err)}
	}
	s := &tlsServing{plain: func(h http.Handler) http.Handler { return h }}
	switch {
	case files == acmeOn:
		return nil, &usageError{"--tls-addr takes a certificate: --tls-cert and --tls-key, or --acme-domain"}
	case files:
		if o.Cert == "" || o.Key == "" {
			return nil, &usageError{"--tls-cert and --tls-key go together"}
		}
		pair := &keyPair{cert: o.Cert, key: o.Key}
		if err := pair.load(); err != nil {
			return nil, err
		}
		s.reload = pair.load
		s.config = &tls.Config{GetCertificate: pair.get}
	default:
		var domains []string
		for d := range strings.SplitSeq(o.ACMEDomains, ",") {
			if d = strings.TrimSpace(d); d != "" {
				domains = append(domains, d)
			}
		}
		m := &autocert.Manager{
			Prompt:     autocert.AcceptTOS,
			Cache:      autocert.DirCache(filepath.Join(dataDir, "acme")),
			HostPolicy: autocert.HostWhitelist(domains...),
			Email:      o.ACMEEmail,
		}
		if o.ACMEDirectory != "" {
			m.Client = &acme.Client{DirectoryURL: o.ACMEDirectory}
		}
		s.config = m.TLSConfig()
		// An HTTP-01 challenge comes to the plain listener; anything else
		// goes on to the tracker.
		s.plain = m.HTTPHandler
	}
	// HTTP/2 and HTTP/1.1 on the one port (and the ACME CA's TLS-ALPN
	// challenge, which m.TLSConfig offers).
	s.config.NextProtos = mergeProtos([]string{"h2", "http/1.1"}, s.config.NextProtos)
	s.config.MinVersion = tls.VersionTLS12
	return s, nil
}

func mergeProtos(first, rest []string) []string {
	out := append([]string(nil), first...)
	for _, p := range rest {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// keyPair is a certificate read from its files, read again on reload: a
// renewed certificate is taken without a restart.
type keyPair struct {
	cert, key string
	cur       atomic.Pointer[tls.Certificate]
}

func (k *keyPair) load() error {
	c, err := tls.LoadX509KeyPair(k.cert, k.key)
	if err != nil {
		return fmt.Errorf("the TLS certificate (%s, %s): %w", k.cert, k.key, err)
	}
	k.cur.Store(&c)
	return nil
}

func (k *keyPair) get(*tls.ClientHelloInfo) (*tls.Certificate, error) { return k.cur.Load(), nil }
