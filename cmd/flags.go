package cmd

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/zklock/zklock/config"
)

// registerFlags binds the flags to g: the connection flags on root, as
// persistent flags every command shares, and on each command (root, the
// console, included) the other groups of config.Flags that it uses
// (commandFlags). A flag that would do nothing on a command is not
// offered there, so `zklock ls --theme x` is refused as an unknown flag
// instead of being ignored. Call it once every command is added.
func registerFlags(root *cobra.Command, g *config.Flags) {
	registerConnFlags(root, g)
	for _, c := range append([]*cobra.Command{root}, root.Commands()...) {
		registerCommandFlags(c, g, commandFlags[c.Name()])
	}
}

// registerConnFlags binds the flags that say which ensemble to reach and
// how: every command that connects uses them.
func registerConnFlags(cmd *cobra.Command, g *config.Flags) {
	f := cmd.PersistentFlags()
	f.StringVar(&g.ConfigFile, "config", "", "the config file of contexts (env ZKLOCK_CONFIG, default "+config.PathHint()+")")
	f.StringVar(&g.Context, "context", "", "named ensemble from the config file (zklock config get-contexts lists them)")
	f.StringVar(&g.Servers, "servers", "", "ZooKeeper servers, host:port[,host:port...][/chroot] (env ZKLOCK_SERVERS, default "+config.DefaultServers+")")
	f.StringVar(&g.Chroot, "chroot", "", "path prefix applied to every path")
	f.DurationVar(&g.SessionTimeout, "session-timeout", config.DefaultSessionTimeout, "ZooKeeper session timeout")
	f.DurationVar(&g.ConnectTimeout, "connect-timeout", config.DefaultConnectTimeout, "give up connecting after this long")
	f.StringVar(&g.AuthFile, "auth-file", "", "file holding digest credentials user:password (or env ZKLOCK_AUTH)")
	f.BoolVar(&g.TLS, "tls", false, "connect over TLS (implied by any --tls-* flag; the system's CAs unless --tls-ca)")
	f.StringVar(&g.TLSCA, "tls-ca", "", "PEM bundle of the CAs that sign the servers' certificates")
	f.StringVar(&g.TLSCert, "tls-cert", "", "PEM client certificate (may hold the key too)")
	f.StringVar(&g.TLSKey, "tls-key", "", "PEM file of the client certificate's unencrypted key")
	f.StringVar(&g.TLSServerName, "tls-server-name", "", "name to verify in every server's certificate instead of the host dialled")
	f.BoolVar(&g.TLSInsecureSkipVerify, "tls-insecure-skip-verify", false, "do not verify the servers' names (their certificates are still checked against the CAs); shown in the header")
	f.StringVar(&g.AdminPort, "admin-port", "", "each member's AdminServer port (context admin_port; default 8080 on each member's host; 0 never asks; or one per member: 8081,8082,8083)")
	registerSASLFlags(f, g)
	// Every command logs (logging.go): its start, and where it connects,
	// what the ZooKeeper client says, the console's own lines.
	f.StringVar(&g.LogFile, "log-file", "", "append a debug log to FILE (never the console's terminal; default: none)")
}

// flagGroup is a set of the flags of config.Flags that are not about
// connecting.
type flagGroup uint8

const (
	// flagsTheme is --theme: what draws the console.
	flagsTheme flagGroup = 1 << iota
	// flagsGuard is --read-only and --write: what may write to the
	// ensemble (doctor's clock probe creates a node; a read-only
	// context skips it unless --write).
	flagsGuard
	// flagsAudit is --audit-log: what takes, releases, revokes or
	// force-releases a lock.
	flagsAudit
	// flagsVerbose is --verbose: the debug log on stderr, for the
	// commands that do not draw the console on the terminal.
	flagsVerbose

	flagsConsole = flagsTheme | flagsGuard | flagsAudit
)

// commandFlags is which groups each command uses, by command name ("zklock"
// is the root: the console). A command not named takes none: ls,
// version, gen-man, completion, config.
var commandFlags = map[string]flagGroup{
	"zklock":   flagsConsole,
	"demo":     flagsConsole,                           // the console on the demo's workload
	"replay":   flagsTheme,                             // the console over a recording: read-only by nature
	"run":      flagsGuard | flagsAudit | flagsVerbose, // takes a lock
	"release":  flagsGuard | flagsAudit | flagsVerbose, // force-releases one
	"revoke":   flagsGuard | flagsAudit | flagsVerbose, // writes __REVOKE__ into one
	"doctor":   flagsGuard | flagsVerbose,              // its clock probe creates a node
	"ls":       flagsVerbose,
	"sessions": flagsVerbose,
	"watch":    flagsVerbose,
	"export":   flagsVerbose,
	"record":   flagsVerbose,
}

