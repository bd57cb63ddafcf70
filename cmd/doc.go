// Package cmd is zklock's command layer: the cobra commands, their flags,
// the exit codes, and the wiring of the pieces that must not know each
// other (the lock core's session, the Watcher, the console, the audit
// log). zklock's main package only calls Main; nothing else imports this one.
//
// What a command prints lives beside it: lsout.go and sessionsout.go are
// the text, JSON and --check exit codes of `ls` and `sessions` (their
// JSON schemas are zkview's, the model's serialisable form); `why`
// prints package verdict's judgement (why.go holds only its flags, the
// read it shares with ls, readSnapshot, and its exit code).
//
// Files, a command each with what it prints beside it:
//
//   - root.go: Main, the root command, the one-line error and its exit
//     code; flags.go: the connection flags and where each applies;
//     exitcodes.go: the exit-code table (README's and --help's);
//     logging.go: --log-file and --verbose; complete.go: shell completion
//     and the man pages; version.go: `zklock version`.
//   - connect.go: connect, the one insecure-TLS warning then a session
//     (package ensemble); saslflags.go: the --sasl* flags.
//   - console.go: the console command and its wiring (Watcher, holds'
//     Manager, the audit); audit.go: the console's actions audited;
//     consolerec.go: the console's recorder (ctrl+r); demo.go: `zklock
//     demo`.
//   - ls.go, lsout.go, lsprogress.go: `zklock ls`, its text and JSON, the
//     progress of a read of roots on a terminal.
//   - why.go: `zklock why` (package verdict's judgement).
//   - sessions.go, sessionsout.go: `zklock sessions`.
//   - watch.go: `zklock watch` and the setup it shares with export and
//     record; record.go: `record` and `replay`; export.go: `export`
//     (package exporter).
//   - run.go: `zklock run` (package lockrun); release.go: `release
//     --force` and `revoke`.
//   - doctor.go: `zklock doctor` (package doctor).
//   - configcmd.go: `config view`, `get-contexts`, `current-context`,
//     `use-context`, `set-context`.
package cmd
