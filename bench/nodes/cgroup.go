package nodes

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// memoryRoot is where cgroup v1 mounts its memory controller.
const memoryRoot = "/sys/fs/cgroup/memory"

// newMemoryCgroup makes a memory cgroup named name below the one this
// process runs in (so whatever limits that one stay in force), limited to
// limit bytes, and returns its directory. What a process moved in had
// used before stays charged where it was (recent kernels refuse
// move_charge_at_immigrate): the server is moved in before it does
// anything of note.
func newMemoryCgroup(name string, limit int64) (string, error) {
	self, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", err
	}
	parent := ""
	for line := range strings.SplitSeq(string(self), "\n") {
		// hierarchy-ID:controllers:path
		if f := strings.SplitN(line, ":", 3); len(f) == 3 && hasController(f[1], "memory") {
			parent = filepath.Join(memoryRoot, f[2])
		}
	}
	if parent == "" {
		return "", errors.New("-node-memory needs cgroup v1's memory controller (/sys/fs/cgroup/memory), which this process is not under")
	}
	dir := filepath.Join(parent, name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return "", fmt.Errorf("-node-memory: making the memory cgroup (run as root): %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "memory.limit_in_bytes"), []byte(strconv.FormatInt(limit, 10)), 0); err != nil {
		os.Remove(dir)
		return "", fmt.Errorf("-node-memory: memory.limit_in_bytes: %w", err)
	}
	return dir, nil
}

func hasController(list, name string) bool {
	for c := range strings.SplitSeq(list, ",") {
		if c == name {
			return true
		}
	}
	return false
}

// moveServer moves a running PostgreSQL server into cgroup cg: its
// postmaster first, so every process it forks from then on (each backend)
// starts there, then the processes it had forked before.
func moveServer(cg string, postmaster int) error {
	if postmaster == 0 {
		return errors.New("no postmaster.pid")
	}
	procs := filepath.Join(cg, "cgroup.procs")
	if err := os.WriteFile(procs, []byte(strconv.Itoa(postmaster)), 0); err != nil {
		return fmt.Errorf("moving the postmaster into %s: %w", cg, err)
	}
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		pid, _ := strconv.Atoi(filepath.Base(d))
		if ppid, _, _, err := procTimes(pid); err == nil && ppid == postmaster {
			// A child that has exited meanwhile cannot be moved: no matter.
			os.WriteFile(procs, []byte(strconv.Itoa(pid)), 0)
		}
	}
	return nil
}

// removeCgroup removes a cgroup once its processes are gone.
func removeCgroup(cg string) {
	for range 50 {
		if err := os.Remove(cg); err == nil || errors.Is(err, os.ErrNotExist) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	fmt.Fprintln(os.Stderr, "trackerbench: could not remove cgroup", cg)
}

// cgroupValue reads a number from a cgroup's file (0 when unreadable).
func cgroupValue(cg, file string) int64 {
	b, err := os.ReadFile(filepath.Join(cg, file))
	if err != nil {
		return 0
	}
	v, _ := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	return v
}

// cgroupStat reads one line of a cgroup's memory.stat (or, for oom_kill,
// memory.oom_control).
func cgroupStat(cg, key string) int64 {
	file := "memory.stat"
	if key == "oom_kill" {
		file = "memory.oom_control"
	}
	b, err := os.ReadFile(filepath.Join(cg, file))
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, key+" "); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	return 0
}
