package e2e

import (
	"context"
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

// The downloads folder is listed as warrior HQ's nginx listed it
// (autoindex, charset utf-8): the same folder served by Debian's nginx and
// by the tracker gives the same listing, byte for byte, whatever the
// names hold (characters to escape in a link and in HTML, names past the
// column, non-ASCII, hidden files, a link within the folder).
func TestDownloadsListedAsNginxListsThem(t *testing.T) {
	t.Parallel()
	nginxPath := nginx(t)
	data := filepath.Join(t.TempDir(), "data")
	dir := filepath.Join(data, "downloads")
	at := time.Date(2024, 3, 5, 7, 8, 9, 0, time.UTC)
	files := map[string]string{
		"warrior4-20240101.ova": strings.Repeat("x", 123456), "a&b<c>.txt": "1", "a:b.txt": "1", `q"uote`: "1",
		"it's": "1", "per%cent": "1", "ha#sh": "1", "que?ry": "1", "pl+us=eq": "1", "semi;colon": "1",
		`back\slash`: "1", "tab\tx": "1", "Zed": "1", "é.txt": "1", "ünï": "1", ".hidden": "1",
		strings.Repeat("x", 60) + ".txt": "1", strings.Repeat("é", 60): "1", strings.Repeat("y", 50): "1",
		"network_check/hello.html": "<html><head></head><body>Hello.</body></html>\n",
		"sub dir/inner.txt":        "inner", "dir:colon/x": "1",
	}
	for name, body := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("warrior4-20240101.ova", filepath.Join(dir, "latest.ova")); err != nil {
		t.Fatal(err)
	}
	filepath.Walk(dir, func(path string, _ os.FileInfo, _ error) error { return os.Chtimes(path, at, at) })

	dsn := dbtest.NewDSN(t)
	pool, err := db.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	pool.Close()
	s := serveCmd(t, exec.Command(binary, "serve", "--addr", "127.0.0.1:0", "--data-dir", data), env("DATABASE_URL="+dsn))
	ngx := startNginxAutoindex(t, nginxPath, data)

	// (network_check/'s own listing shows the built-in file, dated when
	// the tracker started.)
	for _, path := range []string{"/downloads/", "/downloads/sub%20dir/", "/downloads/dir:colon/"} {
		want, wantType := fetch(t, "http://"+ngx+path)
		got, gotType := fetch(t, s.url+path)
		if got != want || gotType != wantType {
			t.Errorf("%s: the tracker's listing (%s):\n%s\nnginx's (%s):\n%s", path, gotType, got, wantType, want)
		}
	}
	s.stop(t)
}

func fetch(t *testing.T, url string) (body, contentType string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %v", url, resp.StatusCode, err)
	}
	return string(b), resp.Header.Get("Content-Type")
}

// startNginxAutoindex runs nginx serving root's downloads/ with autoindex,
// as warrior HQ's did, and returns its address. It ends with the test.
func startNginxAutoindex(t *testing.T, path, root string) string {
	t.Helper()
	dir := t.TempDir()
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
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
    server {
        listen %[2]s;
        root %[3]s;
        location /downloads/ { autoindex on; charset utf-8; }
    }
}
`, dir, addr, root)
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
		if t.Failed() {
			t.Logf("nginx:\n%s", stderr.String())
		}
	})
	dbtest.Eventually(t, func() bool {
		resp, err := http.Get("http://" + addr + "/downloads/")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return true
	}, "nginx listening on "+addr)
	return addr
}
