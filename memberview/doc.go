// Package memberview tells what the ZooKeeper members themselves know of
// the sessions connected to them: per session its member, client address,
// negotiated timeout, packets received, when its member last heard it and
// when the leader will expire it if it stays silent; per session the paths
// it watches. Each member knows only its own connections and watches, so
// every member is asked; the expiry buckets live on the leader.
//
// A member answers through whichever source it allows: the four-letter
// words (cons, wchc, dump; off by default since 3.5 except srvr) or the
// AdminServer's JSON (/commands/connections, /commands/watches,
// /commands/dump; on by default at port 8080 through 3.9), over http or,
// with the context's CA and client certificate, https. Each member's
// report says which source answered and what each refused, for doctor.
//
// The members stamp last-heard times and buckets on their own monotonic
// clocks, whose "now" no command tells. zklock's own session is the
// reference: a request made between two readings of our clock, then its
// member's record of it, ties that member's clock to ours within about one
// round trip; the leader's clock is tied through the own session's expiry
// bucket (within a tick, narrowed poll after poll).
//
// Files:
//   - poll.go: Config, Poller and Poll: ask every member at once, each
//     through the source that answered last, then the leader's dump;
//     merge; tie the clocks.
//   - sources.go: the two sources, AdminServer and four-letter words, read
//     into one form; Refusal.
//   - view.go: View, MemberReport and Health, the immutable result.
//   - clock.go: Span and Reference, the pure mapping of a member's clock
//     to ours (own request, expiry bucket, narrowing), TickBound.
//   - probe.go: Probe and Diagnosis, for doctor: every member through
//     both sources, what each refused, the one line to fix it.
//   - ports.go: AdminPorts and ParseAdminPorts (--admin-port, admin_port).
//
// Tests: clock_test.go and ports_test.go (pure, tables); real_linux_test.go
// (every field against the members' own answer, times against
// CLOCK_MONOTONIC, a silent session's expiry against the real one);
// probe_test.go; bench_test.go (BenchmarkPoll: AdminServer against
// four-letter words, bytes and member CPU per poll).
//
// memberview imports nothing of zklock but fourletter: zkview's server
// view and cmd's doctor call it; the own request comes in as a function,
// so no ZooKeeper client is linked here.
package memberview
