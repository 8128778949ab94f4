package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/kvsql/kvsql/index"
	"github.com/kvsql/kvsql/kv"
)

// errInconsistent is returned by `kvsql check` when it found problems, so
// that the program exits with status 1.
var errInconsistent = errors.New("check: the store is damaged or inconsistent")

// runCheck implements `kvsql check [--data DIR]`: it verifies that every
// index entry points at a live master row and every master row has all its
// index entries, printing each mismatch. It first reads the write-ahead
// logs (kv.CheckWAL) and reports damage that would lose commits.
func runCheck(args []string) error { return checkCmd(args, os.Stdout) }

func checkCmd(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	data := fs.String("data", "./kvsql-data", "data directory")
	if err := fs.Parse(args); err != nil {
		return err
	}
	// A damaged write-ahead log is reported as a problem of the store:
	// opening it would replay the log only up to the damage.
	if err := kv.CheckWAL(nil, *data); err != nil {
		var dmg *kv.WALDamageError
		if errors.As(err, &dmg) {
			fmt.Fprintln(stdout, err)
			return fmt.Errorf("%w: damaged write-ahead log", errInconsistent)
		}
		return err
	}
	e, c, err := openStore(*data)
	if err != nil {
		return err
	}
	defer e.Close()
	snap := e.NewSnapshot()
	defer snap.Close()
	probs, err := index.Check(snap, c)
	if err != nil {
		return err
	}
	for _, p := range probs {
		fmt.Fprintln(stdout, p)
	}
	if len(probs) > 0 {
		return fmt.Errorf("%w: %d problem(s)", errInconsistent, len(probs))
	}
	fmt.Fprintln(stdout, "ok")
	return nil
}
