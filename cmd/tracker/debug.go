package main

import (
	"net/http"
	"net/http/pprof"
)

// debugMux serves Go's profiles of the process (net/http/pprof) on the
// listener --debug-addr names, apart from the tracker's routes: where a
// process's CPU goes under load (HTTP, JSON, the batcher, the driver) is
// read from a CPU profile, `go tool pprof
// http://ADDR/debug/pprof/profile?seconds=30`. Off unless asked for; the
// profiles tell a process's internals and cost CPU while they are taken,
// so the address is a loopback or a private one, never a public one.
func debugMux() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /debug/pprof/", pprof.Index)
	mux.HandleFunc("GET /debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("GET /debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("GET /debug/pprof/trace", pprof.Trace)
	return mux
}
