// Command tracker runs the tracker: its web server (warrior protocol, public
// pages, admin panel), its background jobs and its operator commands.
package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
)

// memoryLimit is the soft limit of the Go heap unless $GOMEMLIMIT says
// otherwise: the garbage collector works harder as the heap nears it,
// instead of letting it grow to twice what is live (a board of every
// downloader of a big project is rendered from a few tens of MB).
const memoryLimit = 96 << 20

func main() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr}, os.Getenv))
}

type stdio struct {
	in       io.Reader
	out, err io.Writer
}
