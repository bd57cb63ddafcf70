// Package lockrun is what `zklock run` does once connected, beyond its
// flags: refuse a path that is no lock (a system's coordination, a
// barrier, a library's queue), say on stderr where the wait stands, wait
// for the hold unless a signal or --timeout ends the wait, run CMD with
// the hold's environment, pass signals on, stop CMD when the hold is lost
// (SIGTERM, the grace period, SIGKILL), release the hold when CMD exits,
// and tell a hold whose session ended before the release from a clean
// exit (the 69-at-release rule). A Result says how the run ended; cmd
// maps it to an exit code and writes the audit's two lines around Run.
//
// What to take at the path is package holds' decision; the connection,
// the flags, the signals' catching and the audit log are cmd's. It must
// not import cmd or ui.
//
// # Files
//
//   - run.go: Job (Run, the wait's ending, the command under the hold,
//     its environment), Result and Outcome, DefaultGrace.
//   - child.go: the wait unless signalled, the supervision of CMD (signals
//     passed on, loss, grace, kill), CMD's exit code, the release after.
//   - child_linux.go, child_other.go: CMD stopped with zklock (Pdeathsig),
//     and whether a SIGINT came from the terminal's Ctrl-C.
//   - progress.go: Reporter, the wait's line on stderr (place in line,
//     node watched, holders and for how long), the holders' text.
//   - refuse.go: RefuseNotALock, and the lock core's refusals turned into
//     the one line that says what to do.
package lockrun
