package doctor

// doctor's SASL lines: the mechanism and identity used, and each
// member's answer to the exchange.

import (
	"errors"
	"fmt"
	"io"

	"github.com/zklock/zklock/config"
	"github.com/zklock/zklock/ensemble"
	"github.com/zklock/zklock/sasl"
	"github.com/zklock/zklock/third_party/zk"
)

// SASL is the SASL setting doctor used (null in JSON: none).
type SASL struct {
	Mechanism string `json:"mechanism"`
	Identity  string `json:"identity"` // the DIGEST-MD5 user or the Kerberos principal
	Source    string `json:"source"`   // "flags" or the JAAS file
}

// newDoctorSASL reports s's SASL setting, nil without SASL.
func newDoctorSASL(s *config.Settings) *SASL {
	if s.SASL == nil {
		return nil
	}
	return &SASL{Mechanism: s.SASL.Mechanism, Identity: s.SASL.Identity(), Source: s.SASL.Source}
}

// saslAnswer is a member's answer to the SASL exchange, given the
// connect's error: "accepted", "refused: <the one line>", "" when SASL
// was not used and the member did not ask for it, or when the session
// failed before the exchange.
func saslAnswer(s *config.Settings, err error) string {
	var se *zk.SASLError
	switch {
	case err == nil && s.SASL != nil:
		return "accepted"
	case err != nil && (errors.As(err, &se) || errors.Is(err, zk.ErrSASLRequired)):
		return "refused: " + ensemble.SASLHint(err).Error()
	}
	return ""
}

// saslAskedFor is the servers' principal GSSAPI asked a ticket for to
// reach server, "" for another mechanism or none.
func saslAskedFor(s *config.Settings, server string) string {
	if s.SASL == nil {
		return ""
	}
	if g, ok := s.SASL.Mech.(*sasl.GSSAPI); ok {
		return g.AskedFor(server)
	}
	return ""
}

// writeSASLLine prints a member's SASL answer under its session line.
func writeSASLLine(w io.Writer, r *Report, m *Member) {
	if m.SASL == "" {
		return
	}
	who := ""
	if r.SASL != nil {
		who = fmt.Sprintf("%s as %s: ", r.SASL.Mechanism, r.SASL.Identity)
		if m.SASLPrincipal != "" {
			who = fmt.Sprintf("%s as %s to %s: ", r.SASL.Mechanism, r.SASL.Identity, m.SASLPrincipal)
		}
	}
	fmt.Fprintf(w, "  %-11s %s%s\n", "SASL", who, m.SASL)
}
