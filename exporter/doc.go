// Package exporter turns the live model into Prometheus metrics for
// `zklock export`: a Collector reads the latest snapshot at each scrape
// (per-path series for the top lock parents only, aggregates over all of
// them, the connection and the build) and counts handoffs between
// scrapes; Serve serves it over HTTP. Metric names and meanings are in
// docs/metrics.md; the alert rules in deploy/prometheus/ use them.
//
// It reads model snapshots only: the Watcher that makes them, the flags
// and the listening socket are cmd's. It must not import cmd, zkview or
// a ZooKeeper client.
//
// # Files
//
//   - collector.go: Collector (New, Follow, Describe, Collect), Config and
//     Build, the per-path and model-wide descriptors, one parent's values
//     (lockMetrics).
//   - top.go: a wide root (a lock per entity): the aggregate series over
//     every parent and the choice of the top ones (topParents).
//   - serve.go: Serve, /metrics over HTTP until ctx ends.
package exporter
