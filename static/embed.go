// Package static holds the stylesheets and scripts the pages load, the
// site's icon and its robots.txt, embedded into the binary: nothing is
// fetched from a CDN at run time.
package static

import "embed"

//go:embed *.css *.js favicon.svg favicon.ico robots.txt
var FS embed.FS
