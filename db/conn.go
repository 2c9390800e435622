package db

// Conn is what q runs its statements on (a pool, a connection or a
// transaction), for the statements no query file holds: tests' scratch
// tables and EXPLAIN.
func Conn(q *Queries) DBTX { return q.db }
