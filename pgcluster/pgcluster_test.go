package pgcluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// small keeps test clusters light.
var small = Options{Settings: map[string]string{"shared_buffers": "32MB", "fsync": "off"}}

// dataDir returns a fresh directory that the cluster's owner can enter even
// when the tests run as root (t.TempDir's parents are root-only).
func dataDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "pgcluster-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return filepath.Join(dir, "data")
}

// postmasterPID reads the running server's PID, 0 when it is not running.
func postmasterPID(t *testing.T, c *Cluster) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(c.Dir(), "postmaster.pid"))
	if errors.Is(err, os.ErrNotExist) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.SplitN(string(b), "\n", 2)[0])
	if err != nil {
		t.Fatal(err)
	}
	if syscall.Kill(pid, 0) != nil {
		return 0
	}
	return pid
}

// exited waits a little for a process to end. pg_ctl stop returns once the
// server has removed its pid file, a moment before the process is gone; a
// zombie waiting for its parent to reap it counts as gone.
func exited(pid int) bool {
	for range 100 {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return true
		}
		// The state follows the parenthesised command name.
		if i := strings.LastIndexByte(string(stat), ')'); i > 0 && strings.HasPrefix(string(stat[i:]), ") Z") {
			return true
		}
		time.Sleep(50 * time.Millisecond)
	}
	return false
}

func query(t *testing.T, dsn, sql string) string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var s string
	if err := conn.QueryRow(ctx, sql).Scan(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestStartReuseStop(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := dataDir(t)

	first, err := Acquire(ctx, dir, small)
	if err != nil {
		t.Fatal(err)
	}
	pid := postmasterPID(t, first)
	if pid == 0 {
		t.Fatal("no server running after Acquire")
	}
	if got := query(t, first.DSN(), "SELECT current_database()"); got != Database {
		t.Errorf("connected to %q, want %q", got, Database)
	}
	// Private: no TCP listener, and the settings that keep items safe.
	if got := query(t, first.DSN(), "SHOW listen_addresses"); got != "" {
		t.Errorf("listen_addresses = %q, want none", got)
	}
	if got := query(t, first.DSN(), "SHOW synchronous_commit"); got != "on" {
		t.Errorf("synchronous_commit = %q", got)
	}
	if got := query(t, first.DSN(), "SHOW shared_buffers"); got != "32MB" {
		t.Errorf("shared_buffers = %q: the caller's settings were not applied", got)
	}

	second, err := Acquire(ctx, dir, small)
	if err != nil {
		t.Fatal(err)
	}
	if got := postmasterPID(t, second); got != pid {
		t.Fatalf("second Acquire runs server %d, want the running %d", got, pid)
	}

	// The first user leaves: the second still uses the server.
	if err := first.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if postmasterPID(t, second) != pid {
		t.Fatal("server stopped while another user holds it")
	}
	query(t, second.DSN(), "SELECT 'still answering'")

	// The last user leaves: the server stops and its process is gone.
	if err := second.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if !exited(pid) {
		t.Fatalf("postmaster %d still running after the last Release", pid)
	}

	// The cluster survives a restart with its data.
	third, err := Acquire(ctx, dir, small)
	if err != nil {
		t.Fatal(err)
	}
	defer third.Release(ctx)
	if got := query(t, third.DSN(), "SELECT current_database()"); got != Database {
		t.Errorf("after restart connected to %q", got)
	}
}

func TestConcurrentAcquire(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := dataDir(t)

	// Processes racing to start one cluster: exactly one server, all users.
	const n = 4
	clusters := make(chan *Cluster, n)
	errs := make(chan error, n)
	for range n {
		go func() {
			c, err := Acquire(ctx, dir, small)
			if err != nil {
				errs <- err
				return
			}
			clusters <- c
		}()
	}
	var got []*Cluster
	for range n {
		select {
		case err := <-errs:
			t.Fatal(err)
		case c := <-clusters:
			got = append(got, c)
		}
	}
	pid := postmasterPID(t, got[0])
	for _, c := range got {
		if p := postmasterPID(t, c); p != pid {
			t.Errorf("server %d, want %d", p, pid)
		}
	}
	for _, c := range got {
		if err := c.Release(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if !exited(pid) {
		t.Fatal("server still running after every user left")
	}
}

func TestMissingBinaries(t *testing.T) {
	// Not parallel: it changes PATH and the search folders.
	t.Setenv("PATH", t.TempDir())
	saved := debianBinDirs
	debianBinDirs = filepath.Join(t.TempDir(), "*", "bin")
	defer func() { debianBinDirs = saved }()

	_, err := Acquire(context.Background(), dataDir(t), small)
	if !errors.Is(err, ErrNoBinaries) {
		t.Fatalf("err = %v, want ErrNoBinaries", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "apt-get install postgresql") || strings.Contains(msg, "\n") {
		t.Errorf("error %q should be one line saying how to install PostgreSQL", msg)
	}
}

func TestDataDirTooLong(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(dataDir(t), strings.Repeat("x", 120))
	_, err := Acquire(context.Background(), dir, small)
	if err == nil || !strings.Contains(err.Error(), "too long for a unix socket") {
		t.Fatalf("err = %v, want a too-long path error", err)
	}
}
