// Package doctor examines an ensemble member by member for `zklock
// doctor`: what each member runs and allows (version, mode, the
// four-letter words, the AdminServer, addWatch, TLS and the certificate it
// shows, SASL and as whom, the session timeout it grants, its zxid's
// distance to rollover), the clock that stamps node times, and whether the
// settings' credentials can read each lock root. Run returns a Report
// whose JSON is `doctor -o json` (schema in docs/json.md) and whose Write
// is the text form.
//
// Files:
//
//   - doctor.go: Report, Member and their parts; Run, each member
//     examined on a session of its own; Write.
//   - sasl.go: the SASL part of a member's report: the mechanism, as whom,
//     the principal asked a ticket for, the member's answer.
//   - serverview.go: which source tells the member's sessions and watches
//     (the four-letter words or the AdminServer, through memberview), what
//     each refused, and the one line that fixes it.
//
// It connects through package ensemble, as every command does, and prints
// only through Write: the command maps its Problems to the exit code.
package doctor
