package kept_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"tracker/kept"
)

// A value is read once per ttl, a failure is kept by no one, and at most
// max values are kept.
func TestReadsOncePerTTL(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := kept.New[int, string](time.Second, 4)
	now := time.Unix(1e9, 0)
	c.SetClock(func() time.Time { return now })
	reads := 0
	read := func(v string) func(context.Context) (string, error) {
		return func(context.Context) (string, error) { reads++; return v, nil }
	}
	get := func(key int, r func(context.Context) (string, error)) string {
		t.Helper()
		v, err := c.Get(ctx, key, r)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}

	if v := get(1, read("a")); v != "a" || reads != 1 {
		t.Fatalf("first get: %q after %d reads", v, reads)
	}
	now = now.Add(999 * time.Millisecond)
	if v := get(1, read("b")); v != "a" || reads != 1 {
		t.Fatalf("within the ttl: %q after %d reads, want the kept a", v, reads)
	}
	if v := get(2, read("c")); v != "c" || reads != 2 {
		t.Fatalf("another key: %q after %d reads", v, reads)
	}
	now = now.Add(time.Millisecond)
	if v := get(1, read("b")); v != "b" || reads != 3 {
		t.Fatalf("after the ttl: %q after %d reads, want b read again", v, reads)
	}

	failed := errors.New("database away")
	now = now.Add(time.Second)
	if _, err := c.Get(ctx, 1, func(context.Context) (string, error) { return "", failed }); !errors.Is(err, failed) {
		t.Fatalf("a failed read: %v", err)
	}
	if v := get(1, read("d")); v != "d" {
		t.Fatalf("after a failed read: %q, want it read again", v)
	}

	for k := range 20 {
		get(100+k, read(fmt.Sprint(k)))
		if n := c.Len(); n > 4 {
			t.Fatalf("%d values kept, at most 4", n)
		}
	}

	none := kept.New[int, string](0, 4)
	reads = 0
	for range 3 {
		if _, err := none.Get(ctx, 1, read("x")); err != nil {
			t.Fatal(err)
		}
	}
	if reads != 3 || none.Len() != 0 {
		t.Fatalf("a ttl of 0: %d reads for 3 gets, %d kept", reads, none.Len())
	}
}

// Requests for one key while it is read share that read; keys that print
// alike but differ are never given each other's value.
func TestOneReadShared(t *testing.T) {
	t.Parallel()
	type key struct{ a, b string }
	c := kept.New[key, string](time.Minute, 10)
	release := make(chan struct{})
	started := make(chan struct{})
	var mu sync.Mutex
	reads := 0
	slow := func(v string) func(context.Context) (string, error) {
		return func(context.Context) (string, error) {
			mu.Lock()
			reads++
			first := reads == 1
			mu.Unlock()
			if first {
				close(started)
			}
			<-release
			return v, nil
		}
	}
	k := key{"x", "y z"}
	var wg sync.WaitGroup
	got := make([]string, 5)
	wg.Add(1)
	go func() { defer wg.Done(); got[0], _ = c.Get(context.Background(), k, slow("first")) }()
	<-started
	for i := 1; i < len(got); i++ {
		wg.Add(1)
		go func() { defer wg.Done(); got[i], _ = c.Get(context.Background(), k, slow("another")) }()
	}
	// The key that prints alike (x y z) is read on its own, at once.
	if v, err := c.Get(context.Background(), key{"x y", "z"}, func(context.Context) (string, error) { return "other", nil }); err != nil || v != "other" {
		t.Fatalf("a key printed alike: %q %v", v, err)
	}
	close(release)
	wg.Wait()
	for i, v := range got {
		// A late Get may find the value kept, or join the read: either way
		// the first read's value, never a read of its own.
		if v != "first" {
			t.Fatalf("get %d: %q, want the shared read's value", i, v)
		}
	}
	if reads != 1 {
		t.Fatalf("%d reads for one key asked together", reads)
	}
}
