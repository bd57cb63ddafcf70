package timeline

import (
	"time"

	"github.com/zklock/zklock/model"
)

// eventV0 is a change as recordings made before changes were typed
// stored it (key "e" of a record): the console's line already said, and
// a kind of seven. Such a recording still replays: each reads as a
// model.Change of the nearest kind that says its line as it was (Said).
// The format version did not change: those records keep their meaning,
// and a recording made now stores typed changes under "c".
type eventV0 struct {
	At   time.Time
	Kind int
	Path string
	Node string
	Text string
}

// kindsV0 map the seven kinds of eventV0 (created, deleted, handoff,
// conn, path, warning, info) to the change kinds the console's log heads
// alike.
var kindsV0 = []model.ChangeKind{
	model.ChangeJoined, model.ChangeReleased, model.ChangeAcquired, model.ChangeConn,
	model.ChangePathAppeared, model.ChangeWarningRaised, model.ChangeInfo,
}

// changesOf reads a record's eventV0s as changes.
func changesOf(evs []eventV0) []model.Change {
	if len(evs) == 0 {
		return nil
	}
	out := make([]model.Change, 0, len(evs))
	for _, e := range evs {
		k := model.ChangeInfo
		if e.Kind >= 0 && e.Kind < len(kindsV0) {
			k = kindsV0[e.Kind]
		}
		out = append(out, model.Change{At: e.At, Kind: k, Path: e.Path, Node: model.Node{Name: e.Node}, Said: e.Text})
	}
	return out
}
