//go:build tikv

// This file is built only with -tags tikv: it links client-go (gRPC,
// protobuf, the PD client and etcd's client), which makes the binary
// about half again as large (docs/distributed.md has the figures).
// Importing kv/tikv registers the stores tikv://PD1,PD2,... and
// tikv-mock://REGIONS (an in-process mock cluster, for trying it out)
// with kv.OpenStore.

package main

import _ "github.com/kvsql/kvsql/kv/tikv"
