package main

import (
	"context"
	"fmt"
	"time"

	"github.com/zklock/zklock/third_party/zk"
)

// floorWait bounds one wake in the floor loop: a notification takes well
// under a millisecond; seconds mean the server stalled.
const floorWait = 10 * time.Second

// handoffFloor is the least a handoff can cost on this server: one
// session deletes a node, another wakes on its data watch. It times the
// delete call to the wake, cycles times, and returns every latency.
func handoffFloor(ctx context.Context, servers []string, p string, cycles int, timeout time.Duration) ([]time.Duration, error) {
	f, err := newFloorPair(ctx, servers, p, timeout)
	if err != nil {
		return nil, err
	}
	defer f.close()
	lat := make([]time.Duration, 0, cycles)
	for range cycles {
		_, wake, err := f.cycle(ctx)
		if err != nil {
			return nil, err
		}
		lat = append(lat, wake)
	}
	return lat, nil
}

// floorPair is the floor's two sessions: a makes and deletes the node,
// w watches it.
type floorPair struct {
	a, w  *zk.Conn
	p     string
	timer *time.Timer
}

// newFloorPair connects the floor's two sessions and makes p.
func newFloorPair(ctx context.Context, servers []string, p string, timeout time.Duration) (*floorPair, error) {
	a, err := dialZK(ctx, servers, timeout)
	if err != nil {
		return nil, err
	}
	w, err := dialZK(ctx, servers, timeout)
	if err != nil {
		a.Close()
		return nil, err
	}
	if err := makeParents(a, p); err != nil {
		a.Close()
		w.Close()
		return nil, err
	}
	return &floorPair{a: a, w: w, p: p, timer: time.NewTimer(floorWait)}, nil
}

// close closes both sessions.
func (f *floorPair) close() {
	f.timer.Stop()
	f.a.Close()
	f.w.Close()
}

// cycle makes a node, has w watch it, and deletes it: del is the delete
// call to its return, wake the delete call to w's notification.
func (f *floorPair) cycle(ctx context.Context) (del, wake time.Duration, err error) {
	n, err := f.a.Create(f.p+"/n-", nil, zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll))
	if err != nil {
		return 0, 0, err
	}
	_, _, ch, err := f.w.GetW(n)
	if err != nil {
		return 0, 0, err
	}
	start := time.Now()
	if err := f.a.Delete(n, -1); err != nil {
		return 0, 0, err
	}
	del = time.Since(start)
	f.timer.Reset(floorWait)
	select {
	case ev := <-ch:
		if ev.Type != zk.EventNodeDeleted {
			return 0, 0, fmt.Errorf("bench: floor: watch fired with %v", ev.Type)
		}
	case <-f.timer.C:
		return 0, 0, fmt.Errorf("bench: floor: no wake within %v", floorWait)
	case <-ctx.Done():
		return 0, 0, ctx.Err()
	}
	return del, time.Since(start), nil
}
