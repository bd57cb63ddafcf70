package cmd

// `zklock config`: the contexts of the config file, as kubectl's
// `config` commands have them: view, get-contexts, current-context,
// use-context, set-context. They read and write the file (--config,
// ZKLOCK_CONFIG or the user's config directory) and never connect.

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/zklock/zklock/config"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/themes"
)

func newConfigCmd(g *config.Flags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Show and change the contexts of the config file",
		Long: `config shows and changes the named ensembles (contexts) of the config
file, as kubectl config does. The file is --config FILE, else
ZKLOCK_CONFIG, else zklock/config.yaml in the user's config directory:
` + config.PathHint() + `.
zklock config view prints which. The file holds paths (auth_file, TLS
files), never credentials; set-context and use-context write it
atomically, mode 0600, keeping its comments.`,
		Example: `  zklock config set-context prod --servers zk1:2181,zk2:2181,zk3:2181 --chroot /app --read-only
  zklock config use-context prod
  zklock config get-contexts
  zklock config view`,
	}
	cmd.AddCommand(newConfigViewCmd(g), newGetContextsCmd(g), newCurrentContextCmd(g), newUseContextCmd(g), newSetContextCmd(g))
	return cmd
}

func newConfigViewCmd(g *config.Flags) *cobra.Command {
	return &cobra.Command{
		Use:   "view",
		Short: "Print the config file's path and contents (passwords redacted)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			path, doc, err := readConfigDoc(g)
			if err != nil {
				return err
			}
			text, err := doc.Redacted()
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if text == "" {
				_, err = fmt.Fprintf(out, "# %s (empty or not made yet: zklock config set-context NAME --servers ... makes it)\n", path)
				return err
			}
			_, err = fmt.Fprintf(out, "# %s\n%s", path, sanitizeLines(text))
			return err
		},
	}
}

// contextRow is one context as get-contexts prints it (-o json: these
// fields).
type contextRow struct {
	Current  bool     `json:"current"`
	Name     string   `json:"name"`
	Servers  []string `json:"servers"`
	Chroot   string   `json:"chroot,omitempty"`
	AuthFile string   `json:"auth_file,omitempty"` // the path, never what it holds
	ReadOnly bool     `json:"read_only"`
	TLS      bool     `json:"tls"`
	Roots    []string `json:"roots,omitempty"`
}

func newGetContextsCmd(g *config.Flags) *cobra.Command {
	var output *outputFlag
	cmd := &cobra.Command{
		Use:   "get-contexts [-o text|name|json] [NAME...]",
		Short: "List the contexts (the current one marked *)",
		Args:  cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			format, err := output.format()
			if err != nil {
				return err
			}
			rows, path, err := contextRows(g, args)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			switch format {
			case "json":
				return writeJSON(out, rows)
			case "name":
				for _, r := range rows {
					fmt.Fprintln(out, model.SanitizeString(r.Name, 0))
				}
				return nil
			}
			if len(rows) == 0 {
				_, err := fmt.Fprintf(out, "no contexts in %s\n", path)
				return err
			}
			tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "CURRENT\tNAME\tSERVERS\tCHROOT\tREAD-ONLY\tTLS")
			for _, r := range rows {
				cur := ""
				if r.Current {
					cur = "*"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", cur, model.SanitizeString(r.Name, 0),
					model.SanitizeString(strings.Join(r.Servers, ","), 0), model.SanitizeString(r.Chroot, 0), yesNo(r.ReadOnly), yesNo(r.TLS))
			}
			return tw.Flush()
		},
	}
	output = addOutputFlag(cmd, "text, name (one a line) or json", "text", "name", "json")
	return cmd
}

// contextRows are the file's contexts, sorted by name, or the ones
// named (an unknown name is an error).
func contextRows(g *config.Flags, names []string) ([]contextRow, string, error) {
	path, doc, err := readConfigDoc(g)
	if err != nil {
		return nil, "", err
	}
	f, err := doc.File()
	if err != nil {
		return nil, "", err
	}
	if len(names) == 0 {
		names = f.Names()
	}
	rows := []contextRow{}
	for _, n := range names {
		c, ok := f.Contexts[n]
		if !ok {
			return nil, "", noContext(n, path, f)
		}
		rows = append(rows, contextRow{Current: n == f.CurrentContext, Name: n, Servers: c.Servers, Chroot: c.Chroot,
			AuthFile: c.AuthFile, ReadOnly: c.ReadOnly, TLS: c.TLS != nil, Roots: c.Roots})
	}
	return rows, path, nil
}

