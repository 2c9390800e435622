package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"time"
)

// config is everything the commands read from flags and the environment.
type config struct {
	DataDir     string // --data-dir, $TRACKER_DATA_DIR
	Addr        string // --addr, $TRACKER_ADDR (serve)
	DatabaseURL string // $DATABASE_URL; empty means the embedded cluster
	// ArchiveDir holds the archive files: --archive-dir, $TRACKER_ARCHIVE_DIR,
	// default DataDir/archive. Several tracker machines share one (a network
	// file system) or run the archive job on one machine only.
	ArchiveDir string
	// AuditRetention is how long audit entries are kept: --audit-retention,
	// $TRACKER_AUDIT_RETENTION, default a year.
	AuditRetention time.Duration
}

// command is one subcommand: its words ("project create"), the usage of its
// arguments, and what it does.
type command struct {
	name    string
	args    string
	summary string
	flags   func(fs *flag.FlagSet, cfg *config, opts map[string]*string)
	run     func(ctx context.Context, a *app, args []string, opts map[string]*string) error
	nargs   [2]int // minimum and maximum positional arguments (-1: any)
}

// app is what a running command has at hand.
type app struct {
	cfg    config
	io     stdio
	log    *slog.Logger
	getenv func(string) string
}

// usageError is a mistake in the command line: exit status 2 and the usage.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func commands() []command {
	return []command{
		{name: "serve", summary: "run the web server and background jobs", nargs: [2]int{0, 0}, run: runServe,
			flags: func(fs *flag.FlagSet, cfg *config, _ map[string]*string) {
				fs.StringVar(&cfg.Addr, "addr", cfg.Addr, "address to listen on (also $TRACKER_ADDR)")
			}},
		{name: "migrate", summary: "bring the database schema up to date", nargs: [2]int{0, 0}, run: runMigrate},
		{name: "project create", args: "SLUG", summary: "create a project", nargs: [2]int{1, 1}, run: runProjectCreate,
			flags: func(fs *flag.FlagSet, _ *config, o map[string]*string) {
				o["title"] = fs.String("title", "", "the project's title")
			}},
		{name: "project show", args: "SLUG", summary: "print a project's configuration and counts as JSON", nargs: [2]int{1, 1}, run: runProjectShow},
		{name: "project set", args: "SLUG KEY=VALUE...", summary: "change configuration keys (all or none), then print the project", nargs: [2]int{2, -1}, run: runProjectSet},
		{name: "block add", args: "SLUG|all nick|ip VALUE", summary: "refuse a nick, or an IP address or network, work on a project (all: every project)", nargs: [2]int{3, 3}, run: runBlock(true),
			flags: func(fs *flag.FlagSet, _ *config, o map[string]*string) {
				o["reason"] = fs.String("reason", "", "why, for the record and the refused warrior")
			}},
		{name: "block remove", args: "SLUG|all nick|ip VALUE", summary: "lift a block", nargs: [2]int{3, 3}, run: runBlock(false),
			flags: func(fs *flag.FlagSet, _ *config, o map[string]*string) { o["reason"] = new(string) }},
		{name: "target add", args: "SLUG URL", summary: "add (or change) an upload target: rsync:// or http(s)://, :downloader stands for the nick", nargs: [2]int{2, 2}, run: runTarget(true),
			flags: func(fs *flag.FlagSet, _ *config, o map[string]*string) {
				o["weight"] = fs.String("weight", "1", "share of uploads relative to the other targets")
				o["disabled"] = fs.String("disabled", "false", "true to keep the target but send no uploads to it")
			}},
		{name: "target remove", args: "SLUG URL", summary: "remove an upload target", nargs: [2]int{2, 2}, run: runTarget(false)},
		{name: "items add", args: "SLUG [FILE]", summary: `queue newline-separated item names from FILE (none or "-": stdin)`, nargs: [2]int{1, 2}, run: runItemsAdd,
			flags: func(fs *flag.FlagSet, _ *config, o map[string]*string) {
				o["queue"] = fs.String("queue", "todo", "queue: todo, backfeed, secondary, redo or downloader:NICK")
			}},
		{name: "check", args: "[SLUG]", summary: "check a project's books (every project's without SLUG), print them as JSON; exit 1 when they do not balance", nargs: [2]int{0, 1}, run: runCheck},
		{name: "settings", summary: "print the tracker-wide settings as JSON", nargs: [2]int{0, 0}, run: runSettings},
		{name: "settings set", args: "KEY=VALUE...", summary: "change tracker-wide settings (seesaw_version, auto_project, broadcast_message, tracker_banner_html)", nargs: [2]int{1, -1}, run: runSettings},
		{name: "jobs", summary: "list the background jobs: schedule and last run", nargs: [2]int{0, 0}, run: runJobsList},
		{name: "jobs run", args: "NAME", summary: "run a background job once, now (after a run in progress elsewhere ends)", nargs: [2]int{1, 1}, run: runJobsRun},
		{name: "jobs set", args: "NAME", summary: "switch a job on or off and set its interval", nargs: [2]int{1, 1}, run: runJobsSet,
			flags: func(fs *flag.FlagSet, _ *config, o map[string]*string) {
				o["enabled"] = fs.String("enabled", "", "true or false")
				o["every"] = fs.String("every", "", "interval between runs, such as 30s or 10m")
			}},
		{name: "archive list", args: "SLUG", summary: "list a project's archives (day, items, file, checksum)", nargs: [2]int{1, 1}, run: runArchiveList},
		{name: "archive verify", args: "SLUG", summary: "check every archive file of a project against its checksum", nargs: [2]int{1, 1}, run: runArchiveVerify},
		{name: "archive export", args: "SLUG", summary: "write a project's archived completions to stdout as JSON lines", nargs: [2]int{1, 1}, run: runArchiveExport},
		{name: "admin create", args: "USER", summary: "create a global admin (password from $TRACKER_PASSWORD or one line on stdin)", nargs: [2]int{1, 1}, run: runAdminCreate},
	}
}

