//go:build linux

package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"tracker/db/dbtest"
)

// openPTY opens a pseudo-terminal: the side a person types into (term) and
// the side the command reads as its stdin (tty).
func openPTY(t *testing.T) (term, tty *os.File) {
	t.Helper()
	term, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { term.Close() })
	fd := int(term.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tty.Close() })
	return term, tty
}

// At a terminal, admin create asks for the password on stderr, twice,
// without echoing it; two different passwords create nobody.
func TestAdminCreateAtATerminal(t *testing.T) {
	t.Parallel()
	dsn := dbtest.NewDSN(t)
	getenv := func(k string) string {
		if k == "DATABASE_URL" {
			return dsn
		}
		return ""
	}
	for _, tc := range []struct {
		name, typed, want string
		code              int
	}{
		{"typo", "correct horse battery\ncorrect horse batterz\n", "the two passwords differ", 1},
		{"root", "correct horse battery\ncorrect horse battery\n", "", 0},
	} {
		term, tty := openPTY(t)
		// The person types once the terminal stops echoing: what was
		// typed before would be shown whatever the command does. A
		// command that never turns the echo off gets the lines after 10 s
		// (and fails below).
		echoing := make(chan bool, 1)
		go func() {
			deadline := time.Now().Add(10 * time.Second)
			for time.Now().Before(deadline) {
				st, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
				if err == nil && st.Lflag&unix.ECHO == 0 {
					break
				}
				time.Sleep(5 * time.Millisecond)
			}
			term.WriteString(tc.typed)
			echoing <- !time.Now().Before(deadline)
		}()
		var out, errOut bytes.Buffer
		code := run(context.Background(), []string{"admin", "create", tc.name}, stdio{in: tty, out: &out, err: &errOut}, getenv)
		if <-echoing {
			t.Errorf("%s: the terminal echoed while the password was asked for", tc.name)
		}
		if code != tc.code || !strings.Contains(errOut.String(), tc.want) {
			t.Fatalf("%s: exit %d, stderr %q; want %d and %q", tc.name, code, errOut.String(), tc.code, tc.want)
		}
		if !strings.HasPrefix(errOut.String(), "Password for "+tc.name+": \nAgain: \n") {
			t.Errorf("%s: the prompts on stderr: %q", tc.name, errOut.String())
		}
		// What the terminal shows: nothing the person typed. With the
		// command's side closed, the terminal's reads end once it has
		// read all there was.
		tty.Close()
		var shown bytes.Buffer
		buf := make([]byte, 1024)
		for {
			n, err := term.Read(buf)
			shown.Write(buf[:n])
			if err != nil {
				break
			}
		}
		if strings.Contains(shown.String(), "horse") {
			t.Errorf("%s: the terminal echoed the password: %q", tc.name, shown.String())
		}
	}
	var n int
	if err := openPool(t, dsn).QueryRow(context.Background(), "SELECT count(*) FROM users").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Fatalf("%d accounts, want root's alone", n)
	}
}
