package systems

import "fmt"

// CodeLeaderMismatch is the finding of a leader record that disagrees with
// its election, as `ls --json` names the warning.
const CodeLeaderMismatch = "leader-mismatch"

// Finding is a problem seen in one recognised coordination. A finding is
// a reading of one moment: a failover passes through a short mismatch, so
// the caller times it by Key (PRODUCT.md: `ls --check` fails once one has
// lasted 10 s) and forgets it when Key no longer appears.
type Finding struct {
	Code string
	// Key is stable while the same disagreement lasts, and changes when
	// either side changes: the code, the record's path and both sides.
	Key string
	// Record is the leader record's path.
	Record string
	// RecordSays is who the record names, "" when it is missing.
	RecordSays string
	// ElectionSays is who the election's holder is, "" when it has none.
	ElectionSays string
	// Message says both sides in one line (raw server text inside: the
	// caller sanitizes it).
	Message string
	// Nodes are the full paths concerned: the record and the holder.
	Nodes []string
}

// leaderMismatch builds the finding of record disagreeing with the
// election whose holder is holder (its node path, "" for none).
func leaderMismatch(record, recordSays, electionSays, holder string) Finding {
	rs, es := recordSays, electionSays
	if rs == "" {
		rs = "nobody (no record)"
	}
	if es == "" {
		es = "nobody (no holder)"
	}
	nodes := []string{record}
	if holder != "" {
		nodes = append(nodes, holder)
	}
	return Finding{
		Code:         CodeLeaderMismatch,
		Key:          CodeLeaderMismatch + "\x00" + record + "\x00" + recordSays + "\x00" + electionSays,
		Record:       record,
		RecordSays:   recordSays,
		ElectionSays: electionSays,
		Message:      fmt.Sprintf("leader record %s names %s; the election's leader is %s", record, rs, es),
		Nodes:        nodes,
	}
}
