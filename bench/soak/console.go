package main

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/themes"
	"github.com/zklock/zklock/ui"
	"github.com/zklock/zklock/zkview"
)

const (
	// frameEvery spaces the frames drawn: Bubble Tea's renderer draws at
	// most 60 a second; 20 is plenty to exercise View.
	frameEvery = 50 * time.Millisecond
	// keyEvery: the operator moves about the console now and then.
	keyEvery = 2 * time.Second
	// serverViewEvery polls cons and wchc more often than the default, so
	// that the soak exercises that path too.
	serverViewEvery = 5 * time.Second
)

// console is the Watcher and the console model, driven as Bubble Tea
// would drive them but without a terminal: every command runs on its own
// goroutine and its message comes back to the one loop that calls Update;
// View is called for a frame at most every frameEvery.
type console struct {
	s      *lockops.Session
	w      *zkview.Watcher
	cancel context.CancelFunc
	done   chan struct{}

	msgs    chan tea.Msg
	handled atomic.Int64 // messages through Update
	frames  atomic.Int64
	slowest atomic.Int64 // ns, the slowest View

	mu  sync.Mutex
	err error
}

func startConsole(ctx context.Context, servers []string, own <-chan ui.OwnLock) (*console, error) {
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	s, err := lockops.Connect(cctx, servers, lockops.WithSessionTimeout(soakSession))
	cancel()
	if err != nil {
		return nil, fmt.Errorf("connect the Watcher: %w", err)
	}
	w, err := zkview.Watch(ctx, s, zkview.Options{Paths: soakPaths(), ServerView: true, ServerViewEvery: serverViewEvery})
	if err != nil {
		s.Close()
		return nil, err
	}
	th, err := themes.Load(themes.Default)
	if err != nil {
		w.Close()
		s.Close()
		return nil, err
	}
	lctx, cancel := context.WithCancel(ctx)
	c := &console{s: s, w: w, cancel: cancel, done: make(chan struct{}), msgs: make(chan tea.Msg, 64)}
	m := ui.New(ui.Options{Theme: th, Updates: w.Updates(), Own: own, Paths: soakPaths(), Title: "soak"})
	go c.loop(lctx, m)
	return c, nil
}

// runCmd runs cmd on its own goroutine and sends its message to the loop;
// a batch's commands each run so.
func (c *console) runCmd(ctx context.Context, cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() {
		msg := cmd()
		if batch, ok := msg.(tea.BatchMsg); ok {
			for _, sub := range batch {
				c.runCmd(ctx, sub)
			}
			return
		}
		if msg == nil {
			return
		}
		select {
		case c.msgs <- msg:
		case <-ctx.Done():
		}
	}()
}

func (c *console) loop(ctx context.Context, m tea.Model) {
	defer close(c.done)
	defer func() {
		// A panic in the console is what the soak is for: report it.
		if r := recover(); r != nil {
			c.mu.Lock()
			c.err = fmt.Errorf("console panicked: %v", r)
			c.mu.Unlock()
		}
	}()
	c.runCmd(ctx, m.Init())
	m, _ = m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
	keys := []tea.KeyMsg{
		{Type: tea.KeyDown}, {Type: tea.KeyTab}, {Type: tea.KeyDown}, {Type: tea.KeyEnter},
		{Type: tea.KeyEsc}, {Type: tea.KeyTab}, {Type: tea.KeyRunes, Runes: []rune("s")},
		{Type: tea.KeyTab}, {Type: tea.KeyUp}, {Type: tea.KeyRunes, Runes: []rune("n")},
	}
	keyTick := time.NewTicker(keyEvery)
	defer keyTick.Stop()
	frame := time.NewTicker(frameEvery)
	defer frame.Stop()
	dirty := true
	for k := 0; ; {
		var msg tea.Msg
		select {
		case <-ctx.Done():
			return
		case msg = <-c.msgs:
			c.handled.Add(1)
		case <-keyTick.C:
			msg = keys[k%len(keys)]
			k++
		case <-frame.C:
			if dirty {
				start := time.Now()
				_ = m.View()
				if d := int64(time.Since(start)); d > c.slowest.Load() {
					c.slowest.Store(d)
				}
				c.frames.Add(1)
				dirty = false
			}
			continue
		}
		var cmd tea.Cmd
		m, cmd = m.Update(msg)
		dirty = true
		c.runCmd(ctx, cmd)
	}
}

func (c *console) stop() {
	c.cancel()
	<-c.done
	c.w.Close()
	c.s.Close()
}

func (c *console) failure() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}
