package handlers

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// The downloads directory, as warrior HQ served it: files an operator puts
// in the data directory's downloads/ (Config.Downloads) served at /downloads/,
// folders listed as nginx's autoindex lists them, and the file every
// warrior4 machine fetches at boot to check its network built in
// (docs/PROTOCOL.md, "Warrior HQ").

// NetworkCheckPath is the file warrior4's network check fetches, over
// HTTP and over HTTPS: it wants 200 at once (it follows no redirect) and
// exactly networkCheckBody.
const NetworkCheckPath = "/downloads/network_check/hello.html"

// networkCheckBody is the body the check compares byte for byte.
const networkCheckBody = "<html><head></head><body>Hello.</body></html>\n"

// downloadsMaxListed bounds a folder's listing: past it the first ones in
// the listing's order are listed, and a last line says how many more
// there are, counted up to downloadsMaxRead.
const (
	downloadsMaxListed = 1000
	downloadsMaxRead   = 10_000
)

// downloads serves GET /downloads/...: dir is the operator's folder ("" or
// missing: only the built-in check file); started dates the built-in
// entries.
type downloads struct {
	dir     string
	started time.Time
}

// downloadsShow answers GET /downloads/...: the check file at once, a file
// from disk (no database, no processor to speak of: outside the readers'
// turns), a folder's listing in the readers' turns (it reads the disk,
// and may be long).
func (h *Handler) downloadsShow(w http.ResponseWriter, r *http.Request) error {
	d := h.downloads
	rel := strings.TrimPrefix(r.URL.Path, "/downloads/")
	if r.URL.Path == NetworkCheckPath {
		// Built in, whatever the folder holds: a file of the same name
		// with another body would fail every warrior's check.
		w.Header().Set("Cache-Control", "no-cache")
		http.ServeContent(w, r, "hello.html", d.started, strings.NewReader(networkCheckBody))
		return nil
	}
	name := strings.TrimSuffix(rel, "/")
	for part := range strings.SplitSeq(name, "/") {
		// Hidden files (.htpasswd, an editor's leftovers) are neither
		// listed nor served, as nginx lists none.
		if strings.HasPrefix(part, ".") {
			return errorf(http.StatusNotFound, "not-found", "no such file")
		}
	}
	if name == "" {
		name = "."
	}
	root := d.root()
	if root != nil {
		defer root.Close()
	}
	info, err := d.stat(root, name)
	if err != nil {
		return err
	}
	if !info.IsDir() {
		if strings.HasSuffix(rel, "/") {
			return errorf(http.StatusNotFound, "not-found", "no such folder")
		}
		f, err := root.Open(name)
		if err != nil {
			return errorf(http.StatusNotFound, "not-found", "no such file")
		}
		defer f.Close()
		// An appliance of gigabytes takes a slow link longer than the
		// server's WriteTimeout: the deadline moves on as long as the
		// client keeps reading, and a client that stops is cut off. (The
		// request, a GET, was read whole: no read deadline is needed
		// until the next, which the idle timeout bounds.)
		rc := http.NewResponseController(w)
		_ = rc.SetReadDeadline(time.Time{})
		http.ServeContent(progressWriter{w, rc}, r, info.Name(), info.ModTime(), f)
		return nil
	}
	if rel != "" && !strings.HasSuffix(rel, "/") {
		http.Redirect(w, r, r.URL.EscapedPath()+"/", http.StatusMovedPermanently)
		return nil
	}
	return h.reader(func(w http.ResponseWriter, r *http.Request) error {
		entries, more, err := d.list(root, name)
		if err != nil {
			return err
		}
		body := autoindex(r.URL.Path, entries, more)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-cache")
		_, err = w.Write(body)
		return err
	})(w, r)
}

// progressWriter pushes the answer's write deadline WriteTimeout past
// each write.
type progressWriter struct {
	http.ResponseWriter
	rc *http.ResponseController
}

func (p progressWriter) Write(b []byte) (int, error) {
	_ = p.rc.SetWriteDeadline(time.Now().Add(WriteTimeout))
	return p.ResponseWriter.Write(b)
}

// root opens the operator's folder: a name looked up in it cannot leave it
// (by "..", or by a symbolic link pointing outside). nil when there is
// none.
func (d downloads) root() *os.Root {
	if d.dir == "" {
		return nil
	}
	root, err := os.OpenRoot(d.dir)
	if err != nil {
		return nil
	}
	return root
}

// builtinDir is the folder of the built-in check file.
const builtinDir = "network_check"

// stat is what name is: in the operator's folder, or one of the built-in
// folders (the downloads' root, network_check).
func (d downloads) stat(root *os.Root, name string) (fs.FileInfo, error) {
	if root != nil {
		info, err := root.Stat(name)
		if err == nil && (info.IsDir() || info.Mode().IsRegular() && name != builtinDir) {
			return info, nil
		}
	}
	if name == "." || name == builtinDir {
		return builtinInfo{name: path.Base(name), dir: true, mod: d.started}, nil
	}
	return nil, errorf(http.StatusNotFound, "not-found", "no such file")
}

