package ui

import (
	"github.com/charmbracelet/bubbles/key"
	"github.com/zklock/zklock/ui/draw"
)

// KeyMap is every key of the console's main view. The root enables only the
// bindings that apply at the moment (see Console.activeKeys), so the footer
// shows what can be done now and a disabled key does nothing.
type KeyMap struct {
	Up, Down, PageUp, PageDown, Home, End key.Binding

	Focus  key.Binding // tab: lock list -> queue -> event log
	Enter  key.Binding // list: open the queue; queue: node details
	Filter key.Binding
	Clear  key.Binding // esc: drop the filter
	Sort   key.Binding
	// Waiting shows only the lock parents with waiters (and back): with
	// the stuck-first sort, the stuck ones of a wide root in one screen.
	Waiting key.Binding
	// Copy puts the selected lock's path, node's path or session id on
	// the clipboard of the operator's terminal (OSC 52, so over SSH too).
	Copy key.Binding

	Take    key.Binding
	Release key.Binding
	Revoke  key.Binding
	Force   key.Binding

	// Sessions switches to the sessions pane (who blocks whom across
	// every lock) and back.
	Sessions key.Binding

	// The presenter's keys: enabled only in `zklock demo` (Options.Demo).
	// None of them is a key of the plain console, so a presenter's habit
	// never fires an operator action.
	Pause, Step, Kill, Split key.Binding

	Narrate key.Binding
	// Record starts or stops a recording (Options.Recorder).
	Record key.Binding
	Help   key.Binding
	Quit   key.Binding
	Abort  key.Binding // ctrl+c: quit without asking (own locks are still released)
}

// DefaultKeyMap is the console's keys with every binding enabled.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		PageUp:   key.NewBinding(key.WithKeys("pgup", "ctrl+u"), key.WithHelp("pgup", "page up")),
		PageDown: key.NewBinding(key.WithKeys("pgdown", "ctrl+d"), key.WithHelp("pgdn", "page down")),
		Home:     key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("g/home", "first")),
		End:      key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("G/end", "last")),
		Focus:    key.NewBinding(key.WithKeys("tab", "shift+tab"), key.WithHelp("tab", "pane")),
		Enter:    key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open")),
		Filter:   key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter")),
		Clear:    key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear filter")),
		Sort:     key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "sort")),
		Waiting:  key.NewBinding(key.WithKeys("W"), key.WithHelp("W", "waiting only")),
		Copy:     key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "copy path")),
		Take:     key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "take")),
		Release:  key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "release mine")),
		Revoke:   key.NewBinding(key.WithKeys("R"), key.WithHelp("R", "revoke")),
		Force:    key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "force-release")),
		Sessions: key.NewBinding(key.WithKeys("w"), key.WithHelp("w", "sessions")),
		Pause:    key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "pause")),
		Step:     key.NewBinding(key.WithKeys(" "), key.WithHelp("space", "step")),
		Kill:     key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "kill holder")),
		Split:    key.NewBinding(key.WithKeys("S"), key.WithHelp("S", "split")),
		Narrate:  key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "narration")),
		Record:   key.NewBinding(key.WithKeys("ctrl+r"), key.WithHelp("ctrl+r", "record")),
		Help:     key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "keys")),
		Quit:     key.NewBinding(key.WithKeys("q"), key.WithHelp("q", "quit")),
		Abort:    key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit now")),
	}
}

// ShortHelp is the footer: the enabled keys, the presenter's first (in the
// demo they are what the room is shown), then actions, then moving around;
// help and quit always last (the footer pins them to the right so a narrow
// terminal never hides them).
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Pause, k.Step, k.Kill, k.Split, k.Take, k.Release, k.Revoke, k.Force, k.Enter, k.Focus, k.Filter, k.Clear, k.Sessions, k.Sort, k.Help, k.Quit}
}

// readOnly disables every key that changes ZooKeeper.
func (k KeyMap) readOnly() KeyMap {
	for _, b := range []*key.Binding{&k.Take, &k.Release, &k.Revoke, &k.Force} {
		b.SetEnabled(false)
	}
	return k
}

// withoutDemo disables the presenter's keys (any console but the demo's).
func (k KeyMap) withoutDemo() KeyMap {
	for _, b := range []*key.Binding{&k.Pause, &k.Step, &k.Kill, &k.Split} {
		b.SetEnabled(false)
	}
	return k
}

// dialogKeys are the keys dialogs answer to; they are shown in the dialogs
// themselves.
type dialogKeys struct {
	Confirm, Cancel, Yes, No, Read, Write key.Binding
}

func newDialogKeys() dialogKeys {
	return dialogKeys{
		Confirm: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "confirm")),
		Cancel:  key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
		Yes:     key.NewBinding(key.WithKeys("y", "Y"), key.WithHelp("y", "yes")),
		No:      key.NewBinding(key.WithKeys("n", "N", "q"), key.WithHelp("n", "no")),
		Read:    key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "read")),
		Write:   key.NewBinding(key.WithKeys("w"), key.WithHelp("w", "write")),
	}
}

// navKeys are the keys that move a cursor in a pane.
func (k KeyMap) navKeys() draw.NavKeys {
	return draw.NavKeys{Up: k.Up, Down: k.Down, PageUp: k.PageUp, PageDown: k.PageDown, Home: k.Home, End: k.End}
}
