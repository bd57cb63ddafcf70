package doctor

// zklock doctor: what each member of an ensemble offers this client, and
// what stands in the way, member by member.

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/zklock/zklock/ensemble"
	"github.com/zklock/zklock/third_party/zk"

	"github.com/zklock/zklock/config"
	"github.com/zklock/zklock/fourletter"
	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/model"
)

// Words are the four-letter words zklock uses or reports on: srvr
// (version and mode, allowed by default), ruok, cons and wchc (the
// console's server view), mntr (watch counts).
var Words = []string{"srvr", "ruok", "cons", "wchc", "mntr"}

// doctorWordRead caps what is read of a reply: enough to tell an answer
// from a refusal; cons and wchc run to megabytes on a big ensemble.
const doctorWordRead = 64 << 10

// Schema is the version of `doctor -o json`. It changes only when a
// field changes meaning or goes away; new fields may appear within a
// version.
const Schema = 1

// Report is what doctor prints; the JSON field names are stable.
type Report struct {
	Schema   int       `json:"schema"`
	Context  string    `json:"context,omitempty"`
	Servers  []string  `json:"servers"`
	Chroot   string    `json:"chroot,omitempty"`
	TLS      *TLSConf  `json:"tls"` // null: plain TCP
	Members  []*Member `json:"members"`
	Clock    Clock     `json:"clock"`
	Roots    []Root    `json:"roots"`
	Problems []string  `json:"problems"` // one line each; [] when all is well
	// SASL is null without SASL (doctorsasl.go).
	SASL *SASL `json:"sasl"`
}

type TLSConf struct {
	CA               string `json:"ca,omitempty"`
	Cert             string `json:"cert,omitempty"`
	ServerName       string `json:"server_name,omitempty"`
	HostnameVerified bool   `json:"hostname_verified"`
}

type Member struct {
	Server  string `json:"server"`
	Usable  bool   `json:"usable"`          // a session was made with it
	Error   string `json:"error,omitempty"` // why not
	Version string `json:"version,omitempty"`
	Mode    string `json:"mode,omitempty"` // leader, follower, standalone, observer
	// FourLetter maps each word to "allowed", "refused" (not in
	// 4lw.commands.whitelist) or "no answer: ...".
	FourLetter map[string]string `json:"four_letter_words"`
	// AddWatch: "supported", "unsupported" (the server refused it), or
	// "unknown: ..." when it could not be tried.
	AddWatch string `json:"add_watch"`
	// SessionTimeoutMS is the timeout the member granted (0: no session).
	SessionTimeoutMS int64    `json:"session_timeout_ms"`
	TLS              *PeerTLS `json:"tls,omitempty"`
	// SASL is the member's answer to the exchange (doctorsasl.go).
	SASL string `json:"sasl,omitempty"`
	// SASLPrincipal is the servers' principal GSSAPI asked a ticket for.
	SASLPrincipal string `json:"sasl_server_principal,omitempty"`
	// Zxid is the member's last zxid from srvr; null when srvr gave none.
	Zxid *Zxid `json:"zxid,omitempty"`
	// ServerView says which source tells the member's sessions and
	// watches (doctortruth.go).
	ServerView *ServerView `json:"server_view,omitempty"`
}

// Zxid is a member's zxid split in epoch and counter, and how near
// the counter is to its rollover (model.ZxidWarnRatio).
type Zxid struct {
	Zxid         string  `json:"zxid"` // "0x5000001a3", as srvr prints it
	Epoch        uint32  `json:"epoch"`
	Counter      uint32  `json:"counter"`
	CounterRatio float64 `json:"counter_ratio"` // 0 to 1: the rollover
	NearRollover bool    `json:"near_rollover"` // past model.ZxidWarnRatio
}

// zxidOf is z split for doctor, nil when srvr gave none (z < 0).
func zxidOf(z int64) *Zxid {
	if z < 0 {
		return nil
	}
	return &Zxid{Zxid: fmt.Sprintf("%#x", z), Epoch: model.ZxidEpoch(z), Counter: model.ZxidCounter(z),
		CounterRatio: model.ZxidCounterRatio(z), NearRollover: model.ZxidNearRollover(z)}
}

