// Package audit is the log of operator actions: one JSON line before and
// one after each take, release, revoke, force-release and run, appended
// and fsynced before the action goes on. Log.Do is the one place that
// pairs the two lines; the commands (cmd), the runner and the console's
// audited backend all go through it.
//
// It reads the settings (config) for the file and the origin every line
// carries, and imports nothing that connects to ZooKeeper.
//
// # Files
//
//   - log.go: Record (the line's stable JSON fields), Log (Open, Write,
//     Do), DefaultPath, and the phases and outcomes as the log spells
//     them.
package audit
