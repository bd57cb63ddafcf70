package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/zklock/zklock/fourletter"
	"github.com/zklock/zklock/sandbox"
	"github.com/zklock/zklock/third_party/zk"
)

func main() {
	ctx := context.Background()
	c, err := sandbox.Start(ctx, sandbox.Options{Members: 3, AdminServer: &sandbox.AdminOptions{}})
	if err != nil {
		panic(err)
	}
	defer c.Close()
	for _, s := range c.Servers() {
		conn, _, _ := zk.Connect([]string{s}, 6*time.Second)
		time.Sleep(500 * time.Millisecond)
		conn.Create("/e", nil, zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll))
		fmt.Printf("%s %x\n", s, conn.SessionID())
	}
	time.Sleep(2 * time.Second)
	l, _ := c.Leader(ctx)
	fmt.Println("leader", l)
	for i, m := range c.Members() {
		r, _ := http.Get(m.AdminURL() + "/commands/dump")
		b, _ := io.ReadAll(r.Body)
		fmt.Println(i, string(b))
		d, _ := fourletter.Ask(ctx, m.Addr(), "dump")
		fmt.Println(i, d)
		cs, _ := fourletter.Ask(ctx, m.Addr(), "cons")
		fmt.Println(i, cs)
	}
}
