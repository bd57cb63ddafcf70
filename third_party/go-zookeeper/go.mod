module github.com/go-zookeeper/zk

// zklock patch: 1.19 for sync/atomic.Int64 and atomic.Bool (upstream: go 1.13).
go 1.19