// registerCommandFlags binds the groups of flags that cmd uses to g, as
// cmd's own flags (each command parses only its own, so several bind the
// same field).
func registerCommandFlags(cmd *cobra.Command, g *config.Flags, groups flagGroup) {
	f := cmd.Flags()
	if groups&flagsTheme != 0 {
		f.StringVar(&g.Theme, "theme", "", "console theme: dark, light, high-contrast, mono (NO_COLOR forces mono)")
	}
	if groups&flagsGuard != 0 {
		f.BoolVar(&g.ReadOnly, "read-only", false, "no take, release, revoke or force-release")
		f.BoolVar(&g.Write, "write", false, "allow actions on a context marked read-only")
	}
	if groups&flagsAudit != 0 {
		f.StringVar(&g.AuditLog, "audit-log", "", "JSON-lines audit log of operator actions (default $XDG_STATE_HOME/zklock/audit.log or ~/.local/state/zklock/audit.log)")
	}
	if groups&flagsVerbose != 0 {
		f.BoolVarP(&g.Verbose, "verbose", "v", false, "debug log on stderr (and in --log-file when given)")
	}
}

// flagError is a flag the command line could not read (unknown, misplaced,
// a bad value): what the flag parser said.
type flagError struct{ err error }

func (e flagError) Error() string { return e.err.Error() }
func (e flagError) Unwrap() error { return e.err }

// flagElsewhere adds to an unknown-flag error the commands that take
// that flag, when some do: `ls --theme` is told where --theme belongs.
func flagElsewhere(root *cobra.Command, err error) error {
	name, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok {
		return err
	}
	var takers []string
	for _, c := range append([]*cobra.Command{root}, root.Commands()...) {
		if c.LocalNonPersistentFlags().Lookup(name) == nil || c.Hidden {
			continue
		}
		if c == root {
			takers = append(takers, "the console")
		} else {
			takers = append(takers, c.Name())
		}
	}
	if len(takers) == 0 {
		return err
	}
	return fmt.Errorf("%w (a flag of %s)", err, joinLast(takers, " and "))
}

// outputFlag is -o/--output of a command that prints data, with --json
// kept as the same as -o json.
type outputFlag struct {
	cmd     *cobra.Command
	formats []string // the first is the default
	value   string
	asJSON  bool
}

// addOutputFlag gives cmd -o FORMAT (one of formats, the first the
// default) and --json, and completes -o with formats.
func addOutputFlag(cmd *cobra.Command, usage string, formats ...string) *outputFlag {
	o := &outputFlag{cmd: cmd, formats: formats}
	cmd.Flags().StringVarP(&o.value, "output", "o", formats[0], usage)
	cmd.Flags().BoolVar(&o.asJSON, "json", false, "same as -o json")
	_ = cmd.RegisterFlagCompletionFunc("output", completeValues(formats...))
	return o
}

// format is the chosen output format. An unknown one, or --json beside
// another -o, is a usage error (exitUsage), said before connecting.
func (o *outputFlag) format() (string, error) {
	v := o.value
	if o.asJSON {
		if v != "json" && o.cmd.Flags().Changed("output") {
			return "", exitCode(exitUsage, fmt.Errorf("%s: --json and -o %q: give one", o.cmd.Name(), v))
		}
		v = "json"
	}
	for _, f := range o.formats {
		if v == f {
			return v, nil
		}
	}
	return "", exitCode(exitUsage, fmt.Errorf("%s: -o %q: want %s", o.cmd.Name(), v, orList(o.formats)))
}

// orList is "a, b or c".
func orList(vals []string) string {
	return joinLast(vals, " or ")
}

// joinLast is "a, b" + last + "c".
func joinLast(vals []string, last string) string {
	if len(vals) < 2 {
		return strings.Join(vals, "")
	}
	return strings.Join(vals[:len(vals)-1], ", ") + last + vals[len(vals)-1]
}
