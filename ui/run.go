package ui

import (
	"context"
	"errors"
	"fmt"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/zklock/zklock/ui/draw"
)

// ErrRelease is returned by Run when an own lock could not be released on
// the way out (it is still freed when the session closes).
var ErrRelease = errors.New("ui: release on quit")

// releaseTimeout bounds each release on quit: a delete takes milliseconds;
// five seconds covers a reconnect while the operator waits for the prompt.
const releaseTimeout = 5 * time.Second

// Run runs the console on the terminal (alternate screen; the mouse selects and scrolls)
// until the operator quits or ctx is done, then releases the operator's
// own locks through Backend.Release, each bounded by releaseTimeout even
// when ctx is already done.
func Run(ctx context.Context, opts Options, progOpts ...tea.ProgramOption) error {
	m := New(opts)
	m.ctx = ctx
	all := append([]tea.ProgramOption{tea.WithContext(ctx), tea.WithAltScreen(), tea.WithMouseCellMotion()}, progOpts...)
	final, runErr := tea.NewProgram(m, all...).Run()
	if runErr != nil && ctx.Err() != nil && errors.Is(runErr, tea.ErrProgramKilled) {
		runErr = ctx.Err()
	}
	if runErr != nil {
		runErr = fmt.Errorf("ui: %w", runErr)
	}
	fm, ok := final.(Console)
	if !ok {
		return runErr
	}
	return errors.Join(runErr, releaseAll(ctx, fm.opts.Backend, fm.own))
}

// releaseAll releases through b every lock in own the operator holds or
// waits for.
func releaseAll(ctx context.Context, b Backend, own ownLocks) error {
	if b == nil {
		return nil
	}
	base := context.WithoutCancel(ctx)
	var errs []error
	for _, o := range own.sorted() {
		if !own.active(o.Path) {
			continue
		}
		rctx, cancel := context.WithTimeout(base, releaseTimeout)
		if err := b.Release(rctx, o.Path); err != nil {
			errs = append(errs, fmt.Errorf("%w %s: %w", ErrRelease, draw.Clean(o.Path, 0), err))
		}
		cancel()
	}
	return errors.Join(errs...)
}
