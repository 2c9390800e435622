// Package drivers picks the driver of a database (see db.Driver): the one
// place that asks which kind it is.
package drivers

import (
	"context"
	"sync"

	"tracker/db"
	"tracker/db/citus"
)

// Of is the driver of the database x runs on: Citus's on a Citus
// coordinator with workers, PostgreSQL's otherwise. It asks the database
// each time: callers that run often keep the answer (Known).
func Of(ctx context.Context, x db.DBTX) (db.Driver, error) {
	on, err := db.Citus(ctx, x)
	if err != nil {
		return nil, err
	}
	if on {
		return citus.Driver, nil
	}
	return db.Postgres, nil
}

// Known keeps a database's driver once asked: the first call asks, and a
// call after a failed one asks again. Its zero value is ready.
type Known struct {
	mu sync.Mutex
	d  db.Driver
}

// Of is the driver of the database x runs on (see Of), asked once.
func (k *Known) Of(ctx context.Context, x db.DBTX) (db.Driver, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.d == nil {
		d, err := Of(ctx, x)
		if err != nil {
			return nil, err
		}
		k.d = d
	}
	return k.d, nil
}
