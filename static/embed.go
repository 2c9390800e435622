// Package static holds the stylesheets and scripts the pages load, embedded
// into the binary: nothing is fetched from a CDN at run time.
package static

import "embed"

//go:embed *.css *.js
var FS embed.FS
