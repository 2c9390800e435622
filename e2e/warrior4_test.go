package e2e

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tracker/db"
	"tracker/db/dbtest"
)

// warrior4Target is the target.json every warrior4 machine checks its
// network with at boot (warrior4-vm's
// appliance/skeleton/usr/share/warrior4-network-check/target.json).
const warrior4Target = `{
    "bootstrap_dns": ["8.8.8.8", "1.1.1.1", "2001:4860:4860::8888", "2606:4700:4700::1111"],
    "nonexistent_url": "http://{random}.network-check.warriorhq.archiveteam.org/",
    "cleartext_url": "http://warriorhq.archiveteam.org/downloads/network_check/hello.html",
    "target_url": "https://warriorhq.archiveteam.org/downloads/network_check/hello.html",
    "content": "<html><head></head><body>Hello.</body></html>\n"
}
`

// warrior4Check is warrior4-network-check's check_content: a GET that
// follows no redirect (max_redirects 0), passed only by status 200 and a
// body equal, byte for byte, to the expected content. host is the name
// the machine asks for; the request goes to base.
func warrior4Check(client *http.Client, base, host, urlPath, content string) error {
	req, err := http.NewRequest("GET", base+urlPath, nil)
	if err != nil {
		return err
	}
	req.Host = host
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("error: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		return fmt.Errorf("fail: unexpected status code %d", resp.StatusCode)
	}
	body, _ := io.ReadAll(resp.Body) // read_to_vec().unwrap_or_default()
	if !bytes.Equal(body, []byte(content)) {
		return fmt.Errorf("fail: unexpected content %q", body)
	}
	return nil
}

// A warrior4 machine checks its network against the tracker as its HQ: the
// check file, over plain HTTP and over the tracker's own HTTPS, answers
// 200 with the exact body, unredirected, beside the files the operator put
// in the data directory's downloads/ (which a page over plain HTTP is
// sent to HTTPS for).
func TestWarrior4NetworkCheck(t *testing.T) {
	t.Parallel()
	var target struct {
		CleartextURL string `json:"cleartext_url"`
		TargetURL    string `json:"target_url"`
		Content      string `json:"content"`
	}
	if err := json.Unmarshal([]byte(warrior4Target), &target); err != nil {
		t.Fatal(err)
	}
	const hq = "warriorhq.archiveteam.org"
	cleartextPath, ok1 := strings.CutPrefix(target.CleartextURL, "http://"+hq)
	targetPath, ok2 := strings.CutPrefix(target.TargetURL, "https://"+hq)
	if !ok1 || !ok2 {
		t.Fatalf("target.json's URLs are not on %s", hq)
	}

	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	writeCert(t, "hq", certFile, keyFile)
	data := filepath.Join(dir, "data")
	if err := os.MkdirAll(filepath.Join(data, "downloads"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, "downloads", "warrior4.ova"), []byte("an appliance"), 0o644); err != nil {
		t.Fatal(err)
	}
	dsn := dbtest.NewDSN(t)
	pool, err := db.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	pool.Close()
	s := serveCmd(t, exec.Command(binary, "serve", "--addr", "127.0.0.1:0", "--tls-addr", "127.0.0.1:0",
		"--tls-cert", certFile, "--tls-key", keyFile, "--data-dir", data), env("DATABASE_URL="+dsn))
	secure := s.waitLog(t, tlsListeningRE)[1]

	// ureq's agents: no redirect followed, 30 s in all; the HTTPS one
	// trusts the system's authorities, here the test's.
	roots := x509.NewCertPool()
	pem, _ := os.ReadFile(certFile)
	roots.AppendCertsFromPEM(pem)
	noRedirect := func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	plain := &http.Client{Timeout: 30 * time.Second, CheckRedirect: noRedirect}
	system := &http.Client{Timeout: 30 * time.Second, CheckRedirect: noRedirect,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, ServerName: "127.0.0.1"}}}

	if err := warrior4Check(plain, s.url, hq, cleartextPath, target.Content); err != nil {
		t.Errorf("the cleartext check over HTTP: %v", err)
	}
	if err := warrior4Check(system, secure, hq, targetPath, target.Content); err != nil {
		t.Errorf("the target check over HTTPS: %v", err)
	}
	// The check is no formality: a page over plain HTTP, sent to HTTPS,
	// fails it.
	if err := warrior4Check(plain, s.url, hq, "/downloads/", target.Content); err == nil || !strings.Contains(err.Error(), "status code 308") {
		t.Errorf("the check of a page over plain HTTP: %v, want a 308 failing it", err)
	}
	// The operator's files, over HTTPS.
	resp, err := system.Get(secure + "/downloads/warrior4.ova")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(b) != "an appliance" {
		t.Errorf("the operator's file: %d %q", resp.StatusCode, b)
	}
	s.stop(t)
}
