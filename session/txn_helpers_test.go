package session_test

import "flag"

// txSeed replays the randomized transaction tests (txn_*_test.go); 0 takes
// a time-based seed, which testkit.Seed logs.
var txSeed = flag.Int64("txn.seed", 0, "seed of the randomized transaction tests (0: time-based)")
