package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/crypto/acme/autocert"

	"tracker/handlers"
	"tracker/users"
)

// config is what every command reads from the flags they all take and from
// the environment.
type config struct {
	DataDir     string // --data-dir, $TRACKER_DATA_DIR
	DatabaseURL string // $DATABASE_URL; empty means the embedded cluster
	// ArchiveDir holds the archive files: --archive-dir, $TRACKER_ARCHIVE_DIR,
	// default DataDir/archive. Several tracker machines share one (a network
	// file system) or run the archive job on one machine only.
	ArchiveDir string
	// AuditRetention is how long audit entries are kept: --audit-retention,
	// $TRACKER_AUDIT_RETENTION, default a year.
	AuditRetention time.Duration
}

// runFunc runs a command with its positional arguments.
type runFunc func(ctx context.Context, a *app, args []string) error

// command is one subcommand: its words ("project create"), the usage of its
// arguments, and what it does.
type command struct {
	name    string
	args    string
	summary string
	nargs   [2]int // minimum and maximum positional arguments (-1: any)
	// setup defines the command's own flags on fs and returns the command
	// bound to the options they fill: see options and noOptions.
	setup func(fs *flag.FlagSet) runFunc
}

// options is the setup of a command with flags of its own: flags defines
// them on fs, each filling a field of the command's options struct O, and
// run gets the struct once the command line is parsed.
func options[O any](flags func(fs *flag.FlagSet, o *O), run func(ctx context.Context, a *app, args []string, o O) error) func(*flag.FlagSet) runFunc {
	return func(fs *flag.FlagSet) runFunc {
		o := new(O)
		flags(fs, o)
		return func(ctx context.Context, a *app, args []string) error { return run(ctx, a, args, *o) }
	}
}

// noOptions is the setup of a command with no flags of its own.
func noOptions(run runFunc) func(*flag.FlagSet) runFunc {
	return func(*flag.FlagSet) runFunc { return run }
}

// app is what a running command has at hand.
type app struct {
	cfg    config
	io     stdio
	log    *slog.Logger
	getenv func(string) string
}

// queueSelectFlags are the options that select items of a queue.
func queueSelectFlags(fs *flag.FlagSet, o *queueSelectOptions) {
	fs.StringVar(&o.Prefix, "prefix", "", "only names starting with this, such as a type (user:)")
	fs.StringVar(&o.Pattern, "pattern", "", "only names matching this PostgreSQL regular expression")
}

