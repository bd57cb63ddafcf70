package zkview

import (
	"strconv"

	"zklock/lockops"
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
