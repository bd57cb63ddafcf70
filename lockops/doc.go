// Package lockops is zklock's lock core: the lock itself (acquire,
// try-acquire, release, loss signalling, protected create), a semaphore's
// lease and a LeaderLatch participant built on it, the operator's
// force-release and polite revoke, and the Session they all share (one
// go-zookeeper connection, its requests, TLS and SASL).
//
// The ordering vocabulary (Order, ParsedName, Kind, Recipe, Role, Style,
// Progress) lives in lockops/ordering, which imports no ZooKeeper client:
// the console's model and every reader of a queue import it, not lockops.
// The lock decides with ordering.Order, never with a rule of its own.
//
// Every blocking call takes a context.Context first; cancelling a waiting
// acquire deletes the caller's own node before returning. lockops imports
// only the zk client and lockops/ordering; it must never import zkview or
// ui.
//
// One file per concept, as etcd's client/v3/concurrency:
//
//   - session.go: Session owns one go-zookeeper connection, is the only
//     consumer of its events and fans its state out on Changed() without
//     ever dropping a change. Generation counts sessions. The Session's
//     methods live here and in requests.go; the concept files below work
//     through functions and small types that take it. lease.go: its
//     lease meter reads off the wire how long the server surely keeps the
//     session (negotiated timeout, last reply), so that a holder whose link
//     is down stops believing it holds before the server can expire it.
//     retry.go: do and retry, the one place for retries, and ConnLoss.
//     sasl.go: WithSASL: every connection authenticates by SASL before
//     anything else; connected only once it has; a refusal closes the
//     Session with its *zk.SASLError (Session.closedErr says so).
//     tls.go: the links themselves: WithTLS (hostname verified unless
//     WithoutHostnameVerification), servers dialled by the names given,
//     and LinkError: why a link failed (a certificate expired, from an
//     unknown CA or for another name, a refused client certificate, the
//     other protocol on the port), so that Connect gives up at once when
//     every server failed for good instead of retrying until its context
//     ends; the transport of Session.DialMember (the four-letter words
//     over the same links), Secure, HostnameVerified and TLSState.
//   - lock.go: Lock, joining a queue in its style (options.go: its
//     options), its fencing token; hold.go: the hold and its loss,
//     release. The Lock's methods live in these two files and in
//     rejoin.go: Rejoin, a release and the next acquisition's create in
//     one multi (one log commit per handoff for a worker that loops on
//     the lock; issue #43), and ErrRejoinUnsupported.
//     sent.go: sentWatch, which tells when a request's bytes are on the
//     wire, so that the listing behind a create is sent at once.
//     create.go: protected create (a fresh guid in the name; a node made
//     before a lost connection is found again by it): protectedCreate over
//     a lockParent (the Session and the parent's server path), which is
//     all of a Lock the create and the wait need.
//   - requests.go: one request each (ChildrenStat, ChildrenW, Get, Exists,
//     ExistsW, Sync, Create, Delete, AddWatch, AddWatchAsync,
//     RemovePersistentWatch), bounded by ctx through do, paths as the user
//     sees them (the chroot applied here once), for the callers that read
//     the tree and follow it themselves: the console's Watcher, doctor,
//     completion. No caller outside lockops holds the connection itself.
//     EventPath names a watch event's node below the chroot. Also the
//     thin methods of tree.go's functions (EnsurePath, Children,
//     RemovePath).
//   - tree.go: the persistent nodes around the locks, for callers that set
//     up lock parents themselves, as functions of a Session behind its
//     methods EnsurePath (says which nodes it made), Children, RemovePath
//     (refuses a lock node); the lock makes its parents through the same
//     create loop (createPath).
//   - watch.go: waiting in the queue: a waiter (the lock parent, and what
//     the wait reports to its Lock) watches the predecessor, at most one
//     node more, and takes the shortcut that holds on the predecessor's
//     deletion without listing again; waitEvent, the one helper that waits
//     on a watch.
//   - semaphore.go: Semaphore, one lease of a counting semaphore in the
//     protocol the parent already uses (Curator's InterProcessSemaphoreV2:
//     the lock core at P/locks admits, leases in P/leases; Kazoo's
//     Semaphore: the lock core at P-__lock__ admits, leases under P,
//     max_leases in P's data), held and lost as a lock node is (hold.go),
//     and its lease's fencing token; semaphore_kazoo.go holds Kazoo's
//     side.
//     parent.go: ReadParent, what a parent shows (a semaphore of either
//     protocol, a LeaderLatch election), read in one go.
//     A Curator LeaderLatch is the lock core with "-latch-" names
//     (WithLatch, create.go): holding is leading.
//   - Fencing tokens: FencingToken of a Lock (lock.go; an election's
//     participant too) and of a Semaphore's lease (semaphore.go): the
//     hold's node's czxid, from the create's own answer (go-zookeeper's
//     Create2, a patch of ours).
//   - force.go: ForceRelease (only if the owner session is still the one the
//     operator saw) and Revoke (Curator's protocol).
//
// Guarantees and their bounds:
//
//   - A waiter watches its predecessor and at most one more node (the
//     predecessor's predecessor, or its own node once the predecessor is
//     known to be the last in the way): a constant number of watches,
//     never a herd.
//   - Uncontended acquire+release costs three requests (create, list,
//     delete) once the Session knows the queue's style (the first
//     acquisition on a lock parent lists it once more). A holder arms the
//     watch on its own node after 25 ms, so deletion of the node by
//     someone else is learnt within 25 ms plus a round trip (at the
//     notification, tens of microseconds, once armed; a holder by the
//     shortcut has it armed from its wait, and its release fires it: one
//     notification, cheaper than the request that could remove it;
//     TestForceReleasedHolderLearns, BenchmarkReleaseOwnWatched); session
//     expiry is learnt at once, and a link down long enough for the server
//     to expire the session counts as expiry (Done closes) before the
//     server can let another client in.
//   - A contended acquisition costs four to six requests: create, the
//     listing sent behind it, one request arming two watches (go-zookeeper's
//     WatchData, a patch of ours): the predecessor and either the own node
//     (second in line) or the predecessor's predecessor; when that one goes,
//     the own-node watch and, unless it was the head, a listing before it;
//     and the delete. zk.Lock's five list again on the wake instead; the
//     own-node watch is what keeps the shortcut from holding on a node
//     someone deleted.
//   - Rejoin hands the lock over in one log commit (a contended
//     acquisition costs one commit, not 1.6-1.7) and one request fewer.
//     Its multi wakes the next holder 1.13-1.17x as late as a bare delete
//     does on the same server (the create inside it;
//     BenchmarkMultiWakeFloor), so its handoff's floor is above the
//     delete's.
//   - Done() closes when a hold ends, Err() says why (nil for a release).
package lockops
