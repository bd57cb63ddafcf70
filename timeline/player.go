package timeline

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/zklock/zklock/model"
)

// PlayerState is where a replay stands.
type PlayerState struct {
	At         time.Time // the recording's clock
	Step       int       // the update shown, 0-based
	Steps      int
	Speed      float64 // 1 to MaxSpeed
	Playing    bool
	Start, End time.Time // the recording's first and last update
}

// Replay speeds: Faster and Slower move along these.
var playerSpeeds = []float64{1, 2, 5, 10, 20, 50, 100}

// MaxSpeed is the fastest replay.
const MaxSpeed = 100

// playerMaxWait bounds a playing player's sleep, so that its clock and a
// speed change are never far behind.
const playerMaxWait = 200 * time.Millisecond

// Player replays a Recording as a Watcher would publish it: Updates
// delivers the snapshot of each step with its recorded changes (merged
// while the consumer is busy, as the Watcher's), on the recording's clock
// at Speed times real time. It starts paused on the first update.
type Player struct {
	rec     *Recording
	wall    func() time.Time
	updates chan model.Update
	wake    chan struct{}

	mu      sync.Mutex
	cur     *Cursor
	speed   float64
	playing bool
	clockAt time.Time // the recording's clock at wallAt
	wallAt  time.Time
	pending *model.Update
}

// NewPlayer starts replaying rec until ctx ends (then Updates closes).
func NewPlayer(ctx context.Context, rec *Recording) *Player {
	p := &Player{rec: rec, wall: time.Now, updates: make(chan model.Update), wake: make(chan struct{}, 1), speed: 1}
	p.cur = rec.NewCursor()
	if rec.Len() > 0 {
		p.moveLocked(0, true, "")
	}
	go p.run(ctx)
	return p
}

// Updates delivers the replayed updates; closed when the player's ctx
// ends.
func (p *Player) Updates() <-chan model.Update { return p.updates }

// Now is the recording's clock (the console's clock during a replay).
func (p *Player) Now() time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.clockLocked()
}

// Snapshot is the snapshot of the update shown now: the console draws
// its first frame from it, before Updates has delivered anything.
func (p *Player) Snapshot() *model.Snapshot {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cur.Snapshot()
}

// State says where the replay stands.
func (p *Player) State() PlayerState {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stateLocked()
}

// Toggle plays or pauses (playing at the end starts over).
func (p *Player) Toggle() PlayerState {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.playing {
		p.clockAt, p.playing = p.clockLocked(), false
	} else {
		if p.cur.Index() >= p.rec.Len()-1 {
			p.moveLocked(0, false, "replay: from the start")
		}
		p.wallAt, p.playing = p.wall(), true
	}
	p.kick()
	return p.stateLocked()
}

// Step pauses and moves n updates forward (or back, n < 0).
func (p *Player) Step(n int) PlayerState {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.playing = false
	i := min(max(p.cur.Index()+n, 0), p.rec.Len()-1)
	p.moveLocked(i, n == 1, "")
	p.kick()
	return p.stateLocked()
}

// Seek jumps to the recording's moment t (clamped to the recording),
// playing on if it was.
func (p *Player) Seek(t time.Time) PlayerState {
	p.mu.Lock()
	defer p.mu.Unlock()
	st := p.stateLocked()
	t = minTime(maxTime(t, st.Start), st.End)
	p.moveLocked(p.rec.Search(t), false, "replay: jumped to "+t.Local().Format("15:04:05.000"))
	p.clockAt, p.wallAt = t, p.wall()
	p.kick()
	return p.stateLocked()
}

// Faster and Slower step the speed along 1, 2, 5, 10, 20, 50, 100x.
func (p *Player) Faster() PlayerState { return p.setSpeed(+1) }
func (p *Player) Slower() PlayerState { return p.setSpeed(-1) }

func (p *Player) setSpeed(dir int) PlayerState {
	p.mu.Lock()
	defer p.mu.Unlock()
	k := 0
	for i, s := range playerSpeeds {
		if s <= p.speed {
			k = i
		}
	}
	k = min(max(k+dir, 0), len(playerSpeeds)-1)
	p.clockAt, p.wallAt = p.clockLocked(), p.wall()
	p.speed = playerSpeeds[k]
	p.kick()
	return p.stateLocked()
}

