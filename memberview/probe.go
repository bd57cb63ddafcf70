package memberview

import (
	"context"
	"errors"
	"sync"

	"github.com/zklock/zklock/fourletter"
)

// Diagnosis is what doctor says of one member: which source answered the
// commands zklock reads, what each refused, and the one line that fixes
// what is missing.
type Diagnosis struct {
	Addr string `json:"member"`
	// Admin is the AdminServer base URL asked, "" when --admin-port 0.
	Admin string `json:"admin,omitempty"`
	// Sources lists those that answered connections and watches, in the
	// order the poll prefers them ("admin", "4lw").
	Sources []Source `json:"sources"`
	// Refused lists each command a source did not answer.
	Refused []Refusal `json:"-"`
	// Fix is the one line that makes the member tell what zklock reads,
	// "" when a source answers everything.
	Fix string `json:"fix,omitempty"`
}

// Probe asks every member through both sources, every command (unlike
// Poll, which stops at the first source that answers), for doctor.
func Probe(ctx context.Context, cfg Config) []Diagnosis {
	p := New(cfg)
	defer p.Close()
	out := make([]Diagnosis, len(cfg.Members))
	var wg sync.WaitGroup
	for i, addr := range cfg.Members {
		wg.Go(func() {
			d := Diagnosis{Addr: addr}
			admin := cfg.AdminPorts.Addr(i, addr)
			var aa *answer
			if admin != "" {
				m := &memberAnswer{}
				aa = p.askAdminAt(ctx, admin, m)
				if aa.ok() {
					aa = askAdmin(ctx, p.client, m.report.Admin, true) // with the dump
				}
				d.Admin = m.report.Admin
				d.Refused = append(d.Refused, aa.refused...)
				if aa.ok() {
					d.Sources = append(d.Sources, Admin)
				}
			}
			fa := askFourLetter(ctx, addr, cfg.Dial, true)
			d.Refused = append(d.Refused, fa.refused...)
			if fa.ok() {
				d.Sources = append(d.Sources, FourLetter)
			}
			d.Fix = fixLine(admin, aa, fa)
			out[i] = d
		})
	}
	wg.Wait()
	return out
}

// fixLine is the one line for a member where neither source tells
// connections and watches ("" when one does).
func fixLine(admin string, aa, fa *answer) string {
	if (aa != nil && aa.ok()) || fa.ok() {
		return ""
	}
	whitelisted := false
	for _, r := range fa.refused {
		whitelisted = whitelisted || errors.Is(r.Err, fourletter.ErrRefused)
	}
	words := "allow the words in zoo.cfg: 4lw.commands.whitelist=srvr,cons,wchc,dump"
	switch {
	case admin == "" && whitelisted:
		return words + " (or ask the AdminServer: --admin-port, 8080 by default)"
	case admin == "":
		return "the member does not answer the four-letter words; ask its AdminServer: --admin-port"
	case whitelisted:
		return "turn on the AdminServer (admin.enableServer=true; Debian: add /usr/share/java/servlet-api.jar to the classpath) or give its port (--admin-port), or " + words
	}
	return "the member answers neither the AdminServer at " + admin + " nor the four-letter words: check --admin-port and the network"
}
