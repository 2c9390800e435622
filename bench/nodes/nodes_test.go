package nodes

import (
	"os"
	"path/filepath"
	"testing"
)

func TestBytesFlag(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		str  string
	}{
		{"4GiB", 4 << 30, "4 GiB"},
		{"512MiB", 512 << 20, "512 MiB"},
		{"1.5G", 3 << 29, "1.5 GiB"},
		{"2048", 2048, "0.001953 MiB"},
		{"0", 0, "0"},
	} {
		var b Bytes
		if err := b.Set(c.in); err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		if int64(b) != c.want || b.String() != c.str {
			t.Errorf("%q: %d (%s), want %d (%s)", c.in, int64(b), b.String(), c.want, c.str)
		}
	}
	for _, bad := range []string{"", "GiB", "-1G", "four"} {
		var b Bytes
		if err := b.Set(bad); err == nil {
			t.Errorf("%q read as %d, want an error", bad, int64(b))
		}
	}
}

// Each node has its share of the machine without a limit, a quarter of
// its limit with one.
func TestNodeSettings(t *testing.T) {
	s := nodeSettings(4<<30, 3)
	if s["shared_buffers"] != "1024MB" || s["effective_cache_size"] != "3072MB" || s["maintenance_work_mem"] != "256MB" {
		t.Errorf("4 GiB a node: %v", s)
	}
	if s := nodeSettings(0, 1); s["shared_buffers"] != "" {
		t.Errorf("one node without a limit keeps the embedded cluster's shared_buffers: %v", s)
	}
	if s["track_wal_io_timing"] != "on" {
		t.Errorf("track_wal_io_timing: %v", s)
	}
}

func TestCgroupReadings(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("memory.max_usage_in_bytes", "123456\n")
	write("memory.stat", "cache 10\ntotal_cache 4096\ntotal_rss 1\n")
	write("memory.oom_control", "oom_kill_disable 0\nunder_oom 0\noom_kill 2\n")
	if v := cgroupValue(dir, "memory.max_usage_in_bytes"); v != 123456 {
		t.Errorf("peak: %d", v)
	}
	if v := cgroupStat(dir, "total_cache"); v != 4096 {
		t.Errorf("total_cache: %d", v)
	}
	if v := cgroupStat(dir, "oom_kill"); v != 2 {
		t.Errorf("oom_kill: %d", v)
	}
	if v := cgroupStat(dir, "missing"); v != 0 {
		t.Errorf("a key not there: %d", v)
	}
}

func TestPostmasterOf(t *testing.T) {
	dir := t.TempDir()
	if pid := PostmasterOf(dir); pid != 0 {
		t.Errorf("no postmaster.pid: %d", pid)
	}
	os.WriteFile(filepath.Join(dir, "postmaster.pid"), []byte("4242\n/data\n1700000000\n"), 0o600)
	if pid := PostmasterOf(dir); pid != 4242 {
		t.Errorf("PostmasterOf = %d, want 4242", pid)
	}
}

// /proc is read for this very process: its parent is ours, its CPU time
// and memory are not zero.
func TestProcReadings(t *testing.T) {
	ppid, _, _, err := procTimes(os.Getpid())
	if err != nil {
		t.Skip("no /proc:", err)
	}
	if ppid != os.Getppid() {
		t.Errorf("parent %d, want %d", ppid, os.Getppid())
	}
	for i := 0; CPUSeconds(os.Getpid()) == 0 && i < 1e8; i++ {
	}
	if CPUSeconds(os.Getpid()) <= 0 || PeakRSS(os.Getpid()) <= 0 || ResidentRSS(os.Getpid()) <= 0 {
		t.Errorf("cpu %g, peak %d, resident %d", CPUSeconds(os.Getpid()), PeakRSS(os.Getpid()), ResidentRSS(os.Getpid()))
	}
	if OpenFilesLimit(os.Getpid()) <= 0 {
		t.Error("no open-files limit read")
	}
}
