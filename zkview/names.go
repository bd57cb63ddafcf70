package zkview

import (
	"strconv"
	"strings"

	"github.com/zklock/zklock/lockops"
)

// NodeRef names a node the way every view does: "#7" for a lock node (by
// the recipes' grammar, lockops.ParseName, not by a ten-digit tail alone:
// a Kazoo semaphore lease's random hex can end in ten digits), otherwise
// its sanitized name cut to max runes (0: no cut).
func NodeRef(name string, max int) string {
	if n, ok := lockops.ParseName(name); ok && n.Kind != lockops.KindOther {
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
	if n, ok := lockops.ParseName(name); ok && n.Kind != lockops.KindOther {
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
