//go:build !bench

package main

import (
	"errors"
	"strings"
)

// runBench stands in for "kvsql bench" in the default build, which leaves
// the benchmark suite and the SQLite it links out of the server (bench.go).
func runBench(args []string) error {
	return errors.New("this kvsql was built without the benchmark suite (it links SQLite); run it with\n\n    " +
		strings.Join(append([]string{"go run -tags bench ./cmd/kvsql bench"}, args...), " "))
}