// usageError is a mistake in the command line: exit status 2 and the usage.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// commands lists the subcommands; getenv gives flags their defaults from the
// environment.
func commands(getenv func(string) string) []command {
	return []command{
		{name: "serve", summary: "run the web server and background jobs", nargs: [2]int{0, 0},
			setup: options(func(fs *flag.FlagSet, o *serveOptions) {
				fs.StringVar(&o.Addr, "addr", cmp.Or(getenv("TRACKER_ADDR"), "127.0.0.1:8080"), "address to listen on (also $TRACKER_ADDR)")
				fs.StringVar(&o.TrustedProxies, "trusted-proxies", getenv("TRACKER_TRUSTED_PROXIES"), "reverse proxies whose X-Forwarded-For, X-Real-IP and X-Forwarded-Proto are believed, as CIDR,CIDR,... (also $TRACKER_TRUSTED_PROXIES)")
				fs.StringVar(&o.PublicURL, "public-url", getenv("TRACKER_PUBLIC_URL"), "the address clients reach the tracker at, such as https://tracker.example.org, for the absolute URLs it makes; unset, the request's Host (also $TRACKER_PUBLIC_URL)")
				fs.StringVar(&o.TLS.Addr, "tls-addr", getenv("TRACKER_TLS_ADDR"), "address to serve HTTPS on, beside --addr's plain HTTP (also $TRACKER_TLS_ADDR)")
				fs.StringVar(&o.TLS.Cert, "tls-cert", getenv("TRACKER_TLS_CERT"), "the TLS certificate's file (PEM, the chain after it), read again on SIGHUP (also $TRACKER_TLS_CERT)")
				fs.StringVar(&o.TLS.Key, "tls-key", getenv("TRACKER_TLS_KEY"), "the TLS certificate's key file (PEM), read again on SIGHUP (also $TRACKER_TLS_KEY)")
				fs.StringVar(&o.TLS.ACMEDomains, "acme-domain", getenv("TRACKER_ACME_DOMAIN"), "host names (NAME,NAME,...) to get certificates for from an ACME CA, kept in DATA_DIR/acme (also $TRACKER_ACME_DOMAIN)")
				fs.StringVar(&o.TLS.ACMEEmail, "acme-email", getenv("TRACKER_ACME_EMAIL"), "the contact address given to the ACME CA (also $TRACKER_ACME_EMAIL)")
				fs.StringVar(&o.TLS.ACMEDirectory, "acme-directory", cmp.Or(getenv("TRACKER_ACME_DIRECTORY"), autocert.DefaultACMEDirectory), "the ACME CA's directory URL (also $TRACKER_ACME_DIRECTORY)")
				fs.IntVar(&o.Conns.Total, "max-conns", handlers.DefaultConnLimits.Total, "most connections open at once; past it new ones wait")
				fs.IntVar(&o.Conns.PerAddress, "max-conns-per-address", handlers.DefaultConnLimits.PerAddress, "most connections one client address holds (a trusted proxy's client: requests in flight)")
				fs.IntVar(&o.Conns.Reserve, "conn-reserve", handlers.DefaultConnLimits.Reserve, "of --max-conns, the last ones kept for the warrior routes")
				fs.IntVar(&o.Streams.Total, "max-streams", handlers.DefaultStreamLimits.Total, "most live event streams open at once")
				fs.IntVar(&o.Streams.PerAddress, "max-streams-per-address", handlers.DefaultStreamLimits.PerAddress, "most live event streams one client address holds open")
				fs.DurationVar(&o.Streams.Lifetime, "stream-lifetime", handlers.DefaultStreamLimits.Lifetime, "how long a live event stream lasts before the browser reconnects")
				fs.IntVar(&o.Readers.Slots, "reader-conns", handlers.DefaultReaderLimits.Slots, "database connections of the public read routes (item status, pages, stats.json, the project list), which take turns on them")
				fs.IntVar(&o.Readers.Rate, "reader-rate", handlers.DefaultReaderLimits.Rate, "most reads the public read routes start a second; 0: no bound but --reader-conns")
				fs.DurationVar(&o.Readers.Wait, "reader-wait", handlers.DefaultReaderLimits.Wait, "how long a read waits for its turn before it is refused (503 readers-busy)")
				o.Readers.Waiting = handlers.DefaultReaderLimits.Waiting
				o.Admin = handlers.DefaultAdminLimits
				fs.StringVar(&o.DebugAddr, "debug-addr", getenv("TRACKER_DEBUG_ADDR"), "address to serve Go's profiles of the process on (/debug/pprof/), apart from the tracker's routes; unset: none. Loopback or private only (also $TRACKER_DEBUG_ADDR)")
				fs.IntVar(&o.Admin.Conns, "admin-conns", handlers.DefaultAdminLimits.Conns, "database connections of the admin panel's pages and searches, which take turns on them (503 admin-busy past a 5 s wait)")
			}, runServe)},
		{name: "migrate", summary: "bring the database schema up to date", nargs: [2]int{0, 0}, setup: noOptions(runMigrate)},
		{name: "project create", args: "SLUG", summary: "create a project", nargs: [2]int{1, 1},
			setup: options(func(fs *flag.FlagSet, o *projectCreateOptions) {
				fs.StringVar(&o.Title, "title", "", "the project's title")
			}, runProjectCreate)},
		{name: "project show", args: "SLUG", summary: "print a project's configuration and counts as JSON", nargs: [2]int{1, 1}, setup: noOptions(runProjectShow)},
		{name: "project set", args: "SLUG KEY=VALUE...", summary: "change configuration keys (all or none), then print the project", nargs: [2]int{2, -1}, setup: noOptions(runProjectSet)},
		{name: "block add", args: "SLUG|all nick|ip VALUE", summary: "refuse a nick, or an IP address or network, work on a project (all: every project)", nargs: [2]int{3, 3},
			setup: options(func(fs *flag.FlagSet, o *blockOptions) {
				fs.StringVar(&o.Reason, "reason", "", "why, for the record and the refused warrior")
			}, runBlock(true))},
		// A block is lifted whatever its reason: remove takes no --reason.
		{name: "block remove", args: "SLUG|all nick|ip VALUE", summary: "lift a block", nargs: [2]int{3, 3},
			setup: options(func(*flag.FlagSet, *blockOptions) {}, runBlock(false))},
		{name: "target add", args: "SLUG URL", summary: "add (or change) an upload target: rsync://…/ or http(s)://…/ (ending in /), :downloader stands for the nick", nargs: [2]int{2, 2},
			setup: options(func(fs *flag.FlagSet, o *targetAddOptions) {
				fs.IntVar(&o.Weight, "weight", 1, "share of uploads relative to the other targets, 1 or more")
				fs.BoolVar(&o.Disabled, "disabled", false, "keep the target but send no uploads to it")
			}, runTargetAdd)},
		{name: "target remove", args: "SLUG URL", summary: "remove an upload target", nargs: [2]int{2, 2}, setup: noOptions(runTargetRemove)},
		{name: "dictionary set", args: "SLUG FILE", summary: "install FILE, a zstd dictionary (raw or zstd-compressed), as the one grab scripts fetch; each gets a new id, the Unix second it is installed", nargs: [2]int{2, 2}, setup: noOptions(runDictionarySet)},
		{name: "dictionary list", args: "SLUG", summary: "print a project's dictionaries as JSON, newest (the one served) first", nargs: [2]int{1, 1}, setup: noOptions(runDictionaryList)},
		{name: "dictionary train", args: "SLUG FILE...", summary: "build a zstd dictionary from sample files and install it", nargs: [2]int{2, -1},
			setup: options(func(fs *flag.FlagSet, o *dictionaryTrainOptions) {
				fs.IntVar(&o.MaxSize, "max-size", 110<<10, "largest dictionary to build, in bytes")
				fs.StringVar(&o.Out, "out", "", "write the dictionary to this `file` instead of installing it")
			}, runDictionaryTrain)},
		{name: "items add", args: "SLUG [FILE]", summary: `queue newline-separated item names from FILE (none or "-": stdin)`, nargs: [2]int{1, 2},
			setup: options(func(fs *flag.FlagSet, o *itemsAddOptions) {
				fs.StringVar(&o.Queue, "queue", "todo", "queue: todo, backfeed, secondary, redo or downloader:NICK")
			}, runItemsAdd)},
		{name: "item show", args: "SLUG NAME", summary: "print where an item stands as JSON: queued, claimed, done, failed (with the claims that ran out) or archived", nargs: [2]int{2, 2}, setup: noOptions(runItemShow)},
		{name: "queue list", args: "SLUG QUEUE", summary: "print a page of a queue (error: the items that failed) as JSON lines, in order", nargs: [2]int{2, 2},
			setup: options(func(fs *flag.FlagSet, o *queueListOptions) {
				fs.StringVar(&o.Prefix, "prefix", "", "only names starting with this, such as a type (user:)")
				fs.Int64Var(&o.After, "after", 0, "start after the item with this `id` (the last line's id of the page before)")
				fs.IntVar(&o.Max, "max", 1000, "most items printed")
			}, runQueueList)},
		{name: "queue move", args: "SLUG FROM TO", summary: "move the selected items of queue FROM to queue TO (from error: with a fresh count of hand-outs)", nargs: [2]int{3, 3},
			setup: options(queueSelectFlags, runQueueMove)},
		{name: "queue drain", args: "SLUG QUEUE", summary: "drop the selected items of a queue for good (they stay seen, so they are not queued again)", nargs: [2]int{2, 2},
			setup: options(queueSelectFlags, runQueueDrain)},
		{name: "check", args: "[SLUG]", summary: "check a project's books (every project's and the tracker's own without SLUG), print them as JSON; exit 1 when they do not balance", nargs: [2]int{0, 1}, setup: noOptions(runCheck)},
		{name: "settings", summary: "print the tracker-wide settings as JSON", nargs: [2]int{0, 0}, setup: noOptions(runSettings)},
		{name: "settings set", args: "KEY=VALUE...", summary: "change tracker-wide settings (seesaw_version, auto_project, auto_project_refill, broadcast_message, tracker_banner_html)", nargs: [2]int{1, -1}, setup: noOptions(runSettings)},
		{name: "jobs", summary: "list the background jobs: schedule and last run", nargs: [2]int{0, 0}, setup: noOptions(runJobsList)},
		{name: "jobs run", args: "NAME", summary: "run a background job once, now (after a run in progress elsewhere ends)", nargs: [2]int{1, 1}, setup: noOptions(runJobsRun)},
		{name: "jobs set", args: "NAME", summary: "switch a job on or off and set its interval", nargs: [2]int{1, 1},
			setup: options(func(fs *flag.FlagSet, o *jobsSetOptions) {
				// Func flags: what is not given stays as it is.
				fs.BoolFunc("enabled", "switch the job on (--enabled=false: off)", func(s string) error {
					on, err := strconv.ParseBool(s)
					if err != nil {
						return errors.New("true or false")
					}
					o.Enabled = &on
					return nil
				})
				fs.Func("every", "interval between runs, a `duration` of at least 1s such as 30s or 10m", func(s string) error {
					d, err := time.ParseDuration(s)
					if err != nil || d < time.Second {
						return errors.New("a duration of at least 1s, such as 30s or 10m")
					}
					o.Every = d
					return nil
				})
			}, runJobsSet)},
		{name: "archive list", args: "SLUG", summary: "list a project's archives (day, items, file, checksum)", nargs: [2]int{1, 1}, setup: noOptions(runArchiveList)},
		{name: "archive verify", args: "SLUG", summary: "check every archive file of a project against its checksum", nargs: [2]int{1, 1}, setup: noOptions(runArchiveVerify)},
		{name: "archive export", args: "SLUG", summary: "write a project's archived completions to stdout as JSON lines", nargs: [2]int{1, 1}, setup: noOptions(runArchiveExport)},
		{name: "token create", args: "USER NAME", summary: "make an API token of USER's account for a script or bot, and print it (shown this once)", nargs: [2]int{2, 2},
			setup: options(func(fs *flag.FlagSet, o *tokenCreateOptions) {
				fs.StringVar(&o.Scope, "scope", users.ScopeRead, "read (configuration, counts, the audit log) or write (changes them too)")
				fs.StringVar(&o.Projects, "projects", "", "only these projects (SLUG,SLUG,...); default every project the account runs")
			}, runTokenCreate)},
		{name: "token list", args: "[USER]", summary: "print the API tokens (USER's only when given) as JSON lines, newest first, revoked ones too", nargs: [2]int{0, 1}, setup: noOptions(runTokenList)},
		{name: "token revoke", args: "ID", summary: "revoke an API token: its next request is refused", nargs: [2]int{1, 1}, setup: noOptions(runTokenRevoke)},
		{name: "admin create", args: "USER", summary: "create a global admin (password from $TRACKER_PASSWORD, else asked for without echo at a terminal, or one line on stdin)", nargs: [2]int{1, 1}, setup: noOptions(runAdminCreate)},
	}
}

