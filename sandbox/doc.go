// Package sandbox starts real ZooKeeper servers on this machine for zklock's
// tests, benchmarks and `zklock demo`: a standalone server or an ensemble,
// each member a child JVM on free 127.0.0.1 ports with its own temporary
// directory (data dir, myid, generated zoo.cfg, log file), four-letter words
// enabled and the AdminServer off unless asked for.
//
// What lives here:
//
//   - find.go: Find locates Java and ZooKeeper ($ZOOKEEPER_HOME, Debian's
//     /usr/share/java, Homebrew, zkServer.sh on $PATH) and says what to
//     install when either is missing.
//   - cluster.go: Options, Start, and the Cluster (Leader, WaitReady,
//     LogTail, Close).
//   - member.go: one server's life: its data directory, myid and zoo.cfg,
//     Stop (SIGTERM, then SIGKILL), Kill, Pause and Resume (SIGSTOP,
//     SIGCONT), Restart on the same ports and data.
//   - spawn.go, procattr_*.go: why a server cannot outlive the process that
//     started it, even one killed with SIGKILL (Linux: Pdeathsig, forked from
//     one thread that never exits).
//   - tls.go: Options.TLS: a secureClientPort per member (Netty, PEM
//     stores), with a CA, server and client certificates made at start by
//     crypto/x509, and certificates wrong on purpose (expired, for another
//     name, from an unknown CA) for tests of what clients say.
//   - sasl.go: Options.SASL: a JAAS Server section (DigestLoginModule users,
//     or a given Krb5LoginModule), ZooKeeper's SASL provider, and the
//     3.8 setting that requires client SASL.
//   - admin.go: Options.AdminServer (ZooKeeper's AdminServer, JSON over
//     http or https, on a free loopback port per member, with the servlet
//     API jar Debian's package leaves out) and Options.FourLetterWords'
//     ZooKeeperDefaultWords, for ensembles as production runs them.
//   - fourletter.go: a member's mode (srvr) for the readiness wait, through
//     zkview/fourletter, zklock's one four-letter-word client.
//   - proxy.go: Proxy, a loopback TCP proxy that cuts and restores a
//     client's link without touching the server.
//   - kdc.go: StartKDC, a throwaway Kerberos realm (MIT krb5kdc with its
//     own database, kdc.conf and krb5.conf in a temp dir, on a free port)
//     for the GSSAPI tests; kdcadmin.go: changes to a running realm
//     (principals added, deleted or re-keyed), kinit for credential
//     caches, and a KDC whose clock is shifted.
//   - logtail.go: LogTail's bounded read of a member's log, for failure
//     reports.
//   - pauseproc.go: PauseProcess and ResumeProcess, any process stopped
//     as a long GC pause would (SIGSTOP), waiting until every thread has
//     stopped (stopped_*.go: Linux reads /proc; elsewhere the signal is
//     all there is); signals_*.go: the signals per platform (Windows has
//     no SIGSTOP: pausing is unsupported there).
//   - ports.go: free loopback ports, held together while chosen.
//   - sandboxtest/: Start and Connect for tests, in the manner of
//     net/http/httptest; a package of its own so that only tests import
//     package testing (the shipped binary does not link it).
//
// Every wait is bounded by a context and by Options.StartTimeout; a member
// that dies at start is reported with its last log lines, never waited on.
// Nothing here is mocked: if ZooKeeper or Java is absent, Start fails and
// says to run `make deps`.
//
// sandbox must not import any other zklock package but zkview/fourletter
// (which imports none): lockops, zkview, the benchmarks and the demo all
// build on it.
package sandbox
