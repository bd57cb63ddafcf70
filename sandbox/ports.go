package sandbox

import (
	"errors"
	"fmt"
	"net"
)

// freePorts returns n distinct loopback TCP ports that were free a moment
// ago. All n listeners are held open together so that the kernel cannot hand
// out one port twice; they are closed before returning, so another process
// can still take a port before the server binds it. Start detects that
// (ErrPortInUse in the server's log) and retries once on new ports.
func freePorts(n int) ([]int, error) {
	ports := make([]int, 0, n)
	var lns []net.Listener
	var err error
	for range n {
		var ln net.Listener
		ln, err = net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			err = fmt.Errorf("sandbox: pick a free port: %w", err)
			break
		}
		lns = append(lns, ln)
		ports = append(ports, ln.Addr().(*net.TCPAddr).Port)
	}
	for _, ln := range lns {
		err = errors.Join(err, ln.Close())
	}
	if err != nil {
		return nil, err
	}
	return ports, nil
}
