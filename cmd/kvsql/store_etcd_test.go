package main

// The command's tests run `kvsql check --store etcd://...` in process, so
// they link the etcd engine whatever the build tags.
import _ "github.com/kvsql/kvsql/kv/etcd"
