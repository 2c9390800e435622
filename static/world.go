package static

import _ "embed"

// LandPath is the outline of the world's land as an SVG path in a 360×180
// equirectangular frame (x = longitude + 180, y = 90 - latitude): Natural
// Earth's 1:110m land, public domain, made from world/land-110m.json by
// cmd/mapgen. world/LICENSE says where it comes from.
//
//go:embed world/land-110m.svgpath
var LandPath string

//go:generate go run ../cmd/mapgen -in world/land-110m.json -out world/land-110m.svgpath
