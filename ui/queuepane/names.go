package queuepane

import (
	"math"
	"strconv"
	"strings"
)

// seqOf reads the sequence number ZooKeeper appended to a lock node's name
// (%010d, possibly negative after the counter wrapped). It is only used to
// label nodes that are not in the current snapshot (the queue itself
// carries parsed sequences).
func seqOf(name string) (int32, bool) {
	if len(name) < 10 {
		return 0, false
	}
	// Ten digits, as ZooKeeper writes them, without ParseInt: a snapshot
	// checks every node of a queue with it.
	var n int64
	for i := len(name) - 10; i < len(name); i++ {
		c := name[i]
		if c < '0' || c > '9' {
			return seqOfSigned(name)
		}
		n = n*10 + int64(c-'0')
	}
	if n > math.MaxInt32 {
		return 0, false
	}
	return int32(n), true
}

// seqOfSigned is seqOf for what is not ten digits: ParseInt also takes a
// sign.
func seqOfSigned(name string) (int32, bool) {
	n, err := strconv.ParseInt(name[len(name)-10:], 10, 32)
	if err != nil {
		return 0, false
	}
	return int32(n), true
}

// ShortName drops the sequence suffix (shown in its own column) and
// abbreviates the long random ids recipes put in names (Curator's uuid,
// Kazoo's and go-zookeeper's 32 hex digits) to their first 8 characters.
func ShortName(name string) string {
	if _, ok := seqOf(name); ok && len(name) > 10 {
		name = name[:len(name)-10]
	}
	var b strings.Builder
	for i := 0; i < len(name); {
		j := i
		for j < len(name) && isIDByte(name[j]) {
			j++
		}
		for j > i && name[j-1] == '-' {
			j-- // keep the separator after an id: "…-lock-"
		}
		if j-i >= 24 {
			b.WriteString(name[i : i+8])
			b.WriteString("…")
			i = j
			continue
		}
		if j > i {
			b.WriteString(name[i:j])
			i = j
			continue
		}
		b.WriteByte(name[i])
		i++
	}
	return b.String()
}

func isIDByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' || c == '-'
}
