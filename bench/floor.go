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
	a, err := dialZK(ctx, servers, timeout)
	if err != nil {
		return nil, err
	}
	defer a.Close()
	w, err := dialZK(ctx, servers, timeout)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	if err := makeParents(a, p); err != nil {
		return nil, err
	}
	lat := make([]time.Duration, 0, cycles)
	t := time.NewTimer(floorWait)
	defer t.Stop()
	for range cycles {
		n, err := a.Create(p+"/n-", nil, zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll))
		if err != nil {
			return nil, err
		}
		_, _, ch, err := w.GetW(n)
		if err != nil {
			return nil, err
		}
		start := time.Now()
		if err := a.Delete(n, -1); err != nil {
			return nil, err
		}
		t.Reset(floorWait)
		select {
		case ev := <-ch:
			if ev.Type != zk.EventNodeDeleted {
				return nil, fmt.Errorf("bench: floor: watch fired with %v", ev.Type)
			}
		case <-t.C:
			return nil, fmt.Errorf("bench: floor: no wake within %v", floorWait)
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		lat = append(lat, time.Since(start))
	}
	return lat, nil
}
