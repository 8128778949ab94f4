// Package clienttest drives real PostgreSQL client libraries (SQLAlchemy,
// pgjdbc, node-postgres and, in Go, GORM and sqlx) against kvsql and
// against PostgreSQL 15, asserting their results and comparing what each
// prints on both, and runs sysbench's oltp_read_write against kvsql. It
// lives apart from the server's packages so that the server binary does
// not depend on the Go clients. Each test skips, saying why, when its
// client is not installed (.ci/run installs them).
package clienttest
