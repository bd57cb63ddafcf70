package cmd

import (
	"github.com/spf13/cobra"

	"zklock/config"
)

// registerFlags binds the flags every command shares to g.
func registerFlags(cmd *cobra.Command, g *config.Flags) {
	f := cmd.PersistentFlags()
	f.StringVar(&g.Context, "context", "", "named ensemble from the config file ("+config.PathHint()+")")
	f.StringVar(&g.Servers, "servers", "", "ZooKeeper servers, host:port[,host:port...][/chroot] (env ZK_SERVERS, default "+config.DefaultServers+")")
	f.StringVar(&g.Chroot, "chroot", "", "path prefix applied to every path")
	f.DurationVar(&g.SessionTimeout, "session-timeout", config.DefaultSessionTimeout, "ZooKeeper session timeout")
	f.DurationVar(&g.ConnectTimeout, "connect-timeout", config.DefaultConnectTimeout, "give up connecting after this long")
	f.StringVar(&g.AuthFile, "auth-file", "", "file holding digest credentials user:password (or env ZK_AUTH)")
	f.StringVar(&g.Theme, "theme", "", "console theme: dark, light, high-contrast, mono (NO_COLOR forces mono)")
	f.BoolVar(&g.ReadOnly, "read-only", false, "no take, release, revoke or force-release")
	f.BoolVar(&g.Write, "write", false, "allow actions on a context marked read-only")
	f.StringVar(&g.AuditLog, "audit-log", "", "JSON-lines audit log of operator actions (default $XDG_STATE_HOME/zklock/audit.log or ~/.local/state/zklock/audit.log)")
	f.StringVar(&g.LogFile, "log-file", "", "debug log of the console and the ZooKeeper client (default: none; never the terminal)")
	f.BoolVar(&g.TLS, "tls", false, "connect over TLS (implied by any --tls-* flag; the system's CAs unless --tls-ca)")
	f.StringVar(&g.TLSCA, "tls-ca", "", "PEM bundle of the CAs that sign the servers' certificates")
	f.StringVar(&g.TLSCert, "tls-cert", "", "PEM client certificate (may hold the key too)")
	f.StringVar(&g.TLSKey, "tls-key", "", "PEM file of the client certificate's unencrypted key")
	f.StringVar(&g.TLSServerName, "tls-server-name", "", "name to verify in every server's certificate instead of the host dialled")
	f.BoolVar(&g.TLSInsecureSkipVerify, "tls-insecure-skip-verify", false, "do not verify the servers' names (their certificates are still checked against the CAs); shown in the header")
}
