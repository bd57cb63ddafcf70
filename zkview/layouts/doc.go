// Package layouts lays the systems' layouts over a zkview.Watcher's
// queues: what package systems recognises (Kafka's controller, Solr's
// overseer election, Hadoop HA's active lock, HBase's masters, named
// single barriers, the library recipes that are no lock) read through
// the Watcher, its recognitions applied to the queues at every build
// and its leader-record findings told as leader-mismatch warnings.
//
// It is an Overlay the caller hands the Watcher (zkview.Options{Systems:
// layouts.New}); the Watcher owns that interface and hands it a
// zkview.Host (its reads and watches through its in-flight pool, its
// session's state, a way to say that the layouts changed), tells it each
// watch's events, and hands it the queues it built. Imports point one
// way: layouts imports zkview, zkview/queue, systems and model; zkview
// never imports layouts, and nothing here holds the Watcher or its lock.
//
// Locking: a layer's state is behind its own mutex. Apply runs under
// the Watcher's lock and takes the layer's, so the layer never calls
// the Host back while holding its own (Host.Changed takes the Watcher's
// lock): it collects the changes to tell and tells them once it lets go.
//
// # Files
//
//   - layouts.go: layer (New), the full read of the roots and paths
//     (readSystems, every systemsEvery while the Watcher runs, once for
//     Load), and applySystems, the recognitions laid over the queues.
//   - live.go: the recognitions followed live between full reads: a
//     watch event at a path one covers re-reads it at once; a record no
//     watch covers gets a persistent watch of its own; a named barrier
//     read again at once when the root watch tells its node came or
//     went.
//   - barriers.go: the single barriers Options.Barriers names: set or
//     open, their waiters from the server view.
//   - recipes.go: the library recipes that are no lock (queues, groups,
//     counters, leases): their types, their nodes' parts, the lock
//     warnings that do not apply to them.
package layouts
