//go:build etcd

// This file is built only with -tags etcd: it links etcd's client (its
// gRPC API and protobuf types, zap), 113 packages and about 7 MB more.
// Importing kv/etcd registers the store etcd://HOST:PORT,... with
// kv.OpenStore (docs/distributed.md).

package main

import _ "github.com/kvsql/kvsql/kv/etcd"
