package e2e

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"tracker/db"
	"tracker/db/dbtest"
)

// nowPattern is what urls-grab requires of wget's saved answer to /now
// (docs/PROTOCOL.md, "GET /now"): these lines in this order, nothing else.
var nowPattern = regexp.MustCompile(`^HTTP/1\.1 200 OK\r\nServer: openresty\r\n` +
	`Date: [A-Z][a-z]{2}, [0-9]{2} [A-Z][a-z]{2} 202[0-9] [0-9]{2}:[0-9]{2}:[0-9]{2} GMT\r\n` +
	`Content-Type: text/plain\r\nConnection: keep-alive\r\nContent-Length: 1[0-9]\r\nCache-Control: no-store\r\n\r\n` +
	`[0-9]{10}\.[0-9]{1,3}$`)

var tlsListeningRE = regexp.MustCompile(`msg="tracker listening" url=(https://\S+)/`)

// writeCert writes a self-signed certificate for 127.0.0.1 named cn to
// certFile and keyFile.
func writeCert(t *testing.T, cn, certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial, _ := rand.Int(rand.Reader, big.NewInt(1<<62))
	tmpl := &x509.Certificate{
		SerialNumber: serial, Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IsCA:        true, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
}

// The tracker serving TLS itself: the clock grab scripts check answers
// wget byte for byte over HTTPS and plain HTTP alike, warriors are served
// on both, pages on plain HTTP are sent to HTTPS with 308 and the admin API
// refused there, HTTPS speaks
// HTTP/2 to a client that offers it, and a renewed certificate is taken
// on SIGHUP.
func TestServeTLS(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	writeCert(t, "first", certFile, keyFile)
	dsn := dbtest.NewDSN(t)
	pool, err := db.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	dbtest.Project(t, pool, "demo", "Demo")
	pool.Close()
	cliEnv(t, env("DATABASE_URL="+dsn), "item:1\nitem:2\n", "items", "add", "demo")
	cliEnv(t, env("DATABASE_URL="+dsn, "TRACKER_PASSWORD=correct horse battery"), "", "admin", "create", "root")
	token := strings.TrimSpace(cliEnv(t, env("DATABASE_URL="+dsn), "", "token", "create", "--scope", "read", "root", "bot"))
	s := serveCmd(t, exec.Command(binary, "serve", "--addr", "127.0.0.1:0", "--tls-addr", "127.0.0.1:0",
		"--tls-cert", certFile, "--tls-key", keyFile), env("DATABASE_URL="+dsn))
	secure := s.waitLog(t, tlsListeningRE)[1]

	// The grab scripts' clock, fetched as they fetch it, over both.
	for _, url := range []string{secure + "/now", s.url + "/now"} {
		out, err := exec.Command("wget", "-q", "-O", "-", "--max-redirect", "0", "--save-headers",
			"--ca-certificate", certFile, url).Output()
		if err != nil {
			t.Fatalf("wget %s: %v", url, err)
		}
		if !nowPattern.Match(out) {
			t.Fatalf("%s: the answer does not match the scripts' pattern:\n%q", url, out)
		}
	}

	pool509 := x509.NewCertPool()
	pem, _ := os.ReadFile(certFile)
	pool509.AppendCertsFromPEM(pem)
	noRedirect := func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	plain := &http.Client{Timeout: 20 * time.Second, CheckRedirect: noRedirect}
	h2 := &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool509}, ForceAttemptHTTP2: true}}

	// Warriors on both, unredirected.
	for _, c := range []struct {
		client *http.Client
		url    string
	}{{plain, s.url}, {h2, secure}} {
		resp, err := c.client.Post(c.url+"/demo/request", "application/json", strings.NewReader(`{"downloader":"alice","api_version":"2"}`))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(b), "item:") {
			t.Fatalf("a warrior at %s: %d %q", c.url, resp.StatusCode, b)
		}
	}
	// A page over plain HTTP goes to HTTPS, its method kept.
	resp, err := plain.Get(s.url + "/demo/?page=2")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if want := secure + "/demo/?page=2"; resp.StatusCode != http.StatusPermanentRedirect || resp.Header.Get("Location") != want {
		t.Fatalf("a page over plain HTTP: %d to %q, want 308 to %q", resp.StatusCode, resp.Header.Get("Location"), want)
	}
	// The admin API over HTTPS only: its token is refused, not redirected,
	// over plain HTTP.
	for _, c := range []struct {
		client *http.Client
		url    string
		status int
	}{{plain, s.url, http.StatusForbidden}, {h2, secure, http.StatusOK}} {
		req, _ := http.NewRequest("GET", c.url+"/api/v1/projects/demo", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := c.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.status || c.status == http.StatusForbidden && resp.Header.Get("X-Tracker-Reason") != "https-required" {
			t.Fatalf("the admin API at %s: %d %q, want %d", c.url, resp.StatusCode, b, c.status)
		}
	}
	// Over HTTPS, HTTP/2 to a client that offers it.
	resp, err = h2.Get(secure + "/demo/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.ProtoMajor != 2 {
		t.Fatalf("a page over HTTPS: %d over %s, want 200 over HTTP/2", resp.StatusCode, resp.Proto)
	}

	// A renewed certificate, taken on SIGHUP without a restart.
	writeCert(t, "renewed", certFile, keyFile)
	s.cmd.Process.Signal(syscall.SIGHUP)
	s.waitLog(t, regexp.MustCompile(`TLS certificate reloaded`))
	conn, err := tls.Dial("tcp", strings.TrimPrefix(secure, "https://"), &tls.Config{InsecureSkipVerify: true})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if cn := conn.ConnectionState().PeerCertificates[0].Subject.CommonName; cn != "renewed" {
		t.Fatalf("after SIGHUP the certificate is %q, want the renewed one", cn)
	}
	s.stop(t)
}
