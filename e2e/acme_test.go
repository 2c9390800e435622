package e2e

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"tracker/db"
	"tracker/db/dbtest"
)

// acmeCA is a running ACME CA: its directory URL, the file of the
// certificate its API is served with, its management API's address, and
// the process.
type acmeCA struct {
	directory, apiCert, mgmt string
	cmd                      *exec.Cmd
	client                   *http.Client
}

// get reads a path of the CA's management API.
func (ca *acmeCA) get(t *testing.T, path string) []byte {
	t.Helper()
	b, err := httpsGet(ca.client, "https://"+ca.mgmt+path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func httpsGet(client *http.Client, url string) ([]byte, error) {
	resp, err := client.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != 200 {
		err = fmt.Errorf("%s: %s", url, resp.Status)
	}
	return b, err
}

// startLogged starts a helper program, its output kept in a file shown
// when the test fails; it is killed at the end of the test.
func startLogged(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	logFile, err := os.Create(filepath.Join(t.TempDir(), filepath.Base(cmd.Path)+".log"))
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
		if t.Failed() {
			b, _ := os.ReadFile(logFile.Name())
			t.Logf("%s:\n%s", cmd.Path, b)
		}
	})
}

// pebble runs the ACME CA Let's Encrypt tests its clients with, and the
// name server that comes with it, answering 127.0.0.1 for every name: the
// CA validates challenges against the tracker's ports.
func pebble(t *testing.T, bin, dnsBin string, plainPort, tlsPort int) *acmeCA {
	t.Helper()
	dir := t.TempDir()
	dns := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	startLogged(t, exec.Command(dnsBin, "-dnsserver", dns, "-management", fmt.Sprintf("127.0.0.1:%d", freePort(t)),
		"-defaultIPv4", "127.0.0.1", "-defaultIPv6", "", "-http01", "", "-https01", "", "-tlsalpn01", "", "-doh", ""))
	apiCert, apiKey := filepath.Join(dir, "api.pem"), filepath.Join(dir, "api.key")
	writeCert(t, "pebble", apiCert, apiKey)
	api, mgmtAddr := fmt.Sprintf("127.0.0.1:%d", freePort(t)), fmt.Sprintf("127.0.0.1:%d", freePort(t))
	config, _ := json.Marshal(map[string]any{"pebble": map[string]any{
		"listenAddress": api, "managementListenAddress": mgmtAddr,
		"certificate": apiCert, "privateKey": apiKey,
		"httpPort": plainPort, "tlsPort": tlsPort, "keyAlgorithm": "ecdsa",
	}})
	configFile := filepath.Join(dir, "pebble.json")
	if err := os.WriteFile(configFile, config, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-config", configFile, "-dnsserver", dns)
	// No random waits before validating, no nonces refused for practice.
	cmd.Env = append(os.Environ(), "PEBBLE_VA_NOSLEEP=1", "PEBBLE_WFE_NONCEREJECT=0")
	startLogged(t, cmd)
	roots := x509.NewCertPool()
	pem, _ := os.ReadFile(apiCert)
	roots.AppendCertsFromPEM(pem)
	client := &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}}}
	ca := &acmeCA{directory: "https://" + api + "/dir", apiCert: apiCert, mgmt: mgmtAddr, cmd: cmd, client: client}
	for deadline := time.Now().Add(time.Minute); ; {
		if _, err := httpsGet(client, ca.directory); err == nil {
			return ca
		} else if time.Now().After(deadline) {
			t.Fatalf("pebble did not answer: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// The tracker with certificates from an ACME CA (--acme-domain): its first
// HTTPS client waits while the certificate is issued (the CA validating the
// TLS-ALPN challenge on the tracker's own port), the grab scripts' clock
// then answers over it byte for byte, and a restarted tracker serves the
// certificate kept in the data directory with the CA gone.
func TestServeACME(t *testing.T) {
	bin, dnsBin := os.Getenv("TRACKER_PEBBLE"), os.Getenv("TRACKER_PEBBLE_DNS")
	if bin == "" || dnsBin == "" {
		t.Skip("$TRACKER_PEBBLE and $TRACKER_PEBBLE_DNS name no ACME CA (make test sets them)")
	}
	const domain = "tracker.test"
	plainPort, tlsPort := freePort(t), freePort(t)
	ca := pebble(t, bin, dnsBin, plainPort, tlsPort)

	dsn := dbtest.NewDSN(t)
	pool, err := db.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	dbtest.Project(t, pool, "demo", "Demo")
	pool.Close()
	data := t.TempDir()
	start := func() *server {
		s := serveCmd(t, exec.Command(binary, "serve", "--data-dir", data,
			"--addr", fmt.Sprintf("127.0.0.1:%d", plainPort), "--tls-addr", fmt.Sprintf("127.0.0.1:%d", tlsPort),
			"--acme-domain", domain, "--acme-email", "ops@example.org", "--acme-directory", ca.directory),
			// The CA's API is served with the test's certificate.
			env("DATABASE_URL="+dsn, "SSL_CERT_FILE="+ca.apiCert))
		// serveCmd returns once the plain listener is up; the TLS one
		// follows it.
		s.waitLog(t, tlsListeningRE)
		return s
	}
	s := start()

	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(ca.get(t, "/roots/0"))
	// The clock as wget asks for it (wget itself cannot be pointed at a
	// name the machine's resolver does not know): the certificate must be
	// the CA's for the name, the answer the scripts' pattern.
	now := func() {
		t.Helper()
		conn, err := tls.DialWithDialer(&net.Dialer{Timeout: time.Minute}, "tcp", fmt.Sprintf("127.0.0.1:%d", tlsPort),
			&tls.Config{ServerName: domain, RootCAs: roots, NextProtos: []string{"http/1.1"}})
		if err != nil {
			t.Fatalf("TLS to the tracker as %s: %v\n%s", domain, err, s.stderr)
		}
		defer conn.Close()
		conn.SetDeadline(time.Now().Add(time.Minute))
		fmt.Fprintf(conn, "GET /now HTTP/1.1\r\nUser-Agent: Wget/1.21.3\r\nAccept: */*\r\n"+
			"Accept-Encoding: identity\r\nHost: %s:%d\r\nConnection: Keep-Alive\r\n\r\n", domain, tlsPort)
		out := readAnswer(t, conn)
		if !nowPattern.Match(out) {
			t.Fatalf("the answer does not match the scripts' pattern:\n%q", out)
		}
	}
	now()
	if _, err := os.Stat(filepath.Join(data, "acme", domain)); err != nil {
		t.Fatalf("the certificate is not kept in the data directory: %v", err)
	}
	s.stop(t)

	// The CA gone, the kept certificate is served.
	ca.cmd.Process.Kill()
	ca.cmd.Wait()
	s = start()
	now()
	s.stop(t)
}

// readAnswer reads one HTTP answer's bytes as they came: the head and as
// many bytes of body as its Content-Length says.
func readAnswer(t *testing.T, r io.Reader) []byte {
	t.Helper()
	var buf []byte
	chunk := make([]byte, 4096)
	for {
		if head, body, ok := bytes.Cut(buf, []byte("\r\n\r\n")); ok {
			m := regexp.MustCompile(`\r\nContent-Length: ([0-9]+)\r\n`).FindSubmatch(append(head, '\r', '\n'))
			if m == nil {
				t.Fatalf("an answer without Content-Length: %q", buf)
			}
			if n, _ := strconv.Atoi(string(m[1])); len(body) >= n {
				return buf[:len(head)+4+n]
			}
		}
		n, err := r.Read(chunk)
		buf = append(buf, chunk[:n]...)
		if err != nil {
			t.Fatalf("reading the answer: %v (%q so far)", err, buf)
		}
	}
}