func newCurrentContextCmd(g *config.Flags) *cobra.Command {
	return &cobra.Command{
		Use:   "current-context",
		Short: "Print the current context's name",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			path, doc, err := readConfigDoc(g)
			if err != nil {
				return err
			}
			f, err := doc.File()
			if err != nil {
				return err
			}
			if f.CurrentContext == "" {
				return fmt.Errorf("config: no current context in %s (zklock config use-context NAME sets one)", path)
			}
			_, err = fmt.Fprintln(cmd.OutOrStdout(), model.SanitizeString(f.CurrentContext, 0))
			return err
		},
	}
}

func newUseContextCmd(g *config.Flags) *cobra.Command {
	return &cobra.Command{
		Use:               "use-context NAME",
		Short:             "Make NAME the context used when nothing else names the ensemble",
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: completeContexts(g),
		RunE: func(cmd *cobra.Command, args []string) error {
			path, doc, err := readConfigDoc(g)
			if err != nil {
				return err
			}
			if err := doc.SetCurrentContext(args[0]); err != nil {
				if errors.Is(err, config.ErrNoContext) {
					f, _ := doc.File()
					return noContext(args[0], path, f)
				}
				return err
			}
			if err := doc.Write(path); err != nil {
				return err
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "Switched to context %q.\n", args[0])
			return err
		},
	}
}

// noContext is the one line for a context the file does not have.
func noContext(name, path string, f *config.File) error {
	have := "none"
	if f != nil && len(f.Names()) > 0 {
		have = strings.Join(f.Names(), ", ")
	}
	return fmt.Errorf("config: no context %q in %s (have: %s)", model.SanitizeString(name, 0), path, have)
}

// readConfigDoc reads the config file the flags name as a tree.
func readConfigDoc(g *config.Flags) (string, *config.Doc, error) {
	path, err := g.ConfigPath()
	if err != nil {
		return "", nil, fmt.Errorf("config file: %w", err)
	}
	doc, err := config.ReadDoc(path)
	return path, doc, err
}

// sanitizeLines sanitizes each line of s, keeping its newlines.
func sanitizeLines(s string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		body, nl := strings.CutSuffix(l, "\n")
		lines[i] = model.SanitizeString(body, 0)
		if nl {
			lines[i] += "\n"
		}
	}
	return strings.Join(lines, "")
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return ""
}

// contextKey is one flag of set-context and the key of the context it
// sets. A flag given empty ("", false, none) removes its key.
type contextKey struct {
	flag  string
	key   []string
	usage string
	kind  byte // 's' string, 'b' bool, 'l' list, 'd' duration, 'm' semaphore limits, 't' the tls block
}

var contextKeys = []contextKey{
	{"servers", []string{"servers"}, "host:port[,host:port...][/chroot]", 's'},
	{"chroot", []string{"chroot"}, "path prefix applied to every path", 's'},
	{"auth-file", []string{"auth_file"}, "file of digest credentials user:password (its path is stored, not what it holds)", 's'},
	{"read-only", []string{"read_only"}, "no take, release, revoke or force-release without --write", 'b'},
	{"theme", []string{"theme"}, "console theme", 's'},
	{"root", []string{"roots"}, "lock root watched when no PATH is given (repeatable)", 'l'},
	{"election", []string{"elections"}, "path shown as a leader election (repeatable)", 'l'},
	{"barrier", []string{"barriers"}, "path shown as a single barrier (repeatable)", 'l'},
	{"semaphore", []string{"semaphores"}, "PATH=N: a semaphore's limit (repeatable)", 'm'},
	{"session-timeout", []string{"session_timeout"}, "ZooKeeper session timeout", 'd'},
	{"tls", []string{"tls"}, "connect over TLS (the system's CAs unless --tls-ca); =false removes the whole tls block", 't'},
	{"tls-ca", []string{"tls", "ca"}, "PEM bundle of the servers' CAs", 's'},
	{"tls-cert", []string{"tls", "cert"}, "PEM client certificate", 's'},
	{"tls-key", []string{"tls", "key"}, "PEM file of the client certificate's unencrypted key", 's'},
	{"tls-server-name", []string{"tls", "server_name"}, "name to verify in every server's certificate", 's'},
	{"tls-insecure-skip-verify", []string{"tls", "insecure_skip_verify"}, "do not verify the servers' names", 'b'},
}

