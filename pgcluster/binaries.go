package pgcluster

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
)

// MinVersion is the oldest PostgreSQL major version the tracker runs on.
const MinVersion = 15

// ErrNoBinaries means no usable PostgreSQL server programs were found.
var ErrNoBinaries = errors.New(`PostgreSQL server programs (initdb, pg_ctl) not found: install them with "apt-get install postgresql", or set DATABASE_URL to use an existing server`)

// Binaries are the PostgreSQL programs the embedded cluster runs.
type Binaries struct {
	Initdb, PgCtl string
	Version       int    // major version
	LibDir        string // where the server's extension libraries live
}

var versionRE = regexp.MustCompile(`\(PostgreSQL\) (\d+)`)

// debianBinDirs is where Debian's packages put each major version's programs.
var debianBinDirs = "/usr/lib/postgresql/*/bin"

// FindBinaries looks for initdb and pg_ctl on PATH, then in Debian's
// versioned folders (/usr/lib/postgresql/N/bin, newest first), and takes the
// first pair of a supported version.
func FindBinaries() (Binaries, error) {
	var dirs []string
	if p, err := exec.LookPath("pg_ctl"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		dirs = append(dirs, filepath.Dir(p))
	}
	debian, _ := filepath.Glob(debianBinDirs)
	slices.SortFunc(debian, func(a, b string) int { return majorOf(b) - majorOf(a) })
	dirs = append(dirs, debian...)

	var tooOld []string
	for _, dir := range dirs {
		b := Binaries{Initdb: filepath.Join(dir, "initdb"), PgCtl: filepath.Join(dir, "pg_ctl")}
		if !executable(b.Initdb) || !executable(b.PgCtl) {
			continue
		}
		out, err := exec.Command(b.PgCtl, "--version").Output()
		if err != nil {
			continue
		}
		m := versionRE.FindSubmatch(out)
		if m == nil {
			continue
		}
		b.Version, _ = strconv.Atoi(string(m[1]))
		if b.Version < MinVersion {
			tooOld = append(tooOld, fmt.Sprintf("%s (PostgreSQL %d)", dir, b.Version))
			continue
		}
		b.LibDir = filepath.Join(filepath.Dir(dir), "lib")
		return b, nil
	}
	if len(tooOld) > 0 {
		return Binaries{}, fmt.Errorf("PostgreSQL %d or newer is needed, found only %v: install a newer postgresql package, or set DATABASE_URL", MinVersion, tooOld)
	}
	return Binaries{}, ErrNoBinaries
}

// majorOf reads N from /usr/lib/postgresql/N/bin.
func majorOf(binDir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return n
}

func executable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

// HasLibrary reports whether the server has the extension library name
// (citus, pg_stat_statements) installed.
func (b Binaries) HasLibrary(name string) bool { return b.hasLibrary(name) }

func (b Binaries) hasLibrary(name string) bool {
	_, err := os.Stat(filepath.Join(b.LibDir, name+".so"))
	return err == nil
}
