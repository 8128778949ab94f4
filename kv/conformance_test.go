package kv_test

import (
	"testing"

	"github.com/kvsql/kvsql/kv/kvtest"
)

// TestConformance runs kvtest's conformance suite on the memory and Pebble
// engines (kv/tikv runs it on TiKV).
func TestConformance(t *testing.T) { kvtest.Conformance(t, kvtest.Builtin()) }

// TestDifferential runs kvtest's randomized differential test on the
// memory and Pebble engines and a Txn.
func TestDifferential(t *testing.T) { kvtest.Differential(t, kvtest.Builtin(), 3000) }
