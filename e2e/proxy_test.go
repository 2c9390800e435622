package e2e

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tracker/db/dbtest"
)

// nginx finds Debian's nginx ($TRACKER_NGINX, or on PATH, or in
// /usr/sbin). Without one the test is skipped, unless $CI is set: there
// it is a failure (.ci/run installs it).
func nginx(t *testing.T) string {
	t.Helper()
	if path := os.Getenv("TRACKER_NGINX"); path != "" {
		return path
	}
	if path, err := exec.LookPath("nginx"); err == nil {
		return path
	}
	if _, err := os.Stat("/usr/sbin/nginx"); err == nil {
		return "/usr/sbin/nginx"
	}
	const missing = "no nginx for the proxy test: apt-get install nginx, or set TRACKER_NGINX"
	if os.Getenv("CI") != "" {
		t.Fatal(missing + " (CI is set: the proxy test must run)")
	}
	t.Skip(missing)
	return ""
}

// startNginx runs nginx in front of upstreams (host:port each, taken in
// turns, the next tried when one refuses the connection) and returns its
// address. It ends with the test. When no upstream answers it says 503
// with Retry-After, which warriors wait on, as docs/OPERATIONS.md advises.
func startNginx(t *testing.T, path string, upstreams ...string) string {
	t.Helper()
	dir := t.TempDir()
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	var servers string
	for _, u := range upstreams {
		servers += "        server " + u + ";\n"
	}
	conf := fmt.Sprintf(`daemon off;
master_process off;
worker_processes 1;
pid %[1]s/nginx.pid;
error_log stderr warn;
events { worker_connections 64; }
http {
    access_log off;
    client_body_temp_path %[1]s/body;
    proxy_temp_path %[1]s/proxy;
    fastcgi_temp_path %[1]s/fastcgi;
    uwsgi_temp_path %[1]s/uwsgi;
    scgi_temp_path %[1]s/scgi;
    upstream trackers {
%[3]s    }
    server {
        listen %[2]s;
        error_page 502 504 =503 @unavailable;
        location @unavailable {
            add_header Retry-After 10 always;
            return 503;
        }
        location / {
            proxy_pass http://trackers;
            proxy_http_version 1.1;
            proxy_set_header Host $host;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_set_header X-Real-IP $remote_addr;
            proxy_set_header X-Forwarded-Proto $scheme;
            proxy_buffering off;
        }
    }
}
`, dir, addr, servers)
	if err := os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(path, "-p", dir, "-c", filepath.Join(dir, "nginx.conf"))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		// Read once nginx is gone: its complaints say why it did not start.
		if t.Failed() {
			t.Logf("nginx:\n%s", stderr.String())
		}
	})
	dbtest.Eventually(t, func() bool {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			return false
		}
		c.Close()
		return true
	}, "nginx listening on "+addr)
	return addr
}

// from is an HTTP client whose connections come from local address ip (any
// of 127.0.0.0/8 on this machine): a warrior at another address.
func from(ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	return &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			return d.DialContext(ctx, network, addr)
		},
	}}
}

// Behind a real nginx that the tracker trusts, a block hits the warrior's
// own address, not the proxy's; an address made up by a client, through
// the proxy or around it, is not believed.
func TestBehindNginx(t *testing.T) {
	t.Parallel()
	nginxPath := nginx(t)
	dir := dataDir(t)
	cli(t, "", "project", "create", "shop", "--data-dir", dir)
	cli(t, "item:1\nitem:2\nitem:3\nitem:4\nitem:5\n", "items", "add", "shop", "--data-dir", dir)
	cli(t, "", "block", "add", "shop", "ip", "127.0.0.2", "--reason", "bad data", "--data-dir", dir)
	s := serveCmd(t, exec.Command(binary, "serve", "--addr", "127.0.0.1:0", "--data-dir", dir, "--trusted-proxies", "127.0.0.1"), env())
	defer s.stop(t)
	tracker := strings.TrimPrefix(s.url, "http://")
	proxy := startNginx(t, nginxPath, tracker)

	request := func(c *http.Client, base string, header map[string]string) int {
		t.Helper()
		req, _ := http.NewRequest("POST", "http://"+base+"/shop/request", strings.NewReader(`{"downloader":"w"}`))
		for k, v := range header {
			req.Header.Set(k, v)
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	spoof := map[string]string{"X-Forwarded-For": "127.0.0.2", "X-Real-IP": "127.0.0.2"}
	for _, c := range []struct {
		name   string
		client string
		via    string
		header map[string]string
		want   int
	}{
		{"the blocked warrior through the proxy", "127.0.0.2", proxy, nil, 403},
		{"another warrior through the proxy", "127.0.0.3", proxy, nil, 200},
		{"another warrior naming the blocked address to the proxy", "127.0.0.3", proxy, spoof, 200},
		{"another warrior naming the blocked address to the tracker", "127.0.0.3", tracker, spoof, 200},
		{"the blocked warrior straight to the tracker", "127.0.0.2", tracker, nil, 403},
	} {
		if got := request(from(c.client), c.via, c.header); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
}