// list reads the folder name: its entries, the built-in ones among them,
// and how many more there are than are listed. Hidden files, entries
// whose link leads out of the folder and what is neither a file nor a
// folder are left out.
func (d downloads) list(root *os.Root, name string) ([]fs.FileInfo, int, error) {
	var infos []fs.FileInfo
	if root != nil {
		if f, err := root.Open(name); err == nil {
			defer f.Close()
			names, err := f.Readdirnames(downloadsMaxRead)
			if err != nil && !errors.Is(err, io.EOF) {
				return nil, 0, err
			}
			for _, n := range names {
				if strings.HasPrefix(n, ".") {
					continue
				}
				// Stat, not Lstat: a link within the folder is listed
				// as what it leads to, one leading out not at all.
				info, err := root.Stat(path.Join(name, n))
				if err != nil || !info.IsDir() && !info.Mode().IsRegular() {
					continue
				}
				infos = append(infos, namedInfo{info, n})
			}
		}
	}
	// The built-in entries: the check file's folder at the root (the
	// operator's when it is a folder), the check file in it.
	switch name {
	case ".":
		if !slices.ContainsFunc(infos, func(i fs.FileInfo) bool { return i.Name() == builtinDir && i.IsDir() }) {
			infos = slices.DeleteFunc(infos, func(i fs.FileInfo) bool { return i.Name() == builtinDir })
			infos = append(infos, builtinInfo{name: builtinDir, dir: true, mod: d.started})
		}
	case builtinDir:
		infos = slices.DeleteFunc(infos, func(i fs.FileInfo) bool { return i.Name() == path.Base(NetworkCheckPath) })
		infos = append(infos, builtinInfo{name: path.Base(NetworkCheckPath), size: int64(len(networkCheckBody)), mod: d.started})
	}
	// nginx's order: folders first, then by name, byte by byte.
	slices.SortFunc(infos, func(a, b fs.FileInfo) int {
		if a.IsDir() != b.IsDir() {
			if a.IsDir() {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Name(), b.Name())
	})
	more := 0
	if len(infos) > downloadsMaxListed {
		more = len(infos) - downloadsMaxListed
		infos = infos[:downloadsMaxListed]
	}
	return infos, more, nil
}

// namedInfo is a file's information under the name its folder gives it
// (a link's, not its target's).
type namedInfo struct {
	fs.FileInfo
	name string
}

func (n namedInfo) Name() string { return n.name }

// builtinInfo describes a built-in file or folder.
type builtinInfo struct {
	name string
	dir  bool
	size int64
	mod  time.Time
}

func (b builtinInfo) Name() string       { return b.name }
func (b builtinInfo) Size() int64        { return b.size }
func (b builtinInfo) ModTime() time.Time { return b.mod }
func (b builtinInfo) IsDir() bool        { return b.dir }
func (b builtinInfo) Sys() any           { return nil }
func (b builtinInfo) Mode() fs.FileMode {
	if b.dir {
		return fs.ModeDir | 0o555
	}
	return 0o444
}

// autoindexNameWidth is the column nginx's autoindex gives names.
const autoindexNameWidth = 50

// autoindex is a folder's listing in the HTML of nginx's autoindex (with
// charset utf-8), byte for byte: what scripts that read warrior HQ's
// folders parse. more, when positive, adds a line saying how many more
// entries there are.
func autoindex(urlPath string, entries []fs.FileInfo, more int) []byte {
	var b bytes.Buffer
	title := escapeHTMLText(urlPath)
	fmt.Fprintf(&b, "<html>\r\n<head><title>Index of %s</title></head>\r\n<body>\r\n<h1>Index of %s</h1><hr><pre><a href=\"../\">../</a>\r\n", title, title)
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() {
			name += "/"
		}
		b.WriteString(`<a href="`)
		b.WriteString(escapeURIComponent(e.Name()))
		if e.IsDir() {
			b.WriteByte('/')
		}
		b.WriteString(`">`)
		shown := strings.ToValidUTF8(name, "\uFFFD")
		n := utf8.RuneCountInString(shown)
		if n > autoindexNameWidth {
			runes := []rune(shown)[:autoindexNameWidth-3]
			b.WriteString(escapeHTMLText(string(runes)))
			b.WriteString("..&gt;</a>")
		} else {
			b.WriteString(escapeHTMLText(shown))
			b.WriteString("</a>")
			b.WriteString(strings.Repeat(" ", autoindexNameWidth-n))
		}
		b.WriteString(" ")
		b.WriteString(e.ModTime().UTC().Format("02-Jan-2006 15:04"))
		if e.IsDir() {
			fmt.Fprintf(&b, " %19s\r\n", "-")
		} else {
			fmt.Fprintf(&b, " %19d\r\n", e.Size())
		}
	}
	if more > 0 {
		fmt.Fprintf(&b, "(%d more not listed)\r\n", more)
	}
	b.WriteString("</pre><hr></body>\r\n</html>\r\n")
	return b.Bytes()
}

// escapeHTMLText escapes what nginx escapes in a listing's text.
func escapeHTMLText(s string) string {
	return htmlTextEscaper.Replace(s)
}

var htmlTextEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;")

// escapeURIComponent escapes every byte but the unreserved ones (RFC 3986:
// letters, digits, "-", ".", "_", "~"), as nginx escapes a listing's
// links.
func escapeURIComponent(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}
