package doctor

// zklock doctor's "servers' view": per member, which source tells zklock
// who is connected, what they watch and how alive they are (the
// AdminServer or the four-letter words), what each refused, and the one
// line that fixes it (memberview.Probe).

import (
	"context"
	"fmt"
	"io"
	"net"
	"strings"

	"github.com/zklock/zklock/config"
	"github.com/zklock/zklock/ensemble"
	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/memberview"
)

// ServerView is one member's answer to memberview.Probe.
type ServerView struct {
	// Admin is the AdminServer URL asked, "" when --admin-port 0.
	Admin string `json:"admin,omitempty"`
	// Sources are those that told connections and watches: "admin",
	// "4lw"; [] when none did.
	Sources []string `json:"sources"`
	// Refused lists each command a source did not answer.
	Refused []Refusal `json:"refused"`
	// Fix is the one line that makes the member tell, "" when one does.
	Fix string `json:"fix,omitempty"`
}

type Refusal struct {
	Source  string `json:"source"`
	Command string `json:"command"`
	Error   string `json:"error"`
}

// probeServerViews asks every usable member through both sources and
// sets its doctorMember's ServerView (a member that gave no session has
// said why already; asking it again would only wait). A member that tells nothing is no problem
// for doctor's exit code (it can be used; the console's links are then
// inferred), but its fix is printed.
func probeServerViews(ctx context.Context, s *config.Settings, rep *Report) {
	var opts []lockops.SessionOption
	if s.TLS != nil {
		opts = append(opts, lockops.WithTLS(s.TLS.Config))
		if s.TLS.SkipHostnameVerify {
			opts = append(opts, lockops.WithoutHostnameVerification())
		}
	}
	dial := func(ctx context.Context, addr string) (net.Conn, error) { return lockops.Dial(ctx, addr, opts...) }
	ctx, cancel := context.WithTimeout(ctx, s.ConnectTimeout)
	defer cancel()
	var usable []*Member
	var addrs []string
	var ports []string
	for i, m := range rep.Members {
		if m.Usable {
			usable, addrs = append(usable, m), append(addrs, m.Server)
			_, port, _ := net.SplitHostPort(s.AdminPorts.Addr(i, m.Server))
			ports = append(ports, port)
		}
	}
	if len(usable) == 0 {
		return
	}
	adminPorts, err := memberview.ParseAdminPorts(strings.Join(ports, ","), len(ports))
	if err != nil || s.AdminPorts.Off() {
		adminPorts, _ = memberview.ParseAdminPorts("0", len(ports))
	}
	diags := memberview.Probe(ctx, memberview.Config{Members: addrs, AdminPorts: adminPorts,
		TLS: s.TLS.AdminConfig(), Dial: dial})
	for i, d := range diags {
		sv := &ServerView{Admin: d.Admin, Sources: []string{}, Refused: []Refusal{}, Fix: d.Fix}
		for _, src := range d.Sources {
			sv.Sources = append(sv.Sources, string(src))
		}
		for _, r := range d.Refused {
			sv.Refused = append(sv.Refused, Refusal{Source: string(r.Source), Command: r.Command, Error: ensemble.ErrText(r.Err)})
		}
		usable[i].ServerView = sv
	}
}

// writeServerView writes m's servers'-view line (and its fix).
func writeServerView(w io.Writer, m *Member) {
	sv := m.ServerView
	if sv == nil {
		return
	}
	var parts []string
	switch {
	case len(sv.Sources) == 0:
		parts = append(parts, "NONE: links inferred, session health unknown")
	default:
		names := map[string]string{"admin": "AdminServer " + sv.Admin, "4lw": "four-letter words"}
		var told []string
		for _, s := range sv.Sources {
			told = append(told, names[s])
		}
		parts = append(parts, "told by "+strings.Join(told, " and "))
	}
	var refused []string
	for _, r := range sv.Refused {
		refused = append(refused, r.Source+" "+r.Command)
	}
	if len(refused) > 0 {
		parts = append(parts, "refused: "+strings.Join(refused, ", "))
	}
	fmt.Fprintf(w, "  %-11s %s\n", "servers", strings.Join(parts, "; "))
	if sv.Fix != "" {
		fmt.Fprintf(w, "  %-11s %s\n", "fix", sv.Fix)
	}
}
