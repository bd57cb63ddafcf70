package lockops_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os/exec"
	"time"

	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/lockops/ordering"
)

// Order reads a lock parent's children in sequence order, whatever their
// recipes' prefixes: a browser that sorts by name would put the Kazoo node
// first.
func ExampleOrder() {
	q := ordering.Order([]string{
		"_c_4f1c2a8e-0b7d-4c1e-9a55-2f6d0c3b9e71-lock-0000000012",
		"0123456789abcdef0123456789abcdef__lock__0000000011",
		"leases",
		"lock-0000000010",
	})
	for _, e := range q.Entries {
		fmt.Println(e.Seq, e.Recipe, e.Kind, e.Role)
	}
	fmt.Println("other:", q.Other)
	fmt.Println("mixed:", len(q.MixedRecipes()) > 1)
	// Output:
	// 10 plain mutex holder
	// 11 kazoo mutex waiting
	// 12 curator mutex waiting
	// other: [leases]
	// mixed: true
}

// Acquire waits in the queue until the lock is held or ctx ends; on
// cancel it deletes its own node before returning.
func ExampleLock_Acquire() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := lockops.Connect(ctx, []string{"127.0.0.1:2181"})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()

	l := lockops.NewLock(s, "/locks/nightly-report", lockops.WithNote("maintenance"))
	if err := l.Acquire(ctx); err != nil {
		log.Fatal(err) // not queued any more: the own node is gone
	}
	defer l.Release(context.Background())
	fmt.Println("holding", l.Node())
}

// A held lock can be lost (session expired, node deleted by an
// operator): Done closes and Err says why. Work done under the lock
// selects on Done, as `zklock run` does to stop its command.
func ExampleLock_Done() {
	ctx := context.Background()
	s, err := lockops.Connect(ctx, []string{"127.0.0.1:2181"})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()

	l := lockops.NewLock(s, "/locks/reindex")
	if err := l.Acquire(ctx); err != nil {
		log.Fatal(err)
	}
	cmd := exec.Command("reindex", "--all")
	if err := cmd.Start(); err != nil {
		log.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	select {
	case err := <-exited:
		fmt.Println("done:", err)
		if err := l.Release(ctx); err != nil && !errors.Is(err, lockops.ErrNotHeld) {
			log.Print(err)
		}
	case <-l.Done():
		_ = cmd.Process.Kill() // no longer exclusive: stop at once
		fmt.Println("lock lost:", l.Err())
	}
}

// A worker that loops on a lock gives it back and queues again with
// Rejoin: one transaction deletes the own node and creates the next one at
// the tail, so the next holder's turn does not wait behind a re-create of
// its own. Each turn has a fencing token of its own.
func ExampleLock_Rejoin() {
	ctx := context.Background()
	s, err := lockops.Connect(ctx, []string{"127.0.0.1:2181"})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()

	l := lockops.NewLock(s, "/locks/outbox-drain")
	if err := l.Acquire(ctx); err != nil {
		log.Fatal(err)
	}
	for turn := 0; turn < 10; turn++ {
		fmt.Println("turn", turn, "token", l.FencingToken()) // the work of one turn
		if err := l.Rejoin(ctx); err != nil {
			log.Fatal(err) // not held, and no node of ours left in the queue
		}
	}
	if err := l.Release(ctx); err != nil {
		log.Print(err)
	}
}
