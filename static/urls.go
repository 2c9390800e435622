package static

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"sync"
)

// versions are the embedded files' fingerprints: a short hash of each
// file's bytes, read once.
var versions = sync.OnceValue(func() map[string]string {
	v := map[string]string{}
	fs.WalkDir(FS, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(FS, name)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		v[name] = hex.EncodeToString(sum[:])[:12]
		return nil
	})
	return v
})

// URL is where a page loads the embedded file name from: its path with the
// file's fingerprint, so a browser may keep it for good (Fresh) and a new
// binary's file is a new URL.
func URL(name string) string {
	return "/static/" + name + "?v=" + Version(name)
}

// Version is the fingerprint of the embedded file name ("" when there is
// none such).
func Version(name string) string { return versions()[name] }
