package nodes

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"time"
)

// Tracker is a `tracker serve` process the bench started, and the URL it
// listens on.
type Tracker struct {
	cmd *exec.Cmd
	URL string
}

// listening is the log line the tracker writes once it accepts requests:
// the bench learns its address from it, since it asks for any free port.
var listening = regexp.MustCompile(`msg="tracker listening" url=(http://\S+)/`)

// StartTracker runs `binary serve` on dataDir at addr (127.0.0.1:0: any
// free port) with env, and returns once it listens. The tracker's errors
// are logged as they come: a scenario's figures mean little if the
// tracker failed through it.
func StartTracker(ctx context.Context, binary, addr, dataDir string, env []string) (*Tracker, error) {
	cmd := exec.Command(binary, "serve", "--addr", addr, "--data-dir", dataDir)
	cmd.Env = env
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	t := &Tracker{cmd: cmd}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
			if strings.Contains(sc.Text(), "level=ERROR") {
				log.Print("tracker: ", sc.Text())
			}
		}
	}()
	select {
	case t.URL = <-found:
		return t, nil
	case <-time.After(2 * time.Minute):
		return t, fmt.Errorf("the tracker did not start")
	case <-ctx.Done():
		return t, ctx.Err()
	}
}

// PID is the process's id, for its /proc readings.
func (t *Tracker) PID() int { return t.cmd.Process.Pid }

// Stop stops the tracker as an operator does, and waits for it.
func (t *Tracker) Stop() {
	t.cmd.Process.Signal(syscall.SIGTERM)
	t.cmd.Wait()
}

// Kill kills the tracker without a word, as a crash would, and waits for it.
func (t *Tracker) Kill() {
	t.cmd.Process.Signal(syscall.SIGKILL)
	t.cmd.Wait()
}

// RunCLI runs a tracker command on dataDir with env and stdin, and returns
// what it printed and its peak resident memory in bytes (what an import
// costs the machine it runs on). Its standard error is in the error.
func RunCLI(binary, dataDir string, env []string, stdin io.Reader, args ...string) (string, int64, error) {
	cmd := exec.Command(binary, append(args, "--data-dir", dataDir)...)
	cmd.Env = env
	cmd.Stdin = stdin
	out, err := cmd.Output()
	var peak int64
	if cmd.ProcessState != nil {
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			peak = ru.Maxrss << 10 // kB on Linux
		}
	}
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return "", peak, fmt.Errorf("tracker %s: %v: %s", strings.Join(args, " "), err, ee.Stderr)
		}
		return "", peak, err
	}
	return string(out), peak, nil
}