func (p *Player) kick() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

func (p *Player) clockLocked() time.Time {
	if !p.playing {
		return p.clockAt
	}
	el := p.wall().Sub(p.wallAt)
	t := p.clockAt.Add(time.Duration(float64(el) * p.speed))
	if n := p.rec.Len(); n > 0 {
		t = minTime(t, p.rec.At(n-1))
	}
	return t
}

func (p *Player) stateLocked() PlayerState {
	st := PlayerState{At: p.clockLocked(), Step: p.cur.Index(), Steps: p.rec.Len(), Speed: p.speed, Playing: p.playing}
	if n := p.rec.Len(); n > 0 {
		st.Start, st.End = p.rec.At(0), p.rec.At(n-1)
	}
	return st
}

// moveLocked shows step i; events: its recorded changes (a step taken
// forward), else only note (a jump).
func (p *Player) moveLocked(i int, events bool, note string) {
	snap := p.cur.Seek(i)
	if !p.playing {
		p.clockAt = snap.At
	}
	if p.pending == nil {
		p.pending = &model.Update{}
	}
	next := model.Update{Snapshot: snap}
	if events {
		next.Changes, next.Dropped = p.rec.Changes(i)
		next.Changes = slices.Clone(next.Changes)
	}
	if note != "" {
		next.Changes = append(next.Changes, model.Change{At: snap.At, Kind: model.ChangeInfo, Note: note})
	}
	p.pending.Merge(next)
}

// run advances a playing replay on time and hands updates over.
func (p *Player) run(ctx context.Context) {
	defer close(p.updates)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		p.mu.Lock()
		wait := time.Duration(-1)
		if p.playing {
			clock := p.clockLocked()
			for i := p.cur.Index() + 1; i < p.rec.Len() && !p.rec.At(i).After(clock); i++ {
				p.moveLocked(i, true, "")
			}
			if p.cur.Index() >= p.rec.Len()-1 {
				p.clockAt, p.playing = p.rec.At(p.rec.Len()-1), false
				p.pending = mergeNote(p.pending, p.cur.Snapshot(), "replay: the end of the recording")
			} else {
				wait = time.Duration(float64(p.rec.At(p.cur.Index()+1).Sub(clock)) / p.speed)
				wait = min(max(wait, time.Millisecond), playerMaxWait)
			}
		}
		var out chan model.Update
		var u model.Update
		if p.pending != nil {
			out, u = p.updates, *p.pending
		}
		p.mu.Unlock()
		timerC := (<-chan time.Time)(nil)
		if wait >= 0 {
			timer.Reset(wait)
			timerC = timer.C
		}
		select {
		case <-ctx.Done():
			return
		case out <- u:
			p.mu.Lock()
			// What came in since u was taken stays pending.
			if p.pending != nil {
				p.pending.Changes = p.pending.Changes[min(len(u.Changes), len(p.pending.Changes)):]
				p.pending.Dropped -= min(u.Dropped, p.pending.Dropped)
				if p.pending.Snapshot == u.Snapshot && len(p.pending.Changes) == 0 {
					p.pending = nil
				}
			}
			p.mu.Unlock()
		case <-p.wake:
		case <-timerC:
		}
	}
}

func mergeNote(u *model.Update, snap *model.Snapshot, note string) *model.Update {
	if u == nil {
		u = &model.Update{Snapshot: snap}
	}
	u.Changes = append(u.Changes, model.Change{At: snap.At, Kind: model.ChangeInfo, Note: note})
	return u
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// String is the state in words: "▶ 10x 03:12:07.120 step 412/9000".
func (s PlayerState) String() string {
	mode := "‖ paused"
	if s.Playing {
		mode = fmt.Sprintf("▶ %gx", s.Speed)
	} else if s.Speed != 1 {
		mode += fmt.Sprintf(" (%gx)", s.Speed)
	}
	return fmt.Sprintf("%s  %s  update %d/%d  (%s–%s)", mode, s.At.Local().Format("15:04:05.000"), s.Step+1, s.Steps,
		s.Start.Local().Format("15:04:05"), s.End.Local().Format("15:04:05"))
}
