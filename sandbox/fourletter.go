package sandbox

import (
	"context"
	"time"

	"github.com/zklock/zklock/fourletter"
)

// serving reports whether a mode means the member answers clients.
func serving(mode string) bool {
	switch mode {
	case "leader", "follower", "standalone", "observer":
		return true
	}
	return false
}

// memberMode asks one member for its mode (fourletter.Srvr's Mode) with a
// short bound, so that a paused member costs one poll interval, not the
// caller's whole deadline.
func memberMode(ctx context.Context, addr string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	reply, err := fourletter.Ask(ctx, addr, "srvr")
	if err != nil {
		return "", err
	}
	return fourletter.ParseSrvr(reply).Mode, nil
}
