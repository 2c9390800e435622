package nodes

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// clockTicks is the unit of /proc's CPU times (USER_HZ, 100 on Linux).
const clockTicks = 100

// procTimes reads a process's parent and CPU seconds from /proc: its own,
// and those of its children it has reaped.
func procTimes(pid int) (ppid int, self, children float64, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, 0, err
	}
	// Fields after the command name, which may hold spaces: state is 3.
	i := bytes.LastIndexByte(b, ')')
	f := strings.Fields(string(b[i+2:]))
	num := func(k int) float64 { v, _ := strconv.ParseFloat(f[k-3], 64); return v / clockTicks }
	ppid, _ = strconv.Atoi(f[4-3])
	return ppid, num(14) + num(15), num(16) + num(17), nil
}

// CPUSeconds is the CPU time a process has used.
func CPUSeconds(pid int) float64 {
	_, self, _, _ := procTimes(pid)
	return self
}

// ClusterCPUSeconds is the CPU time of a PostgreSQL server: the postmaster,
// the backends it has reaped and those still running.
func ClusterCPUSeconds(postmaster int) float64 {
	_, self, reaped, err := procTimes(postmaster)
	if err != nil {
		return 0
	}
	total := self + reaped
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range procs {
		pid, _ := strconv.Atoi(filepath.Base(p))
		if ppid, self, _, err := procTimes(pid); err == nil && ppid == postmaster {
			total += self
		}
	}
	return total
}

// PeakRSS is a process's largest resident set so far, in bytes.
func PeakRSS(pid int) int64 { return statusBytes(pid, "VmHWM:") }

// ResidentRSS is a process's resident set now, in bytes.
func ResidentRSS(pid int) int64 { return statusBytes(pid, "VmRSS:") }

// statusBytes reads a size in kB from /proc/PID/status, in bytes.
func statusBytes(pid int, field string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// Established counts the TCP connections established to a local port, from
// /proc/net/tcp and tcp6: the clients a server holds, whichever process
// asks.
func Established(port int) int {
	n := 0
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for line := range strings.SplitSeq(string(b), "\n") {
			// sl local_address rem_address st ...: addresses are HEX:PORT,
			// state 01 is ESTABLISHED.
			fs := strings.Fields(line)
			if len(fs) < 4 || fs[3] != "01" {
				continue
			}
			_, hexPort, _ := strings.Cut(fs[1], ":")
			if p, err := strconv.ParseInt(hexPort, 16, 32); err == nil && int(p) == port {
				n++
			}
		}
	}
	return n
}

// OpenFilesLimit is a process's soft limit on open files, from
// /proc/PID/limits (0 when unreadable).
func OpenFilesLimit(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/limits", pid))
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Max open files"); ok {
			soft, _ := strconv.ParseInt(strings.Fields(v)[0], 10, 64)
			return soft
		}
	}
	return 0
}

// LoadAverage is the machine's load average over the last minute, as
// /proc/loadavg writes it ("-" when unreadable).
func LoadAverage() string {
	b, _ := os.ReadFile("/proc/loadavg")
	return strings.Fields(string(b) + " -")[0]
}

// RaiseOpenFiles raises this process's limit on open files to need (the
// hard limit too, which root may), or else as far as the hard limit, and
// returns the limit it reached. Processes started after inherit it (Go
// raises their soft limit to the hard one), so the tracker processes the
// bench starts hold as many connections as its clients open.
func RaiseOpenFiles(need uint64) (uint64, error) {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return 0, err
	}
	if l.Max < need && os.Geteuid() == 0 {
		raised := syscall.Rlimit{Cur: need, Max: need}
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &raised); err == nil {
			return need, nil
		}
	}
	if l.Cur < l.Max {
		l.Cur = l.Max
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
			return 0, err
		}
	}
	return l.Cur, nil
}