func newSetContextCmd(g *config.Flags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "set-context NAME [--servers LIST] [--chroot PATH] [flags]",
		Short: "Make or change a context: only the keys given change",
		Long: `set-context makes the context NAME, or changes the keys given of an
existing one; the other keys stay. A flag given empty (--chroot "",
--read-only=false) removes its key. Nothing is connected to: zklock
doctor NAME checks the context against its ensemble.`,
		Example: `  zklock config set-context prod --servers zk1:2181,zk2:2181,zk3:2181 --chroot /app --read-only --root /locks
  zklock config set-context prod --tls-ca /etc/zk/ca.pem --auth-file ~/.config/zklock/prod.auth`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return setContext(cmd, g, args[0])
		},
	}
	f := cmd.Flags()
	for _, k := range contextKeys {
		switch k.kind {
		case 'b', 't':
			f.Bool(k.flag, false, k.usage)
		case 'l', 'm':
			f.StringArray(k.flag, nil, k.usage)
		case 'd':
			f.Duration(k.flag, 0, k.usage)
		default:
			f.String(k.flag, "", k.usage)
		}
	}
	return cmd
}

// setContext applies set-context's flags to the context name and writes
// the file.
func setContext(cmd *cobra.Command, g *config.Flags, name string) error {
	if err := config.ValidContextName(name); err != nil {
		return err
	}
	path, doc, err := readConfigDoc(g)
	if err != nil {
		return err
	}
	created := !doc.HasContext(name)
	for _, k := range contextKeys {
		if !cmd.Flags().Changed(k.flag) {
			continue
		}
		v, err := contextValue(cmd, k)
		if err != nil {
			return err
		}
		if _, err := doc.SetContextValue(name, k.key, v); err != nil {
			return err
		}
		if k.flag == "servers" {
			// A /chroot at the end of the list is the chroot key.
			raw, _ := cmd.Flags().GetString("servers")
			if _, chroot, _ := config.ParseServers(raw); chroot != "" && !cmd.Flags().Changed("chroot") {
				if _, err := doc.SetContextValue(name, []string{"chroot"}, chroot); err != nil {
					return err
				}
			}
		}
	}
	if created {
		// No flag given: the context is still made, empty.
		if _, err := doc.SetContextValue(name, []string{"servers"}, contextServers(cmd)); err != nil {
			return err
		}
	}
	if err := doc.Write(path); err != nil {
		return err
	}
	verb := "modified"
	if created {
		verb = "created"
	}
	_, err = fmt.Fprintf(cmd.OutOrStdout(), "Context %q %s in %s.\n", name, verb, path)
	return err
}

// contextServers is --servers as a list when given, else nil.
func contextServers(cmd *cobra.Command) any {
	if !cmd.Flags().Changed("servers") {
		return nil
	}
	v, _ := contextValue(cmd, contextKeys[0])
	return v
}

// contextValue is the value a set-context flag stores, checked as the
// file's reader will check it; nil removes the key.
func contextValue(cmd *cobra.Command, k contextKey) (any, error) {
	f := cmd.Flags()
	switch k.kind {
	case 't':
		on, _ := f.GetBool(k.flag)
		if !on {
			return nil, nil
		}
		return map[string]string{}, nil
	case 'b':
		b, _ := f.GetBool(k.flag)
		if !b {
			return nil, nil
		}
		return true, nil
	case 'd':
		d, _ := f.GetDuration(k.flag)
		if d <= 0 {
			return nil, nil
		}
		return d.String(), nil
	case 'l':
		l, _ := f.GetStringArray(k.flag)
		if len(l) == 0 || len(l) == 1 && l[0] == "" {
			return nil, nil
		}
		return l, nil
	case 'm':
		return semaphoreLimits(f.GetStringArray(k.flag))
	}
	s, _ := f.GetString(k.flag)
	if s == "" {
		return nil, nil
	}
	switch k.flag {
	case "servers":
		list, _, err := config.ParseServers(s)
		if err != nil {
			return nil, err
		}
		return list, nil
	case "theme":
		if _, err := themes.Load(s); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// semaphoreLimits reads --semaphore PATH=N flags.
func semaphoreLimits(l []string, _ error) (any, error) {
	if len(l) == 0 || len(l) == 1 && l[0] == "" {
		return nil, nil
	}
	m := map[string]int{}
	for _, s := range l {
		p, n, ok := strings.Cut(s, "=")
		limit, err := strconv.Atoi(n)
		if !ok || err != nil {
			return nil, fmt.Errorf("--semaphore %q: want PATH=N", s)
		}
		m[p] = limit
	}
	return m, nil
}
