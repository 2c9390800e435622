package e2e

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The Debian package, installed with dpkg on this machine: the unit's
// command line, run as systemd would run it (its user, its working
// directory, its environment and the configuration file it reads), serves
// a warrior cycle on the embedded cluster under /var/lib/tracker, and stops
// cleanly on SIGTERM. It needs root and dpkg, and the nfpm `make test`
// names in $TRACKER_NFPM (make package builds the package).
func TestDebianPackage(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("installing a package needs root")
	}
	if _, err := exec.LookPath("dpkg"); err != nil {
		t.Skip("no dpkg")
	}
	nfpm := os.Getenv("TRACKER_NFPM")
	if nfpm == "" {
		t.Skip("$TRACKER_NFPM names no nfpm (make test sets it)")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	run := func(name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	purge := func() {
		exec.Command("dpkg", "--purge", "tracker").Run()
		os.RemoveAll("/var/lib/tracker")
		exec.Command("userdel", "tracker").Run()
		exec.Command("groupdel", "tracker").Run()
	}
	purge() // what an earlier run left
	t.Cleanup(purge)

	out := run("make", "package", "NFPM="+nfpm)
	deb := regexp.MustCompile(`created package: (\S+\.deb)`).FindStringSubmatch(out)
	if deb == nil {
		t.Fatalf("make package made no package:\n%s", out)
	}
	run("dpkg", "-i", filepath.Join(root, deb[1]))

	unit := readUnit(t, "/lib/systemd/system/tracker.service")
	if unit["User"] != "tracker" || unit["Restart"] != "on-failure" || unit["KillSignal"] != "SIGTERM" {
		t.Fatalf("the unit: %v", unit)
	}
	// The configuration file says where to listen; the test's own port.
	conf := unit["EnvironmentFile"]
	conf = strings.TrimPrefix(conf, "-")
	b, err := os.ReadFile(conf)
	if err != nil {
		t.Fatal(err)
	}
	b = regexp.MustCompile(`(?m)^TRACKER_ADDR=.*$`).ReplaceAll(b, []byte("TRACKER_ADDR=127.0.0.1:0"))
	if err := os.WriteFile(conf, b, 0o644); err != nil {
		t.Fatal(err)
	}

	// The unit's environment: its Environment= lines, then the file's,
	// which win, as systemd reads them.
	environ := []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME=/var/lib/tracker"}
	environ = append(environ, strings.Fields(unit["Environment"])...)
	for line := range strings.SplitSeq(string(b), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			environ = append(environ, line)
		}
	}
	asTracker := func(args ...string) *exec.Cmd {
		cmd := exec.Command("setpriv", append([]string{"--reuid=tracker", "--regid=tracker", "--init-groups", "--"}, args...)...)
		cmd.Dir = unit["WorkingDirectory"]
		cmd.Env = environ
		return cmd
	}
	s := serveCmd(t, asTracker(strings.Fields(unit["ExecStart"])...), environ)

	// The CLI, as the tracker account, beside the service.
	for _, c := range [][]string{{"project", "create", "demo"}, {"items", "add", "demo"}} {
		cmd := asTracker(append([]string{"/usr/bin/tracker"}, c...)...)
		cmd.Stdin = strings.NewReader("user:1\nuser:2\nuser:3\n")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("tracker %s: %v\n%s", strings.Join(c, " "), err, out)
		}
	}
	firstRound(t, s.url)
	if _, err := os.Stat("/var/lib/tracker/pgdata"); err != nil {
		t.Fatalf("the embedded cluster is not under /var/lib/tracker: %v", err)
	}
	s.stop(t)
}

// readUnit reads a systemd unit's Key=Value lines (the last of a key wins,
// as for the keys read here).
func readUnit(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	unit := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if k, v, ok := strings.Cut(line, "="); ok && !strings.HasPrefix(line, "#") {
			unit[k] = v
		}
	}
	return unit
}
