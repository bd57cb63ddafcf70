package peers

// The line protocol between Proc and a driver process (drivers/CuratorPeer.java,
// drivers/kazoo_peer.py). Both drivers speak it exactly; fields are separated
// by one space, the last field of `failed` and `cycle` is free text to the end
// of the line, "-" stands for an empty field, times T are wall-clock unix
// nanoseconds (0: none) and session ids are hex without 0x.
//
// Arguments: HOSTS SESSION_TIMEOUT_MS CLIENTS CONNECT_TIMEOUT_MS
//
// Driver to Go (stdout):
//
//	session C HEX               client C's session (at start, and after a new one)
//	ready                       every client has a session; commands are read now
//	state C STATE T             client C's connection: SUSPENDED, LOST, RECONNECTED
//	acquired ID NODE TREQ TACQ  request ID holds; NODE is the lock node's name
//	cancelled ID                request ID was abandoned; its node is deleted (Kazoo)
//	                            or being deleted in Curator's background
//	failed ID TEXT              request ID's acquire or release failed
//	released ID TCALL TRET      request ID's release was called at TCALL, returned at TRET
//	lost ID T                   request ID's client learned at T that its session was lost
//	cycle L C HELD GAVEUP NODE TREQ TACQ TCALL TRET TNOTICE LOST SESSION TEXT
//	                            one cycle of loop L by client C (see Cycle)
//	loopdone L                  every client of loop L has stopped
//	closed C                    client C's session is closed
//
// Go to driver (stdin):
//
//	acquire ID C PATH KIND      client C requests KIND (mutex, read, write) on PATH;
//	                            KIND latch (Curator LeaderLatch) or election
//	                            (Kazoo Election) joins the election at PATH as
//	                            participant ID: acquired once it leads,
//	                            released by leaving (close, or returning);
//	                            KIND seqmutex: a mutex that sees the other
//	                            library's nodes, by sequence (Curator: a lock
//	                            driver sorting by sequence; Kazoo:
//	                            extra_lock_patterns=("-lock-",));
//	                            KIND semaphore:N takes one lease of the semaphore
//	                            at PATH with limit N (Curator
//	                            InterProcessSemaphoreV2, Kazoo Semaphore): NODE
//	                            in acquired is the lease node
//	release ID                  release request ID once held
//	cancel ID                   abandon request ID (released if already granted)
//	loop L PATH KIND CLIENTS DURATION_US CYCLES HOLD_US GIVEUP_PCT GIVEUP_WITHIN_US
//	                            CLIENTS is "all" or a comma-separated list
//	stop L                      end loop L (waiting acquires are cancelled)
//	close C                     close client C's session cleanly
//	quit                        close every session and exit (also on end of input)
//
// Bad commands are reported on stderr and ignored: Proc validates what it
// sends, so one is a bug in this package.

const (
	lineSession   = "session"
	lineReady     = "ready"
	lineState     = "state"
	lineAcquired  = "acquired"
	lineCancelled = "cancelled"
	lineFailed    = "failed"
	lineReleased  = "released"
	lineLost      = "lost"
	lineCycle     = "cycle"
	lineLoopDone  = "loopdone"
	lineClosed    = "closed"
)