// line is z as doctor's text says it, with a warning past
// model.ZxidWarnRatio.
func (z *Zxid) line() string {
	s := fmt.Sprintf("%s: epoch %d, counter %d, %.1f%% of the way to its rollover", z.Zxid, z.Epoch, z.Counter, 100*z.CounterRatio)
	if z.NearRollover {
		s += fmt.Sprintf(" (WARNING: past %.0f%%; at the rollover the whole ensemble elects a leader and every session reconnects: restart the leader at a quiet hour to start a new epoch first)",
			100*model.ZxidWarnRatio)
	}
	return s
}

type PeerTLS struct {
	Protocol string    `json:"protocol,omitempty"`
	Cipher   string    `json:"cipher,omitempty"`
	Subject  string    `json:"subject,omitempty"`
	Issuer   string    `json:"issuer,omitempty"`
	Names    []string  `json:"names,omitempty"`
	NotAfter time.Time `json:"not_after,omitzero"`
	Verified bool      `json:"verified"`
}

// doctorClock: the offset of the clock that stamps node times. A node's
// ctime is the leader's clock when it proposed the create, so this is the
// leader's clock against this machine's, whichever member the session
// used; the members' own clocks are not visible to a client.
type Clock struct {
	Measured      bool    `json:"measured"`
	OffsetMS      float64 `json:"offset_ms"`      // server minus local; + means the server is ahead
	UncertaintyMS float64 `json:"uncertainty_ms"` // half the round trip
	Note          string  `json:"note,omitempty"` // why not measured
}

type Root struct {
	Path     string `json:"path"`
	Readable bool   `json:"readable"`
	Children int    `json:"children"`
	Error    string `json:"error,omitempty"`
}

func Run(ctx context.Context, s *config.Settings) *Report {
	rep := &Report{Schema: Schema, Context: s.ContextName, Servers: s.Servers, Chroot: s.Chroot, Problems: []string{}}
	if s.TLS != nil {
		rep.TLS = &TLSConf{CA: s.TLS.CA, Cert: s.TLS.Cert, ServerName: s.TLS.ServerName, HostnameVerified: !s.TLS.SkipHostnameVerify}
	}
	rep.SASL = newDoctorSASL(s)
	sessions := make([]*lockops.Session, len(s.Servers))
	var wg sync.WaitGroup
	for i, addr := range s.Servers {
		m := &Member{Server: addr, FourLetter: map[string]string{}}
		rep.Members = append(rep.Members, m)
		wg.Go(func() { sessions[i] = examineMember(ctx, s, m) })
	}
	wg.Wait()
	probeServerViews(ctx, s, rep)
	defer func() {
		for _, sess := range sessions {
			if sess != nil {
				sess.Close()
			}
		}
	}()
	var first *lockops.Session
	for i, m := range rep.Members {
		if !m.Usable {
			rep.Problems = append(rep.Problems, fmt.Sprintf("%s: %s", m.Server, m.Error))
		} else if first == nil {
			first = sessions[i]
		}
	}
	if first == nil {
		rep.Clock.Note = "no member gave a session"
		return rep
	}
	rep.Clock = measureClock(ctx, s, first)
	roots := s.Roots
	if len(roots) == 0 {
		roots = []string{"/"}
	}
	for _, r := range roots {
		dr := readRoot(ctx, first, r)
		if !dr.Readable {
			rep.Problems = append(rep.Problems, fmt.Sprintf("lock root %s: %s", r, dr.Error))
		}
		rep.Roots = append(rep.Roots, dr)
	}
	return rep
}

