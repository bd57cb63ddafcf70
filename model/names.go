package model

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
)

// NodeRef names a node the way every view does: "#7" for a lock node (by
// the recipes' grammar, ordering.ParseName, not by a ten-digit tail alone:
// a Kazoo semaphore lease's random hex can end in ten digits), otherwise
// its sanitized name cut to max runes (0: no cut).
func NodeRef(name string, max int) string {
	if n, ok := ordering.ParseName(name); ok && n.Kind != ordering.KindOther {
		return "#" + strconv.FormatInt(int64(n.Seq), 10)
	}
	return SanitizeString(name, max)
}

// SessionHex writes a session id as the servers do: 0x and lower-case
// hex; "" for 0 (no session, or a persistent node's owner).
func SessionHex(id int64) string {
	if id == 0 {
		return ""
	}
	return "0x" + strconv.FormatUint(uint64(id), 16)
}

// ConfirmToken is what an operator types to confirm a destructive action
// on a node, and what to call it: the sequence number for a lock node
// ("41"), the last four characters of the name for a node without one (a
// Kazoo semaphore lease, named by its client).
func ConfirmToken(name string) (what, token string) {
	if n, ok := ordering.ParseName(name); ok && n.Kind != ordering.KindOther {
		return "sequence number", strconv.FormatInt(int64(n.Seq), 10)
	}
	r := []rune(name)
	return "last 4 characters of its name", string(r[max(len(r)-4, 0):])
}

// Confirms says whether typed confirms the node (see ConfirmToken): a
// sequence number is taken as shown (41) or as ZooKeeper writes it
// (0000000041).
func Confirms(name, typed string) bool {
	what, token := ConfirmToken(name)
	typed = strings.TrimSpace(typed)
	if what == "sequence number" {
		n, err := strconv.ParseInt(typed, 10, 32)
		want, _ := strconv.ParseInt(token, 10, 32)
		return err == nil && n == want
	}
	return typed == token
}

// short is a node name for an event or warning line: sanitized, and cut
// beyond 64 cells (every recipe's own names are shorter: Curator's are 55
// characters), keeping the tail, where the sequence is.
func ShortName(name string) string {
	s := SanitizeString(name, 0)
	const max = 64
	if len([]rune(s)) <= max {
		return s
	}
	r := []rune(s)
	return "…" + string(r[len(r)-(max-1):])
}

// GapText is a duration as a person reads it: 3.2ms, 1.4s, 2m3s.
func GapText(d time.Duration) string {
	switch {
	case d < 0:
		d = 0
		fallthrough
	case d < time.Millisecond:
		return fmt.Sprintf("%dµs", d.Microseconds())
	case d < time.Second:
		return fmt.Sprintf("%.1fms", float64(d.Microseconds())/1000)
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return d.Truncate(time.Second).String()
}

// join is path.Join for a parent and one child name, without Clean's
// rewriting of odd names.
func ChildPath(parent, name string) string {
	if parent == "/" {
		return "/" + name
	}
	return parent + "/" + name
}
