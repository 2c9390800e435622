// Command tracker runs the tracker: its web server (warrior protocol, public
// pages, admin panel), its background jobs and its operator commands.
package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr}, os.Getenv))
}

type stdio struct {
	in       io.Reader
	out, err io.Writer
}