// examineMember fills m and returns the member's session (nil if none).
// The four-letter words are asked while the session is made; a link that
// fails for good (the port speaks the other protocol, a certificate is
// refused) fails them too, so they are cut short and told why once,
// instead of each waiting out the connect timeout.
func examineMember(ctx context.Context, s *config.Settings, m *Member) *lockops.Session {
	wctx, cutWords := context.WithCancel(ctx)
	defer cutWords()
	var wg sync.WaitGroup
	results := make([]wordResult, len(Words))
	for i, w := range Words {
		wg.Go(func() { results[i] = askWord(wctx, s, m.Server, w) })
	}
	one := *s
	one.Servers = []string{m.Server}
	sess, err := ensemble.ConnectBounded(ctx, &one)
	var lf *ensemble.LinkFailure
	if errors.As(err, &lf) {
		cutWords()
	}
	wg.Wait()
	for i, w := range Words {
		r := results[i]
		if r.cut && ctx.Err() == nil {
			if les := ensemble.LinkErrors(err); len(les) > 0 {
				r.verdict = "no answer: " + les[0].Problem.String()
			}
		}
		m.FourLetter[w] = r.verdict
		m.readVersion(w, r.reply)
	}
	m.SASL, m.SASLPrincipal = saslAnswer(s, err), saslAskedFor(s, m.Server)
	if err != nil {
		m.Error = ensemble.SASLHint(err).Error()
		m.AddWatch = "unknown: no session"
		if les := ensemble.LinkErrors(err); len(les) > 0 {
			if c := ensemble.ServerCert(les[0]); c != nil {
				m.TLS = certDetails(c, false)
			}
		}
		return nil
	}
	m.Usable = true
	m.SessionTimeoutMS = sess.Timeout().Milliseconds()
	if st, ok := sess.TLSState(); ok {
		m.TLS = certDetails(nil, true)
		if len(st.PeerCertificates) > 0 {
			m.TLS = certDetails(st.PeerCertificates[0], true)
		}
		m.TLS.Protocol = tls.VersionName(st.Version)
		m.TLS.Cipher = tls.CipherSuiteName(st.CipherSuite)
	}
	m.AddWatch = tryAddWatch(ctx, sess)
	return sess
}

// readVersion takes the member's version and mode from the reply to
// srvr, or to mntr when srvr gave none.
func (m *Member) readVersion(word, reply string) {
	switch {
	case reply == "":
	case word == "srvr":
		srvr := fourletter.ParseSrvr(reply)
		m.Version, m.Mode, m.Zxid = srvr.Version, srvr.Mode, zxidOf(srvr.Zxid)
	case word == "mntr" && m.Version == "":
		mntr := fourletter.ParseMntr(reply)
		m.Version, m.Mode = fourletter.ShortVersion(mntr["zk_version"]), mntr["zk_server_state"]
	}
}

type wordResult struct {
	verdict, reply string
	cut            bool // given up: the caller's ctx ended first
}

// askWord sends one four-letter word through the same kind of link a
// session uses (TLS on a secure port). A word given up because parent
// ended (not at the connect timeout) is marked cut.
func askWord(parent context.Context, s *config.Settings, addr, word string) wordResult {
	ctx, cancel := context.WithTimeout(parent, s.ConnectTimeout)
	defer cancel()
	var opts []lockops.SessionOption
	if s.TLS != nil {
		opts = append(opts, lockops.WithTLS(s.TLS.Config))
		if s.TLS.SkipHostnameVerify {
			opts = append(opts, lockops.WithoutHostnameVerification())
		}
	}
	dial := func(ctx context.Context, addr string) (net.Conn, error) { return lockops.Dial(ctx, addr, opts...) }
	reply, err := fourletter.Ask(ctx, addr, word, fourletter.WithDial(dial), fourletter.WithMaxReply(doctorWordRead))
	switch {
	case errors.Is(err, fourletter.ErrRefused):
		return wordResult{verdict: "refused"}
	case reply != "":
		// Cut short by the cap or the deadline, it still tells an answer
		// from a refusal.
		return wordResult{verdict: "allowed", reply: reply}
	case parent.Err() != nil:
		return wordResult{verdict: "no answer: " + ensemble.ErrText(err), cut: true}
	case err != nil:
		if les := ensemble.LinkErrors(err); len(les) > 0 {
			return wordResult{verdict: "no answer: " + les[0].Problem.String()}
		}
		var fe *fourletter.Error
		if errors.As(err, &fe) {
			err = fe.Err // the word and the server are on the report's line
		}
		return wordResult{verdict: "no answer: " + ensemble.ErrText(err)}
	}
	return wordResult{verdict: "no answer: closed without a reply"}
}

func certDetails(c *x509.Certificate, verified bool) *PeerTLS {
	t := &PeerTLS{Verified: verified}
	if c == nil {
		return t
	}
	t.Subject, t.Issuer, t.NotAfter = c.Subject.String(), c.Issuer.String(), c.NotAfter.UTC()
	t.Names = ensemble.CertNames(c)
	return t
}

