// Package timeline is what happened between snapshots: Diff, the changes
// between two snapshots as `zklock watch` streams them (model.Change,
// the one vocabulary of change the Watcher also speaks; ChangeWriter
// writes each as its JSON rendering, model.Change.ToJSON); the recording file of `zklock record`
// (Recorder writes full snapshots and deltas, safe to kill;
// ReadRecording and Cursor read it back); and Player, a recording
// replayed as model.Updates on its own clock for the console.
//
// Why a package of its own: the timeline only reads model values, and
// its file format and stream schema change for reasons of their own. It
// imports model and lockops/ordering, never zkview, ui or cmd.
//
// # Files
//
//   - stream.go: Diff (two snapshots to model.Changes), ChangeWriter.
//   - recordevents.go: reading the events of recordings made before
//     changes were typed.
//   - recording.go: RecordingHeader, Recorder, Recording, Cursor.
//   - player.go: Player and PlayerState.
//   - admission.go: which lease admitted a semaphore contender whose
//     admission-lock node left (an "admitted" change, not a release).
package timeline
