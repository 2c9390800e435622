package scenarios

import (
	"strings"
	"testing"

	"tracker/bench/nodes"
)

// What each node read, flushed and held during a run, per second of it.
func TestReadsDuring(t *testing.T) {
	if got := readsDuring(nil, nil, 10); got != "not measured (the tracker's embedded cluster)" {
		t.Errorf("no nodes: %q", got)
	}
	before := []nodes.Stat{{Name: "coordinator", BlocksRead: 100, ReadMS: 5, WALSyncs: 10, WALSyncMS: 20}, {Name: "worker1"}}
	after := []nodes.Stat{
		{Name: "coordinator", BlocksRead: 1100, ReadMS: 25, WALSyncs: 30, WALSyncMS: 60, PeakMemory: 2 << 30, CacheMemory: 1 << 29},
		{Name: "worker1", BlocksRead: 50, OOMKills: 1},
	}
	want := "coordinator 100 blocks/s, 2 ms of reads a second, 2 log flushes a second of 2.0 ms, peak memory 2.00 GiB (page cache 0.50 GiB at the end); " +
		"worker1 5 blocks/s, 0 ms of reads a second, 1 processes killed for the memory limit so far"
	if got := readsDuring(before, after, 10); got != want {
		t.Errorf("readsDuring:\n got %s\nwant %s", got, want)
	}
}

func TestBytesPerName(t *testing.T) {
	sizes := map[string][2]tableBytes{
		"worker2": {{total: 2000, indexes: 1000}, {total: 1000, indexes: 500}},
		"worker1": {{total: 4000, indexes: 2000}, {total: 2000, indexes: 1000}},
	}
	got := bytesPerName(sizes, 10)
	if !strings.HasPrefix(got, "worker1 600 B (seen 400, of it indexes 200; todo 200, of it indexes 100;") || !strings.Contains(got, ", worker2 300 B") {
		t.Errorf("bytesPerName: %s", got)
	}
}
