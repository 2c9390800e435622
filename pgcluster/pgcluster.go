// Package pgcluster runs the tracker's embedded PostgreSQL: a private cluster
// made from the system's PostgreSQL binaries inside the tracker's data
// directory, reachable only through a unix socket in that directory.
//
// Several tracker processes may use one data directory at once (the CLI while
// serve runs, or two serve processes): the first starts the cluster, the others
// find it running and use it, and the last one to leave stops it. Two lock
// files arbitrate that, so start and stop decisions never race:
//
//   - cluster.lock is held exclusively around every start-or-join and
//     leave-or-stop decision;
//   - cluster.users is held shared by every process using the cluster, so a
//     leaving process can tell, by trying to take it exclusively, whether it
//     is the last one.
//
// Locks die with their process, so a tracker killed with SIGKILL leaves the
// cluster running for the next process to join, and the last process to leave
// after that stops it.
package pgcluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// Database and role of the tracker inside the cluster.
const (
	Database = "tracker"
	Role     = "tracker"
)

// A unix socket path must fit in sockaddr_un.sun_path (108 bytes on Linux,
// with a terminating NUL); PostgreSQL appends "/.s.PGSQL.5432".
const maxSocketDir = 107 - len("/.s.PGSQL.5432")

// Options tune a cluster. The zero value is the tracker's embedded default.
type Options struct {
	// Settings override or add postgresql.conf settings (name → value, as
	// written in postgresql.conf, quoted where PostgreSQL needs quotes).
	Settings map[string]string
	Logger   *slog.Logger
}

// Cluster is one process's use of the cluster in a data directory. Release it
// when done; the last process to release stops the cluster.
type Cluster struct {
	dir    string // the tracker's data directory
	pgdata string // the cluster's own directory, also its socket directory
	bins   Binaries
	owner  *owner
	log    *slog.Logger

	control *os.File // cluster.lock
	users   *os.File // cluster.users, held shared while in use
}

// Acquire makes sure the cluster in the data directory dir is running,
// creating and starting it when needed, and registers this process as one of
// its users.
func Acquire(ctx context.Context, dir string, opts Options) (*Cluster, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	bins, err := FindBinaries()
	if err != nil {
		return nil, err
	}
	dir, err = filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	c := &Cluster{dir: dir, pgdata: filepath.Join(dir, "pgdata"), bins: bins, log: log}
	if len(c.pgdata) > maxSocketDir {
		return nil, fmt.Errorf("data directory path %s is too long for a unix socket (at most %d bytes): choose a shorter --data-dir",
			dir, maxSocketDir-len("/pgdata"))
	}
	if c.owner, err = clusterOwner(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create data directory: %w", err)
	}
	if err := c.owner.canReach(dir); err != nil {
		return nil, err
	}
	if c.control, err = openLock(filepath.Join(dir, "cluster.lock")); err != nil {
		return nil, err
	}
	if err := flock(ctx, c.control, syscall.LOCK_EX); err != nil {
		c.control.Close()
		return nil, err
	}
	defer unlock(c.control)

	if c.users, err = openLock(filepath.Join(dir, "cluster.users")); err != nil {
		c.control.Close()
		return nil, err
	}
	if err := flock(ctx, c.users, syscall.LOCK_SH); err != nil {
		c.closeLocks()
		return nil, err
	}
	if err := c.ensureRunning(ctx, opts.Settings); err != nil {
		c.closeLocks()
		return nil, err
	}
	return c, nil
}

// DSN is the connection string of the tracker database in the cluster.
func (c *Cluster) DSN() string {
	return fmt.Sprintf("host=%s user=%s dbname=%s sslmode=disable", c.pgdata, Role, Database)
}

// AdminDSN is the connection string of the cluster's maintenance database.
func (c *Cluster) AdminDSN() string {
	return fmt.Sprintf("host=%s user=%s dbname=postgres sslmode=disable", c.pgdata, Role)
}

// Dir is the cluster's own directory (PGDATA, also where its socket lives).
func (c *Cluster) Dir() string { return c.pgdata }