// tryAddWatch sets a persistent recursive watch on a path that does not
// exist (nothing is delivered to it) and removes it again.
func tryAddWatch(ctx context.Context, sess *lockops.Session) string {
	p := "/zklock-doctor-" + randomHex()
	type res struct{ err error }
	ch := make(chan res, 1)
	go func() {
		_, err := sess.AddWatch(ctx, p, true)
		if err == nil {
			err = sess.RemovePersistentWatch(ctx, p)
		}
		ch <- res{err}
	}()
	select {
	case r := <-ch:
		switch {
		case r.err == nil:
			return "supported"
		case errors.Is(r.err, zk.ErrUnimplemented):
			return "unsupported"
		}
		return "unknown: " + ensemble.ErrText(r.err)
	case <-ctx.Done():
		return "unknown: " + ctx.Err().Error()
	case <-time.After(doctorRequestWait):
		return "unknown: no reply within " + doctorRequestWait.String()
	}
}

// doctorRequestWait bounds one request of doctor's.
const doctorRequestWait = 10 * time.Second

// measureClock creates an ephemeral node and compares its ctime (the
// leader's clock) with the middle of the round trip.
func measureClock(ctx context.Context, s *config.Settings, sess *lockops.Session) Clock {
	if s.ReadOnly {
		return Clock{Note: "read-only: measuring writes a temporary node (a read-only context needs --write)"}
	}
	p := "/zklock-doctor-" + randomHex()
	type res struct {
		ctime      int64
		start, end time.Time
		err        error
	}
	ch := make(chan res, 1)
	go func() {
		var r res
		r.start = time.Now()
		_, err := sess.Create(ctx, p, []byte("zklock doctor: clock probe"), zk.FlagEphemeral, zk.WorldACL(zk.PermAll))
		r.end = time.Now()
		if err == nil {
			var st *zk.Stat
			_, st, err = sess.Get(ctx, p)
			if err == nil {
				r.ctime = st.Ctime
			}
			_ = sess.Delete(ctx, p, -1)
		}
		r.err = err
		ch <- r
	}()
	var r res
	select {
	case r = <-ch:
	case <-ctx.Done():
		return Clock{Note: ctx.Err().Error()}
	case <-time.After(doctorRequestWait):
		return Clock{Note: "no reply within " + doctorRequestWait.String()}
	}
	if r.err != nil {
		return Clock{Note: "cannot create a temporary node at " + s.Chroot + "/: " + ensemble.ErrText(ensemble.PathErr(p, r.err))}
	}
	mid := r.start.Add(r.end.Sub(r.start) / 2)
	server := time.UnixMilli(r.ctime)
	// ctime has millisecond resolution: half a millisecond more.
	return Clock{
		Measured:      true,
		OffsetMS:      float64(server.Sub(mid).Microseconds()) / 1000,
		UncertaintyMS: float64(r.end.Sub(r.start).Microseconds())/2000 + 0.5,
	}
}

func readRoot(ctx context.Context, sess *lockops.Session, root string) Root {
	dr := Root{Path: root}
	type res struct {
		kids []string
		err  error
	}
	ch := make(chan res, 1)
	go func() {
		kids, _, err := sess.ChildrenStat(ctx, root)
		ch <- res{kids, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			dr.Error = ensemble.ErrText(ensemble.PathErr(root, r.err))
			return dr
		}
		dr.Readable, dr.Children = true, len(r.kids)
	case <-ctx.Done():
		dr.Error = ctx.Err().Error()
	case <-time.After(doctorRequestWait):
		dr.Error = "no reply within " + doctorRequestWait.String()
	}
	return dr
}

func randomHex() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b) // never fails (Go 1.24+)
	return hex.EncodeToString(b)
}

