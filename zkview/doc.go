// Package zkview follows ZooKeeper for the console and the commands: a
// Watcher owns every watch on the lock parents (persistent recursive
// watches, children watches as the fallback), reads each new node once,
// merges listings and changes into each queue's state through lockops/ordering's
// ordering function (never a copy of it), asks the members (memberview:
// their AdminServer or their four-letter words) who each session is,
// which watches really exist and how alive each session is, and
// publishes immutable model.Snapshots with the model.Changes it saw.
//
// The packages around it, and why the cut is there (imports point one
// way, left to right):
//
//	ui ──► timeline ──► model ──► lockops/ordering
//	 │                   ▲
//	 └──► sessions ──────┘
//	cmd ─► zkview/layouts ─► zkview ─► zkview/queue, sessions, model, memberview, fourletter, lockops, lockops/ordering, third_party/zk
//	             └──────► systems
//
// What each holds:
//
//   - model: the published picture and the pure rules that read it (no
//     I/O; every reader needs it, none may hold a connection);
//   - sessions: the wait-for graph over sessions (the Watcher keeps one
//     and puts its cycles in every snapshot);
//   - timeline: changes between snapshots, recordings and their player;
//   - fourletter: the four-letter-word client and parsers;
//   - memberview: what each member knows (sessions' member, client,
//     last heard, timeout, expiry; watches), from whichever source it
//     allows, its clock tied to ours;
//   - zkview/queue: the model of one lock parent between listings (its
//     records, what a listing or a change did, the Queue built from it
//     with its links and warnings, semaphores composed); pure, so that
//     changing how a queue is read or judged needs no ZooKeeper and no
//     Watcher. Only zkview and zkview/layouts import it;
//   - zkview/layouts: the systems' layouts (Kafka, Solr, Hadoop HA,
//     barriers, the library recipes that are no lock) read through a
//     Watcher's Host and laid over its queues at each build: an Overlay
//     the caller hands the Watcher (Options.Systems). It imports zkview;
//     zkview never imports it.
//
// zkview is what holds a ZooKeeper session's watches and does the
// reading; ui never imports it (the console gets Updates through an
// interface that cmd wires), and zkview never imports ui or cmd.
//
// # API
//
//   - Watch(ctx, session, Options) starts a Watcher: Updates() delivers
//     the newest Snapshot with the Changes since the previous Update
//     (never a backlog: a slow consumer gets one merged Update, the
//     oldest changes dropped and counted), Snapshot() reads the model now,
//     Refresh() polls the servers now, Close() stops and closes Updates.
//   - Load(ctx, session, Options) reads one Snapshot without setting any
//     watch (`zklock ls`), with one server poll when Options.ServerView.
//   - ConfirmCycles judges a one-off read's cycles over sessions by
//     reading again.
//
// # Files
//
//   - watcher.go: Watcher, Load (its cycles dated by what the read's
//     pzxids prove: proveCycles), the connection state, and the
//     in-flight pool every request goes through (pooled); the
//     requests themselves are the Session's (lockops/requests.go: bounded
//     by ctx, paths as the user sees them), never the raw connection.
//   - cause.go: tellExpiries, a departure told session-lost "expired"
//     where the servers' last view of its session proves it.
//   - pump.go: pump, the update pump: a snapshot built when the model
//     changed, spaced by what building costs (publishBudget), one
//     pending Update merged while the consumer is busy.
//   - paths.go: pathWatch, one watched path and its goroutine (its
//     children watch, absent and NoAuth paths, discovery under roots,
//     fetching new nodes); the Watcher's lock guards it, and the
//     Watcher is handed to it, never kept in it.
//   - recursive.go: recursiveWatch, the same path followed by one
//     persistent recursive watch (ZooKeeper 3.6+ addWatch, through the patched go-zookeeper in
//     third_party), its first listing sent right behind the addWatch
//     (one round trip): each batch of events applied at once without a
//     listing; within auditSoon after it (at most once per auditSoon) one
//     exists as a barrier that tells whether the server left a change
//     unreported; a listing again after a reconnection, a new session or
//     an overflow; children watches when the server refuses addWatch.
//     Its creates and deletes go to the queue's Tracker as changes where
//     its shape allows, as a listing where it does not (applyDelta).
//   - rootwatch.go: rootWatch, a whole root followed by one persistent
//     recursive watch: the paths found below it have no goroutine and no
//     watch of their own; a pool of workers lists them, each event goes
//     to the path it names a child of (see docs/internals.md, "A root
//     watched whole").
//   - discover.go: the children a path follows (discovery under a
//     root): its watch's names and the Watcher's paths, not a set of
//     their own; a root's names share their paths' bytes; a change
//     below a root's non-lock parent taken without a listing
//     (discoveryDelta).
//   - childset.go: childSet, a path's children as its watch's events
//     leave them (a short sorted slice, a map beyond a few).
//   - held.go: heldEvents, the watch events received and not yet in
//     the model, counted at each build.
//   - huge.go: hugeLists, the huge queues' last listings (time, merge
//     cost), kept beside the Watcher, spacing their next listings.
//   - rootread.go: the one-shot read of a root (Load) through the same
//     queue and workers, no watch set; each root's first-read progress
//     (Snapshot.Discovery, Options.LoadProgress).
//   - rebuild.go: the Snapshot built at each publish from every queue's
//     Tracker (queue.Build, or queue.BuildChanged where only changes
//     separate a queue from its last build), the Overlay laid over them,
//     the warnings raised and cleared told as events; the wait-for
//     graph judged without the Watcher's lock (build).
//   - semwatch.go: semaphores, the Watcher's registry: recognising a
//     semaphore parent from its listing,
//     watching its leases/ and locks/ (or Kazoo's <path>-__lock__) as
//     auxiliary paths with no queue of their own, reading Kazoo's leases
//     and max_leases, and composing it at build time.
//   - serverview.go: serverPoller, a memberview.Poller on every member
//     (the own session's request ties their clocks), turned into the
//     queue.ServerView: clients, watches, each session's model.Health.
//   - overlay.go: Overlay, what the caller lays over the queues
//     (Options.Systems), and Host, what the Watcher hands it: reads and
//     watches through the pool, the session's state, a way to tell
//     that it changed. The Watcher tells it each watch's events and
//     hands it the queues it built; it never holds the Watcher.
//   - cycles.go: cycleTimers, the Watcher's sessions.Graph brought up to date at each
//     build (without the Watcher's lock), its cycles told as events, a publish again when a young
//     cycle comes of age; ConfirmCycles, with the leader mismatches'
//     dating across two reads (YoungMismatches, RedateMismatches).
//   - options.go: Options (what to watch) and their defaults.
//
// # An event's trip
//
// Data go one way, from the watch down to the published snapshot: a
// path keeps no pointer to its Watcher, nor a recursiveWatch to its path;
// the goroutine that owns a path (its own, or one of its root's workers)
// hands the Watcher and the path to what it calls, and what is called
// answers with its result.
//
//   - rootwatch.go: a root's follow receives a batch of events, tells
//     the Overlay, and routes each event to the path it names a child of
//     (dispatch): the event waits in the root (rootWatch.events), the
//     path in the root's work queue.
//   - rootwatch.go, work: a worker takes the path and hands it its
//     listing (recursive.go: read, takeListing) or its events
//     (applyEvents: a change below a parent that is no queue taken in
//     discover.go, discoveryDelta; a queue's in applyDelta).
//   - paths.go, applyListing (applyDelta too, when a change does not
//     fit): the listing is merged into the path's queue.Tracker, new nodes
//     read first; the children that may lead to lock parents are
//     registered with the Watcher (discover.go, addPathLocked) and
//     returned (foundPaths) up to the worker, which queues them in its
//     root (attach): the merge never calls the root.
//   - The merge marks the model dirty and kicks the pump (pump.go),
//     which builds the Snapshot (rebuild.go) and publishes it.
//
// A path with a watch of its own (runRecursive, or children watches:
// run) takes the same trip without the root; what it finds gets a
// goroutine of its own at once. What still goes back up: a path read
// once or let go counts itself in or out of its root's progress
// (rootWatch.read, found; forgetLocked) through pathFlags.via. A path
// the root may not list (NoAuth) is handed off by the root's worker
// (rootWatch.handOff), not by the path.
//
// # What the servers cannot tell
//
// Persistent watches do not report children the Watcher may not read
// (ZooKeeper checks the ACL of each child); the barrier's child version,
// read within auditSoon of any event and every few seconds on a quiet
// path, shows such changes, and the queue is listed again.
//
// `wchc` lists data watches only: a herd of sessions watching the
// parent's children (getChildren watches) is not visible and not judged.
// A watch cycle (the deadlock warning) is looked for within one lock
// parent. Across parents, the sessions view finds cycles of waits over
// sessions; a session is not a thread, so such a cycle may include a
// holder that would release on its own: it is called a deadlock only once
// it has stood DeadlockAfter with no handoff.
// Without the four-letter words, links are inferred and a deadlock is
// predicted from the recipes' rules and what the Watcher saw happen.
package zkview
