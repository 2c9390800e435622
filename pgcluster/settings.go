package pgcluster

import (
	"fmt"
	"maps"
	"slices"
	"syscall"
)

// defaultSettings tunes the embedded cluster for the tracker's queue workload:
// many short write transactions on a few hot tables. synchronous_commit stays
// on: an OK to a warrior means the completion is on disk.
func defaultSettings(bins Binaries) map[string]string {
	ram := totalMemory()
	mb := func(n uint64) string { return fmt.Sprintf("%dMB", n>>20) }
	s := map[string]string{
		"max_connections":    "200",
		"synchronous_commit": "on",
		// A quarter of the memory, as PostgreSQL's own guidance says, but
		// not more than the hot tables of a very large project need.
		"shared_buffers":       mb(clamp(ram/4, 128<<20, 8<<30)),
		"effective_cache_size": mb(clamp(ram/2, 256<<20, 64<<30)),
		"work_mem":             "16MB",
		"maintenance_work_mem": mb(clamp(ram/16, 64<<20, 1<<30)),
		// Fewer checkpoints under a sustained stream of completions.
		"max_wal_size":       "4GB",
		"min_wal_size":       "512MB",
		"checkpoint_timeout": "15min",
		"wal_compression":    "on",
		// Claims delete from the head of the todo index all the time: vacuum
		// often and unthrottled so dead entries never pile up in front of
		// the next claimable row (the hot tables add per-table settings).
		"autovacuum_naptime":           "10s",
		"autovacuum_vacuum_cost_limit": "2000",
		// Short OLTP statements: JIT compilation only adds latency.
		"jit":                         "off",
		"random_page_cost":            "1.1",
		"effective_io_concurrency":    "200",
		"timezone":                    "'UTC'",
		"log_timezone":                "'UTC'",
		"log_min_duration_statement":  "1000",
		"log_checkpoints":             "on",
		"log_autovacuum_min_duration": "'10s'",
		"track_io_timing":             "on",
	}
	if bins.hasLibrary("pg_stat_statements") {
		s["shared_preload_libraries"] = "'pg_stat_statements'"
	}
	return s
}

func totalMemory() uint64 {
	var info syscall.Sysinfo_t
	if err := syscall.Sysinfo(&info); err != nil {
		return 1 << 30
	}
	return info.Totalram * uint64(info.Unit)
}

func clamp(v, lo, hi uint64) uint64 { return min(max(v, lo), hi) }

func sortedKeys(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }
