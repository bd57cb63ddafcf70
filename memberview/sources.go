package memberview

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/zklock/zklock/fourletter"
)

// Source names where a member's answers came from.
type Source string

const (
	// FourLetter is the four-letter words (cons, wchc, dump).
	FourLetter Source = "4lw"
	// Admin is the AdminServer (/commands/connections, /commands/watches,
	// /commands/dump).
	Admin Source = "admin"
)

// ErrAdmin is the cause of an AdminServer command that did not answer
// (an HTTP status other than 200, or the command's own error).
var ErrAdmin = errors.New("memberview: AdminServer refused")

// maxAdminReply caps one AdminServer answer as fourletter caps a word's:
// 10,000 sessions run to a few MB; a wrong port streaming forever must not
// fill memory.
const maxAdminReply = fourletter.DefaultMaxReply

// answer is one member's answer from one source, in the member's terms.
type answer struct {
	source  Source
	conns   []fourletter.Connection
	watches map[int64][]string
	// dumped: the dump answered. buckets (AdminServer: the member's
	// monotonic ms) or expiryWall (four-letter dump: its wall clock, to the
	// second) map a session to its expiry; both empty on a follower.
	dumped  bool
	buckets map[int64]int64
	// bucketTimes are the AdminServer dump's buckets, empty ones too.
	bucketTimes []int64
	expiryWall  map[int64]time.Time
	refused     []Refusal
	bytes       int64
	answered    time.Time // when the last reply came
	// dumpAnswered is when the dump's reply came, asked apart (askDumps).
	dumpAnswered time.Time
}

// ok reports whether the source told who is connected and what they
// watch, the two things a member must tell to count as answered.
func (a *answer) ok() bool { return a.conns != nil && a.watches != nil }

// Refusal is one command a source did not answer, and why.
type Refusal struct {
	Source  Source
	Command string
	Err     error
}

// adminConnection is one of /commands/connections' entries.
type adminConnection struct {
	Remote       string `json:"remote_socket_address"`
	Session      int64  `json:"session_id"`
	Timeout      int64  `json:"session_timeout"`
	LastResponse int64  `json:"last_response_time"`
	Received     int64  `json:"packets_received"`
	Established  int64  `json:"established"`
}

// askAdmin asks one member's AdminServer at base ("http://host:port") for
// connections and watches, and dump when withDump.
func askAdmin(ctx context.Context, client *http.Client, base string, withDump bool) *answer {
	a := &answer{source: Admin}
	var conns struct {
		Plain  []adminConnection `json:"connections"`
		Secure []adminConnection `json:"secure_connections"`
	}
	if a.get(ctx, client, base, "connections", &conns) {
		a.conns = []fourletter.Connection{}
		for _, c := range append(conns.Plain, conns.Secure...) {
			if c.Session == 0 {
				continue // no session yet
			}
			fc := fourletter.Connection{Session: c.Session, Client: fourletter.ClientAddr(c.Remote),
				LastResponse: c.LastResponse, Timeout: time.Duration(c.Timeout) * time.Millisecond, Received: c.Received}
			if c.Established > 0 {
				fc.Established = time.UnixMilli(c.Established)
			}
			a.conns = append(a.conns, fc)
		}
	}
	var watches struct {
		Watched map[string][]string `json:"session_id_to_watched_paths"`
	}
	if a.get(ctx, client, base, "watches", &watches) {
		a.watches = map[int64][]string{}
		for s, paths := range watches.Watched {
			if id, err := strconv.ParseInt(s, 10, 64); err == nil {
				a.watches[id] = paths
			}
		}
	}
	if !withDump {
		return a
	}
	var dump struct {
		Expiry map[string][]int64 `json:"expiry_time_to_session_ids"`
	}
	if a.get(ctx, client, base, "dump", &dump) {
		a.dumped, a.buckets = true, map[int64]int64{}
		for at, ids := range dump.Expiry {
			t, err := strconv.ParseInt(at, 10, 64)
			if err != nil {
				continue
			}
			a.bucketTimes = append(a.bucketTimes, t) // empty ones bound the tick too
			for _, id := range ids {
				a.buckets[id] = t
			}
		}
	}
	return a
}

// get fetches one command into v; false (with a Refusal noted) when it
// did not answer.
func (a *answer) get(ctx context.Context, client *http.Client, base, command string, v any) bool {
	err := func() error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/commands/"+command, nil)
		if err != nil {
			return err
		}
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(io.LimitReader(resp.Body, maxAdminReply+1))
		a.bytes += int64(len(body))
		a.answered = time.Now()
		switch {
		case err != nil:
			return err
		case resp.StatusCode != http.StatusOK:
			return fmt.Errorf("%w: %s", ErrAdmin, resp.Status)
		case len(body) > maxAdminReply:
			return fmt.Errorf("%w: reply longer than %d bytes", ErrAdmin, maxAdminReply)
		}
		var head struct {
			Error *string `json:"error"`
		}
		if err := json.Unmarshal(body, &head); err != nil {
			return fmt.Errorf("%w: not JSON (%v)", ErrAdmin, err)
		}
		if head.Error != nil {
			return fmt.Errorf("%w: %s", ErrAdmin, *head.Error)
		}
		return json.Unmarshal(body, v)
	}()
	if err != nil {
		a.refused = append(a.refused, Refusal{Source: Admin, Command: command, Err: fmt.Errorf("%s/commands/%s: %w", base, command, err)})
		return false
	}
	return true
}

// askFourLetter asks one member for cons and wchc at once, and dump when
// withDump.
func askFourLetter(ctx context.Context, addr string, dial func(context.Context, string) (net.Conn, error), withDump bool) *answer {
	a := &answer{source: FourLetter}
	var opts []fourletter.Option
	if dial != nil {
		opts = append(opts, fourletter.WithDial(dial))
	}
	words := []string{"cons", "wchc"}
	if withDump {
		words = append(words, "dump")
	}
	replies := make([]string, len(words))
	errs := make([]error, len(words))
	var wg sync.WaitGroup
	for i, w := range words {
		wg.Go(func() { replies[i], errs[i] = fourletter.Ask(ctx, addr, w, opts...) })
	}
	wg.Wait()
	a.answered = time.Now()
	for i, w := range words {
		a.bytes += int64(len(replies[i]))
		if errs[i] != nil {
			a.refused = append(a.refused, Refusal{Source: FourLetter, Command: w, Err: errs[i]})
			continue
		}
		switch w {
		case "cons":
			a.conns = fourletter.ParseConnections(replies[i])
			if a.conns == nil {
				a.conns = []fourletter.Connection{}
			}
		case "wchc":
			a.watches = fourletter.ParseWchc(replies[i])
		case "dump":
			d := fourletter.ParseDump(replies[i])
			a.dumped = true
			if d.ZoneKnown {
				a.expiryWall = d.Expiry
			}
		}
	}
	return a
}

// askTick asks a member for its tickTime (the AdminServer's configuration
// or the four-letter conf), 0 when it does not tell: the expiry buckets
// are multiples of it, and the first poll's tie of the leader's clock is
// a tick wide.
func askTick(ctx context.Context, client *http.Client, a *answer, base, addr string, dial func(context.Context, string) (net.Conn, error)) time.Duration {
	if a.source == Admin {
		var conf struct {
			Tick int64 `json:"tick_time"`
		}
		probe := &answer{}
		if probe.get(ctx, client, base, "configuration", &conf) && conf.Tick > 0 {
			return time.Duration(conf.Tick) * time.Millisecond
		}
		return 0
	}
	var opts []fourletter.Option
	if dial != nil {
		opts = append(opts, fourletter.WithDial(dial))
	}
	reply, err := fourletter.Ask(ctx, addr, "conf", opts...)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(reply, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "tickTime="); ok {
			if ms, err := strconv.ParseInt(v, 10, 64); err == nil && ms > 0 {
				return time.Duration(ms) * time.Millisecond
			}
		}
	}
	return 0
}
