// Package peers runs real, stock lock clients of other libraries, Apache
// Curator 5 (InterProcessMutex, InterProcessReadWriteLock, LeaderLatch,
// InterProcessSemaphoreV2) and Kazoo 2.8 (Lock, ReadLock, WriteLock,
// Election, Semaphore), driven from Go, for zklock's tests and
// benchmarks: interoperability of the lock core, the console's reading of
// real queues, elections and semaphores, `zklock run` against
// real contenders, the fault suite and the peer comparison in bench/.
//
// A Proc is one driver process holding N sessions (clients), so a test can
// have many contenders for the price of one JVM or one Python interpreter.
// Each client can request locks (Proc.Acquire, or Proc.Request without
// waiting), release them, run timed contention loops (Proc.Loop), and close
// its session; Proc.Kill sends SIGKILL so that the sessions die only by
// expiry. The driver reports every connection state change and every held
// lock its client learns is lost (Proc.Events), so that fault tests can check
// that a contender that was cut either kept its lock or knew it lost it.
//
// Clocks: every time reported (Hold, Cycle, PeerEvent) is the wall clock of the
// process that lived it, read at the moment (Java's Instant.now, Python's
// time.time_ns, Go's time.Now). Processes on one machine read the same
// system clock, so their times compare directly: an Interval of a Curator
// driver and one of a Go lock can be checked against each other with
// Overlaps. Across machines they would not compare.
//
// Where the drivers come from: their sources are embedded
// (drivers/CuratorPeer.java, drivers/kazoo_peer.py). The Java driver is
// compiled at first use with javac against Debian's jars in /usr/share/java
// into os.UserCacheDir()/zklock/peers/<hash of the source>, so later runs
// start at once; concurrent test binaries build into temporary directories
// and rename, so none sees a half-written class. The Python driver runs
// under /usr/bin/python3, Debian's interpreter, where python3-kazoo
// installs (a python3 earlier on $PATH, from pyenv say, usually lacks
// Kazoo). When a client library is missing, Available and Start say what to
// install (`make deps`).
//
// Files: proc.go (Kind, Start, Proc and its life), driver.go (finding or
// compiling each driver, what to install), protocol.go (the driver's line
// protocol), hold.go (Acquire, Request, Release of one lock), loop.go
// (timed contention loops), semaphore.go (semaphore leases), events.go
// (PeerEvent, ConnState), interval.go (Interval and Overlaps), tail.go
// (the driver's last stderr bytes), sasl.go and tls.go (drivers over SASL
// and TLS, configured as applications are), testing.go (StartT for tests).
//
// peers must not import any other zklock package but sandbox's tests:
// lockops' own tests import it, and a cycle would not compile.
package peers
