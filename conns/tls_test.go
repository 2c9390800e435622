package conns

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"testing"
	"time"
)

// testCert is a self-signed certificate for 127.0.0.1 and the pool that
// trusts it.
func testCert(t *testing.T) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "tracker test"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IsCA:         true, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool
}

// tlsServer serves h through a TLS Listener offering HTTP/2 and HTTP/1.1.
func tlsServer(t *testing.T, h http.Handler) (string, *x509.CertPool) {
	t.Helper()
	cert, pool := testCert(t)
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{"h2", "http/1.1"}}
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := ListenTLS(inner, Limits{Total: 100}, cfg)
	srv := &http.Server{Handler: h, ConnState: l.ConnState, ConnContext: l.ConnContext, TLSConfig: cfg}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return inner.Addr().String(), pool
}

// tlsInfo answers the protocol and whether the connection says it is TLS.
func tlsInfo(w http.ResponseWriter, r *http.Request) {
	c := Of(r.Context())
	fmt.Fprintf(w, "%s %v %v", r.Proto, c != nil && c.TLS() != nil, r.TLS != nil)
}

func TestTLSServesHTTP1AndHTTP2(t *testing.T) {
	addr, pool := tlsServer(t, http.HandlerFunc(tlsInfo))
	for _, c := range []struct {
		name string
		h2   bool
		want string
	}{
		// HTTP/1.1 goes through the listener's own TLS, which the
		// connection says (Go's server does not set r.TLS on it);
		// HTTP/2 through Go's server, which does.
		{"HTTP/1.1", false, "HTTP/1.1 true false"},
		{"HTTP/2", true, "HTTP/2.0 false true"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: c.h2}
			if !c.h2 {
				tr.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{}
			}
			resp, err := (&http.Client{Transport: tr, Timeout: 10 * time.Second}).Get("https://" + addr + "/")
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if body := readAll(t, resp); body != c.want {
				t.Fatalf("%q, want %q", body, c.want)
			}
		})
	}
}

// Over TLS as over plain HTTP, Go's server's own refusals carry a reason
// and a connection handed back serves the next requests.
func TestTLSConnectionsAsPlainOnes(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/by-hand" {
			tlsInfo(w, r)
			return
		}
		conn, buf, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		io.WriteString(buf, "HTTP/1.1 200 OK\r\nContent-Length: 7\r\nConnection: keep-alive\r\n\r\nby hand")
		buf.Flush()
		if !Readopt(conn, Buffered(buf.Reader)) {
			t.Error("not readopted")
			conn.Close()
		}
	})
	addr, pool := tlsServer(t, h)
	dial := func() *client {
		c, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: pool, NextProtos: []string{"http/1.1"}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		_ = c.SetDeadline(time.Now().Add(30 * time.Second))
		return &client{Conn: c, r: bufio.NewReader(c)}
	}
	c := dial()
	fmt.Fprintf(c, "GET /by-hand HTTP/1.1\r\nHost: t\r\n\r\nGET /x HTTP/1.1\r\nHost: t\r\n\r\n")
	if body := readAll(t, c.read(t)); body != "by hand" {
		t.Fatalf("first answer %q", body)
	}
	if body := readAll(t, c.read(t)); body != "HTTP/1.1 true false" {
		t.Fatalf("the next request on the connection handed back: %q", body)
	}
	c = dial()
	io.WriteString(c, "GET / HTTP/2.5\r\nHost: t\r\n\r\n")
	if resp := c.read(t); resp.StatusCode != 505 || resp.Header.Get("X-Tracker-Reason") != "unsupported-version" {
		t.Fatalf("%d %q, want 505 unsupported-version", resp.StatusCode, resp.Header.Get("X-Tracker-Reason"))
	}
}
