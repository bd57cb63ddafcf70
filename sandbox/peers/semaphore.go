package peers

import (
	"strconv"
	"strings"
)

// semaphorePrefix starts a semaphore request's kind on the wire.
const semaphorePrefix = "semaphore:"

// Semaphore is the request kind for one lease of a semaphore with limit
// leases: Curator's InterProcessSemaphoreV2(path, limit), Kazoo's
// Semaphore(path, max_leases=limit). Request and Acquire take it as they
// take a lock kind: the request is granted once the client holds a lease,
// Hold.Node is the lease node's name, Release returns the lease. Loops do
// not take it. Stock Kazoo refuses a limit other than the one in the
// parent's data (its acquire fails); Curator, which stores no limit, does
// not. A Kazoo request still in line for the semaphore's lock is not
// cancelled before it is admitted (stock Kazoo's cancel wakes only a
// contender waiting for a lease).
func Semaphore(limit int) LockKind {
	return LockKind(semaphorePrefix + strconv.Itoa(limit))
}

// SemaphoreLimit is the limit of a Semaphore kind; false for any other
// kind (or a limit below 1).
func (k LockKind) SemaphoreLimit() (int, bool) {
	s, ok := strings.CutPrefix(string(k), semaphorePrefix)
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || strconv.Itoa(n) != s {
		return 0, false
	}
	return n, true
}