// run parses the command line and runs a command. It returns the exit status.
func run(ctx context.Context, args []string, std stdio, getenv func(string) string) int {
	log := slog.New(slog.NewTextHandler(std.err, &slog.HandlerOptions{Level: slog.LevelInfo}))
	err := dispatch(ctx, args, std, getenv, log)
	var uerr *usageError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &uerr):
		fmt.Fprintf(std.err, "tracker: %v\n", err)
		return 2
	default:
		fmt.Fprintf(std.err, "tracker: %v\n", err)
		return 1
	}
}

func dispatch(ctx context.Context, args []string, std stdio, getenv func(string) string, log *slog.Logger) error {
	cmds := commands(getenv)
	if len(args) == 0 {
		printUsage(std.err, cmds)
		return &usageError{"no command given"}
	}
	if args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		printUsage(std.out, cmds) // asked for: an answer, not a complaint
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
		printUsage(std.err, cmds)
		return &usageError{fmt.Sprintf("unknown command %q", strings.Join(args, " "))}
	}

	retention := cmp.Or(getenv("TRACKER_AUDIT_RETENTION"), "8760h")
	cfg := config{
		DataDir:     cmp.Or(getenv("TRACKER_DATA_DIR"), "./data"),
		DatabaseURL: getenv("DATABASE_URL"),
		ArchiveDir:  getenv("TRACKER_ARCHIVE_DIR"),
	}
	var err error
	if cfg.AuditRetention, err = time.ParseDuration(retention); err != nil {
		return &usageError{fmt.Sprintf("$TRACKER_AUDIT_RETENTION %q: a positive duration such as 8760h", retention)}
	}
	fs := flag.NewFlagSet("tracker "+cmd.name, flag.ContinueOnError)
	fs.StringVar(&cfg.DataDir, "data-dir", cfg.DataDir, "directory of the embedded PostgreSQL cluster (unused for it when $DATABASE_URL is set), of the ACME certificates, and of downloads/, served at /downloads/ (also $TRACKER_DATA_DIR)")
	fs.StringVar(&cfg.ArchiveDir, "archive-dir", cfg.ArchiveDir, "directory of the archive files (also $TRACKER_ARCHIVE_DIR; default DATA_DIR/archive)")
	fs.DurationVar(&cfg.AuditRetention, "audit-retention", cfg.AuditRetention, "how long audit entries are kept (also $TRACKER_AUDIT_RETENTION)")
	runCmd := cmd.setup(fs)
	if cmd.name == "serve" {
		// Every flag of serve may come from the environment, so that a
		// service's configuration is one file of variables (the package's
		// /etc/default/tracker); the command line wins.
		if err := flagsFromEnv(fs, getenv); err != nil {
			return err
		}
	}
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: tracker %s [flags] %s\n  %s\n", cmd.name, cmd.args, cmd.summary)
		fs.PrintDefaults()
	}
	// The flag package prints a wrong flag's error, then the usage; here the
	// usage comes first and run prints the error once, last.
	fs.SetOutput(io.Discard)
	pos, err := parseInterspersed(fs, args)
	fs.SetOutput(std.err)
	if err != nil {
		fs.Usage()
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return &usageError{whatItTakes(fs, err)}
	}
	if len(pos) < cmd.nargs[0] || (cmd.nargs[1] >= 0 && len(pos) > cmd.nargs[1]) {
		fs.Usage()
		return &usageError{fmt.Sprintf("%s: wrong number of arguments", cmd.name)}
	}
	if cfg.AuditRetention <= 0 {
		return &usageError{fmt.Sprintf("--audit-retention %v: a positive duration such as 8760h", cfg.AuditRetention)}
	}
	if cfg.ArchiveDir == "" {
		cfg.ArchiveDir = filepath.Join(cfg.DataDir, "archive")
	}
	a := &app{cfg: cfg, io: std, log: log, getenv: getenv}
	if cmd.name != "serve" {
		// The server's actors are the admins signed in; every other
		// command's is whoever runs it.
		ctx = asShellUser(ctx)
	}
	return runCmd(ctx, a, pos)
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
		prev := ""
		if len(args) > len(rest) {
			prev = args[len(args)-len(rest)-1]
		}
		if prev == "--" {
			return append(pos, rest...), nil
		}
		// A bool flag takes no separate value: "--disabled false" would set
		// the flag and leave "false" as an argument.
		if (rest[0] == "true" || rest[0] == "false") && isBoolFlag(fs, prev) {
			return nil, fmt.Errorf("%s takes no separate value: write %[1]s=%s", prev, rest[0])
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// isBoolFlag reports whether arg names a bool flag of fs, without a value.
func isBoolFlag(fs *flag.FlagSet, arg string) bool {
	name, ok := strings.CutPrefix(arg, "-")
	f := fs.Lookup(strings.TrimPrefix(name, "-"))
	if !ok || f == nil {
		return false
	}
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// whatItTakes is the message of a flag error, the flag package's "parse
// error" after a wrong value replaced by what the flag takes: for the types
// -h shows ("-weight int"), in words.
func whatItTakes(fs *flag.FlagSet, err error) string {
	msg, ok := strings.CutSuffix(err.Error(), ": parse error")
	i := strings.LastIndex(msg, " -") // "invalid value "x" for flag -weight"
	if !ok || i < 0 {
		return err.Error()
	}
	f := fs.Lookup(msg[i+2:])
	if f == nil {
		return err.Error()
	}
	kind, _ := flag.UnquoteUsage(f)
	takes := map[string]string{"": "true or false", "int": "a whole number", "duration": "a duration such as 90s, 10m or 8760h"}[kind]
	return msg + ": " + cmp.Or(takes, kind)
}

func printUsage(w io.Writer, cmds []command) {
	fmt.Fprintln(w, "usage: tracker COMMAND [flags] [arguments]")
	fmt.Fprintln(w, "\ncommands:")
	for _, c := range cmds {
		fmt.Fprintf(w, "  %-32s %s\n", strings.TrimSpace(c.name+" "+c.args), c.summary)
	}
	fmt.Fprintln(w, "\nEvery command takes --data-dir DIR (also $TRACKER_DATA_DIR, default ./data) and uses")
	fmt.Fprintln(w, "$DATABASE_URL instead of the embedded PostgreSQL cluster when it is set.")
	fmt.Fprintln(w, "'tracker COMMAND -h' describes a command's flags.")
}

// flagsFromEnv sets each flag of fs from $TRACKER_NAME (--max-conns:
// $TRACKER_MAX_CONNS) where that is set.
func flagsFromEnv(fs *flag.FlagSet, getenv func(string) string) error {
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		name := envName(f.Name)
		v := getenv(name)
		if v == "" || err != nil {
			return
		}
		if e := fs.Set(f.Name, v); e != nil {
			err = &usageError{fmt.Sprintf("$%s %q: %v", name, v, e)}
		}
	})
	return err
}

// envName is the environment variable of a flag: --max-conns is
// $TRACKER_MAX_CONNS.
func envName(flag string) string {
	return "TRACKER_" + strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
}