// run parses the command line and runs a command. It returns the exit status.
func run(ctx context.Context, args []string, io stdio, getenv func(string) string) int {
	log := slog.New(slog.NewTextHandler(io.err, &slog.HandlerOptions{Level: slog.LevelInfo}))
	err := dispatch(ctx, args, io, getenv, log)
	var uerr *usageError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &uerr):
		fmt.Fprintf(io.err, "tracker: %v\n", err)
		return 2
	default:
		fmt.Fprintf(io.err, "tracker: %v\n", err)
		return 1
	}
}

func dispatch(ctx context.Context, args []string, io stdio, getenv func(string) string, log *slog.Logger) error {
	cmds := commands()
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		printUsage(io, cmds)
		if len(args) == 0 {
			return &usageError{"no command given"}
		}
		return nil
	}
	// The longest name that matches: "jobs run" before "jobs".
	var cmd *command
	matched := 0
	for i := range cmds {
		words := strings.Fields(cmds[i].name)
		if len(words) > matched && len(args) >= len(words) && strings.Join(args[:len(words)], " ") == cmds[i].name {
			cmd, matched = &cmds[i], len(words)
		}
	}
	if cmd != nil {
		args = args[matched:]
	}
	if cmd == nil {
		printUsage(io, cmds)
		return &usageError{fmt.Sprintf("unknown command %q", strings.Join(args, " "))}
	}

	cfg := config{
		DataDir:     cmp.Or(getenv("TRACKER_DATA_DIR"), "./data"),
		Addr:        cmp.Or(getenv("TRACKER_ADDR"), "127.0.0.1:8080"),
		DatabaseURL: getenv("DATABASE_URL"),
		ArchiveDir:  getenv("TRACKER_ARCHIVE_DIR"),
	}
	retention := cmp.Or(getenv("TRACKER_AUDIT_RETENTION"), "8760h")
	fs := flag.NewFlagSet("tracker "+cmd.name, flag.ContinueOnError)
	fs.SetOutput(io.err)
	fs.StringVar(&cfg.DataDir, "data-dir", cfg.DataDir, "directory of the embedded PostgreSQL cluster (also $TRACKER_DATA_DIR); unused when $DATABASE_URL is set")
	fs.StringVar(&cfg.ArchiveDir, "archive-dir", cfg.ArchiveDir, "directory of the archive files (also $TRACKER_ARCHIVE_DIR; default DATA_DIR/archive)")
	fs.StringVar(&retention, "audit-retention", retention, "how long audit entries are kept (also $TRACKER_AUDIT_RETENTION)")
	opts := map[string]*string{}
	if cmd.flags != nil {
		cmd.flags(fs, &cfg, opts)
	}
	fs.Usage = func() {
		fmt.Fprintf(io.err, "usage: tracker %s [flags] %s\n  %s\n", cmd.name, cmd.args, cmd.summary)
		fs.PrintDefaults()
	}
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return &usageError{err.Error()}
	}
	if len(pos) < cmd.nargs[0] || (cmd.nargs[1] >= 0 && len(pos) > cmd.nargs[1]) {
		fs.Usage()
		return &usageError{fmt.Sprintf("%s: wrong number of arguments", cmd.name)}
	}
	if cfg.AuditRetention, err = time.ParseDuration(retention); err != nil || cfg.AuditRetention <= 0 {
		return &usageError{fmt.Sprintf("audit retention %q: a positive duration such as 8760h", retention)}
	}
	if cfg.ArchiveDir == "" {
		cfg.ArchiveDir = filepath.Join(cfg.DataDir, "archive")
	}
	a := &app{cfg: cfg, io: io, log: log, getenv: getenv}
	return cmd.run(ctx, a, pos, opts)
}

// parseInterspersed parses flags wherever they stand among the positional
// arguments ("project create demo --title Demo"), as operators type them.
// "--" ends the flags; "-" alone is a positional argument (stdin).
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		// flag stops at "--" (consumed) or at the first non-flag.
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

func printUsage(io stdio, cmds []command) {
	fmt.Fprintln(io.err, "usage: tracker COMMAND [flags] [arguments]")
	fmt.Fprintln(io.err, "\ncommands:")
	for _, c := range cmds {
		fmt.Fprintf(io.err, "  %-32s %s\n", strings.TrimSpace(c.name+" "+c.args), c.summary)
	}
	fmt.Fprintln(io.err, "\nEvery command takes --data-dir DIR (also $TRACKER_DATA_DIR, default ./data) and uses")
	fmt.Fprintln(io.err, "$DATABASE_URL instead of the embedded PostgreSQL cluster when it is set.")
	fmt.Fprintln(io.err, "'tracker COMMAND -h' describes a command's flags.")
}