// Release unregisters this process and stops the cluster if no other process
// is using it. Close every connection to the cluster first.
func (c *Cluster) Release(ctx context.Context) error {
	defer c.closeLocks()
	if err := flock(ctx, c.control, syscall.LOCK_EX); err != nil {
		return err
	}
	defer unlock(c.control)
	unlock(c.users)
	if err := syscall.Flock(int(c.users.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		c.log.Debug("embedded PostgreSQL left running for the other tracker processes using it")
		return nil
	}
	return c.stop()
}

func (c *Cluster) closeLocks() {
	if c.users != nil {
		c.users.Close()
	}
	c.control.Close()
}

// ensureRunning starts the cluster unless it runs already, creating it first
// if the data directory has none. The caller holds cluster.lock.
func (c *Cluster) ensureRunning(ctx context.Context, settings map[string]string) error {
	if c.running(ctx) {
		c.log.Debug("using the running embedded PostgreSQL", "dir", c.pgdata)
		return nil
	}
	if _, err := os.Stat(filepath.Join(c.pgdata, "PG_VERSION")); errors.Is(err, os.ErrNotExist) {
		if err := c.initdb(ctx); err != nil {
			return err
		}
	}
	if err := c.writeConf(settings); err != nil {
		return err
	}
	logFile := filepath.Join(c.dir, "postgres.log")
	if err := c.owner.touch(logFile); err != nil {
		return err
	}
	c.log.Info("starting embedded PostgreSQL", "dir", c.pgdata, "log", logFile)
	if out, err := c.run(ctx, c.bins.PgCtl, "start", "--pgdata", c.pgdata, "--log", logFile, "--wait", "--timeout", "120", "--silent"); err != nil {
		return fmt.Errorf("start PostgreSQL: %w: %s%s", err, out, logTail(logFile))
	}
	return c.ensureDatabase(ctx)
}

func (c *Cluster) running(ctx context.Context) bool {
	_, err := c.run(ctx, c.bins.PgCtl, "status", "--pgdata", c.pgdata)
	return err == nil
}

// initdb creates the cluster in a scratch directory and renames it into place,
// so a failed or interrupted initdb never leaves a half-made cluster behind.
func (c *Cluster) initdb(ctx context.Context) error {
	tmp := c.pgdata + ".new"
	if err := os.RemoveAll(tmp); err != nil {
		return err
	}
	if err := c.owner.mkdir(tmp); err != nil {
		return err
	}
	c.log.Info("creating embedded PostgreSQL cluster", "dir", c.pgdata)
	out, err := c.run(ctx, c.bins.Initdb, "--pgdata", tmp, "--username", Role, "--auth", "trust",
		"--encoding", "UTF8", "--no-locale", "--data-checksums")
	if err != nil {
		os.RemoveAll(tmp)
		return fmt.Errorf("initdb: %w: %s", err, out)
	}
	// Our settings live in tracker.conf, rewritten at every start; settings
	// made with ALTER SYSTEM (postgresql.auto.conf) still take precedence.
	conf, err := os.OpenFile(filepath.Join(tmp, "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = conf.WriteString("\n# Settings of the tracker's embedded cluster, rewritten at every start.\ninclude_if_exists = 'tracker.conf'\n")
	if cerr := conf.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp, c.pgdata)
}

// writeConf writes tracker.conf: the default settings for a queue workload,
// the caller's overrides, and what keeps the cluster private to this data
// directory (no TCP, a socket only the owner can open).
func (c *Cluster) writeConf(overrides map[string]string) error {
	settings := defaultSettings(c.bins)
	for k, v := range overrides {
		settings[k] = v
	}
	settings["listen_addresses"] = "''"
	settings["unix_socket_directories"] = quote(c.pgdata)
	settings["unix_socket_permissions"] = "0700"

	var b strings.Builder
	b.WriteString("# Written by the tracker at every start of its embedded cluster: edits are lost.\n")
	b.WriteString("# Use ALTER SYSTEM (postgresql.auto.conf) to override a setting for good.\n")
	for _, k := range sortedKeys(settings) {
		fmt.Fprintf(&b, "%s = %s\n", k, settings[k])
	}
	path := filepath.Join(c.pgdata, "tracker.conf")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		return err
	}
	return c.owner.chown(path)
}

func (c *Cluster) ensureDatabase(ctx context.Context) error {
	conn, err := pgx.Connect(ctx, c.AdminDSN())
	if err != nil {
		return fmt.Errorf("connect to embedded PostgreSQL: %w", err)
	}
	defer conn.Close(ctx)
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", Database).Scan(&exists); err != nil {
		return err
	}
	if exists {
		return nil
	}
	_, err = conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{Database}.Sanitize())
	return err
}