// write prints the report as text.
func (r *Report) Write(w io.Writer) {
	fmt.Fprintln(w, r.headline())
	for _, m := range r.Members {
		fmt.Fprintln(w)
		m.write(w, r)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "ensemble")
	if r.Clock.Measured {
		fmt.Fprintf(w, "  %-11s %+.1f ms ±%.1f ms: the leader's clock (which stamps node times) against this machine's; lock ages from ctime are off by this much\n",
			"clock", r.Clock.OffsetMS, r.Clock.UncertaintyMS)
	} else {
		fmt.Fprintf(w, "  %-11s not measured: %s\n", "clock", r.Clock.Note)
	}
	for _, root := range r.Roots {
		if root.Readable {
			fmt.Fprintf(w, "  %-11s %s readable (%s)\n", "lock root", root.Path, plural(root.Children, "child", "children"))
		} else {
			fmt.Fprintf(w, "  %-11s %s NOT readable: %s\n", "lock root", root.Path, root.Error)
		}
	}
	if len(r.Problems) == 0 {
		fmt.Fprintln(w, "  problems    none")
	}
}

// headline is the report's first line: the ensemble, its chroot and how
// the link is secured.
func (r *Report) headline() string {
	head := "zklock doctor: " + strings.Join(r.Servers, ",")
	if r.Context != "" {
		head = "zklock doctor: context " + r.Context + " (" + strings.Join(r.Servers, ",") + ")"
	}
	if r.Chroot != "" {
		head += ", chroot " + r.Chroot
	}
	switch {
	case r.TLS == nil:
		head += ", plain TCP"
	case r.TLS.HostnameVerified:
		head += ", TLS"
	default:
		head += ", TLS with hostname verification OFF"
	}
	return head
}

// write writes m's section of r: its version and mode, its session, the
// SASL answer, TLS, four-letter words and addWatch.
func (m *Member) write(w io.Writer, r *Report) {
	title := m.Server
	if m.Version != "" {
		title += "  ZooKeeper " + m.Version
	}
	if m.Mode != "" {
		title += ", " + m.Mode
	}
	fmt.Fprintln(w, title)
	if !m.Usable {
		fmt.Fprintf(w, "  %-11s %s\n", "session", "NONE: "+m.Error)
	} else {
		fmt.Fprintf(w, "  %-11s timeout %s granted\n", "session", time.Duration(m.SessionTimeoutMS)*time.Millisecond)
	}
	writeSASLLine(w, r, m)
	if t := m.TLS; t != nil {
		var parts []string
		if t.Protocol != "" {
			parts = append(parts, t.Protocol+", "+t.Cipher)
		}
		if t.Subject != "" {
			parts = append(parts, fmt.Sprintf("server %q for %s, issued by %q, expires %s",
				t.Subject, strings.Join(t.Names, " "), t.Issuer, t.NotAfter.Format("2006-01-02 15:04 UTC")))
		}
		if !t.Verified {
			parts = append(parts, "NOT verified")
		}
		fmt.Fprintf(w, "  %-11s %s\n", "TLS", strings.Join(parts, "; "))
	}
	fmt.Fprintf(w, "  %-11s %s\n", "4lw", m.wordsLine())
	writeServerView(w, m)
	aw := m.AddWatch
	switch aw {
	case "supported":
		aw = "supported: the console uses persistent recursive watches"
	case "unsupported":
		aw = "unsupported (ZooKeeper before 3.6): the console falls back to children watches, re-listing each change"
	}
	fmt.Fprintf(w, "  %-11s %s\n", "addWatch", aw)
	if m.Zxid != nil {
		fmt.Fprintf(w, "  %-11s %s\n", "zxid", m.Zxid.line())
	}
}

// wordsLine says which four-letter words m allows, refuses, or did not
// answer.
func (m *Member) wordsLine() string {
	var allowed, refused, silent []string
	for _, word := range Words {
		switch v := m.FourLetter[word]; {
		case v == "allowed":
			allowed = append(allowed, word)
		case v == "refused":
			refused = append(refused, word)
		default:
			silent = append(silent, word+" ("+v+")")
		}
	}
	var words []string
	if len(allowed) > 0 {
		words = append(words, strings.Join(allowed, " ")+" allowed")
	}
	if len(refused) > 0 {
		words = append(words, strings.Join(refused, " ")+" refused (4lw.commands.whitelist)")
	}
	if len(silent) > 0 {
		words = append(words, strings.Join(silent, ", "))
	}
	return strings.Join(words, "; ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
