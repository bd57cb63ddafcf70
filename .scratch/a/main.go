package main

import (
	"fmt"
	"time"

	"github.com/zklock/zklock/third_party/zk"
)

func main() {
	c, _, err := zk.Connect([]string{"127.0.0.1:22181"}, 6*time.Second)
	if err != nil {
		panic(err)
	}
	c.Create("/l", nil, 0, zk.WorldACL(zk.PermAll))
	p, err := c.Create("/l/x-", nil, zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll))
	fmt.Println(p, err)
	_, _, _, err = c.ExistsW("/l")
	fmt.Println(err, fmt.Sprintf("%x", c.SessionID()))
	time.Sleep(200 * time.Second)
}