func (c *Cluster) stop() error {
	c.log.Info("stopping embedded PostgreSQL", "dir", c.pgdata)
	// Not the caller's context: it is usually cancelled by the very signal
	// that asked us to shut down, and the stop must still happen.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if out, err := c.run(ctx, c.bins.PgCtl, "stop", "--pgdata", c.pgdata, "--mode", "fast", "--wait", "--timeout", "100", "--silent"); err != nil {
		if !c.running(ctx) {
			return nil
		}
		return fmt.Errorf("stop PostgreSQL: %w: %s", err, out)
	}
	return nil
}

// run runs a PostgreSQL program as the cluster's owner and returns its output.
func (c *Cluster) run(ctx context.Context, bin string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = c.dir
	cmd.SysProcAttr = c.owner.procAttr()
	// PostgreSQL programs print in the user's language; keep errors readable
	// in logs and stable for callers.
	cmd.Env = append(os.Environ(), "LC_ALL=C", "LANG=C")
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	err := cmd.Run()
	return bytes.TrimSpace(out.Bytes()), err
}

// owner is the operating-system account the cluster runs as. PostgreSQL
// refuses to run as root, so a tracker run by root hands the cluster to the
// "postgres" account that Debian's packages create.
type owner struct {
	uid, gid int
	name     string
	foreign  bool // not the account the tracker runs as
}

func clusterOwner() (*owner, error) {
	if os.Geteuid() != 0 {
		return &owner{uid: os.Geteuid(), gid: os.Getegid()}, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, errors.New(`the tracker runs as root and PostgreSQL will not: create a "postgres" user (apt-get install postgresql does) or run the tracker as another user`)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &owner{uid: uid, gid: gid, name: u.Username, foreign: true}, nil
}

func (o *owner) procAttr() *syscall.SysProcAttr {
	if !o.foreign {
		return nil
	}
	return &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(o.uid), Gid: uint32(o.gid)}}
}

func (o *owner) chown(path string) error {
	if !o.foreign {
		return nil
	}
	return os.Chown(path, o.uid, o.gid)
}

func (o *owner) mkdir(path string) error {
	if err := os.Mkdir(path, 0o700); err != nil {
		return err
	}
	return o.chown(path)
}

func (o *owner) touch(path string) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	f.Close()
	return o.chown(path)
}

// canReach checks that the owner can walk down to dir: a data directory
// below a root-only folder would otherwise fail deep inside PostgreSQL with a
// bare "permission denied".
func (o *owner) canReach(dir string) error {
	if !o.foreign {
		return nil
	}
	for d := dir; ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil {
			return err
		}
		st := fi.Sys().(*syscall.Stat_t)
		mode := fi.Mode().Perm()
		ok := mode&0o001 != 0 ||
			(int(st.Uid) == o.uid && mode&0o100 != 0) ||
			(int(st.Gid) == o.gid && mode&0o010 != 0)
		if !ok {
			return fmt.Errorf("the %s user that runs PostgreSQL cannot enter %s: chmod o+x %s, or choose another --data-dir", o.name, d, d)
		}
		if d == filepath.Dir(d) {
			return nil
		}
	}
}

func openLock(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open lock file: %w", err)
	}
	return f, nil
}

// flock takes a lock, giving up when ctx ends. flock(2) has no timeout, so it
// polls with LOCK_NB.
func flock(ctx context.Context, f *os.File, how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		if err == nil {
			return nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			return fmt.Errorf("lock %s: %w", f.Name(), err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for lock %s: %w", f.Name(), ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func unlock(f *os.File) { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// logTail returns the end of the server log, which says why a start failed.
func logTail(path string) string {
	b, err := os.ReadFile(path)
	if err != nil || len(b) == 0 {
		return ""
	}
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return "\nserver log " + path + ":\n" + string(b)
}
