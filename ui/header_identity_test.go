package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/zklock/zklock/model"
)

// TestHeaderIdentityGolden: the whole console at 160x48 over TLS as a
// Kerberos principal.
func TestHeaderIdentityGolden(t *testing.T) {
	name := "sasl-identity-dark-160x48"
	t.Run(name, func(t *testing.T) {
		m := newTest("dark", 160, 48, func(o *Options) { o.Identity = "sasl alice@EXAMPLE.COM" })
		snap := fleet()
		snap.Conn.TLS, snap.Conn.HostnameVerified = true, true
		m = step(m, updateMsg{model.Update{Snapshot: snap}})
		got := ansi.Strip(m.View())
		checkFrame(t, got, 160, 48)
		if !strings.Contains(strings.SplitN(got, "\n", 2)[0], "TLS  sasl alice@EXAMPLE.COM") {
			t.Errorf("header lacks the identity beside TLS: %q", strings.SplitN(got, "\n", 2)[0])
		}
		matchGolden(t, name, got)
	})
}
