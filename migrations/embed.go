// Package migrations holds the schema as golang-migrate SQL files, embedded
// into the binary. sqlc reads the same folder as its schema, so the queries
// in db/queries are checked against exactly what the migrations create.
package migrations

import "embed"

// FS holds every NNNNNN_name.up.sql and .down.sql file of this folder.
//
//go:embed *.sql
var FS embed.FS
