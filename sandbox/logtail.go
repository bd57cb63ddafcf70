package sandbox

import (
	"bytes"
	"io"
	"os"
	"strings"
	"sync"
)

// tailBytes bounds how much of a log LogTail reads: a demo left running for
// hours writes megabytes, and the last lines are all that a failure report
// needs.
const tailBytes = 256 << 10

// tailFile returns the last n lines of the file at path, or a note saying
// why it cannot.
func tailFile(path string, n int) string {
	if n <= 0 {
		return ""
	}
	f, err := os.Open(path)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	off := max(st.Size()-tailBytes, 0)
	buf := make([]byte, st.Size()-off)
	if _, err := f.ReadAt(buf, off); err != nil && err != io.EOF {
		return "(log unreadable: " + err.Error() + ")"
	}
	return lastLines(string(buf), n)
}

func lastLines(s string, n int) string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return ""
	}
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// prefixWriter copies whole lines to a shared destination with a label in
// front, so that the logs of several members interleave readably. One
// mutex, shared by all members of a cluster, keeps lines whole.
type prefixWriter struct {
	mu     *sync.Mutex
	dst    io.Writer
	prefix []byte
	buf    []byte // a partial line waiting for its newline
}

func (w *prefixWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		line := append(append([]byte{}, w.prefix...), w.buf[:i+1]...)
		w.buf = w.buf[i+1:]
		// The copy is a convenience: a failing destination must not stop
		// the server, whose log file is the record.
		_, _ = w.dst.Write(line)
	}
	return len(p), nil
}
