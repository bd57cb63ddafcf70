package cmd

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"

	"zklock/themes"
)

const (
	// defaultServers is ZooKeeper's own default client address.
	defaultServers = "127.0.0.1:2181"
	// defaultSessionTimeout matches Curator's default connection handling
	// closely enough for operators, and lets a crashed zklock release its
	// locks within seconds rather than a minute.
	defaultSessionTimeout = 10 * time.Second
	// defaultConnectTimeout bounds how long an unreachable ensemble keeps
	// the operator waiting before zklock says so.
	defaultConnectTimeout = 10 * time.Second
)

// globalFlags are the flags every command shares (PRODUCT.md: Common flags).
type globalFlags struct {
	context        string
	servers        string
	chroot         string
	sessionTimeout time.Duration
	connectTimeout time.Duration
	authFile       string
	theme          string
	readOnly       bool
	write          bool
	auditLog       string
	logFile        string
}

func (g *globalFlags) register(cmd *cobra.Command) {
	f := cmd.PersistentFlags()
	f.StringVar(&g.context, "context", "", "named ensemble from the config file ("+configPathHint()+")")
	f.StringVar(&g.servers, "servers", "", "ZooKeeper servers, host:port[,host:port...][/chroot] (env ZK_SERVERS, default "+defaultServers+")")
	f.StringVar(&g.chroot, "chroot", "", "path prefix applied to every path")
	f.DurationVar(&g.sessionTimeout, "session-timeout", defaultSessionTimeout, "ZooKeeper session timeout")
	f.DurationVar(&g.connectTimeout, "connect-timeout", defaultConnectTimeout, "give up connecting after this long")
	f.StringVar(&g.authFile, "auth-file", "", "file holding digest credentials user:password (or env ZK_AUTH)")
	f.StringVar(&g.theme, "theme", "", "console theme: dark, light, high-contrast, mono (NO_COLOR forces mono)")
	f.BoolVar(&g.readOnly, "read-only", false, "no take, release, revoke or force-release")
	f.BoolVar(&g.write, "write", false, "allow actions on a context marked read-only")
	f.StringVar(&g.auditLog, "audit-log", "", "JSON-lines audit log of operator actions (default $XDG_STATE_HOME/zklock/audit.log or ~/.local/state/zklock/audit.log)")
	f.StringVar(&g.logFile, "log-file", "", "debug log of the console and the ZooKeeper client (default: none; never the terminal)")
}

// settings are the resolved connection and console settings: flags over
// the named context over environment over defaults.
type settings struct {
	contextName    string
	servers        []string
	chroot         string
	sessionTimeout time.Duration
	connectTimeout time.Duration
	auth           *credentials
	theme          string
	readOnly       bool
	// readOnlyContext: readOnly comes from the context, and --write
	// lifts it (as opposed to --read-only, which nothing lifts).
	readOnlyContext bool
	roots           []string
	auditLog        string
	logFile         string
}

type credentials struct {
	user, password string
}

// resolve merges flags, environment and the named context. It reads the
// config and auth files but opens no connection.
func (g *globalFlags) resolve(cmd *cobra.Command) (*settings, error) {
	s := &settings{
		sessionTimeout: g.sessionTimeout,
		connectTimeout: g.connectTimeout,
		theme:          g.theme,
		readOnly:       g.readOnly,
	}
	if g.sessionTimeout <= 0 {
		return nil, fmt.Errorf("--session-timeout must be positive, got %s", g.sessionTimeout)
	}
	if g.connectTimeout <= 0 {
		return nil, fmt.Errorf("--connect-timeout must be positive, got %s", g.connectTimeout)
	}
	var ctx *contextConfig
	if g.context != "" {
		cfg, path, err := loadConfig()
		if err != nil {
			return nil, err
		}
		c, ok := cfg.Contexts[g.context]
		if !ok {
			return nil, fmt.Errorf("context %q is not in %s (have: %s)", g.context, path, strings.Join(cfg.names(), ", "))
		}
		ctx = &c
		s.contextName = g.context
	}
	// An explicit --context beats ZK_SERVERS: a variable left in the
	// environment must not send "--context staging" to another ensemble
	// while the header says staging.
	serverList := g.servers
	if serverList == "" && ctx != nil {
		serverList = strings.Join(ctx.Servers, ",")
	}
	if serverList == "" {
		serverList = os.Getenv("ZK_SERVERS")
	}
	if serverList == "" {
		serverList = defaultServers
	}
	servers, chroot, err := parseServers(serverList)
	if err != nil {
		return nil, err
	}
	s.servers = servers
	switch {
	case g.chroot != "":
		s.chroot = g.chroot
	case chroot != "":
		s.chroot = chroot
	case ctx != nil:
		s.chroot = ctx.Chroot
	}
	if s.chroot == "/" {
		s.chroot = ""
	}
	if s.chroot != "" {
		if err := validatePath(s.chroot); err != nil {
			return nil, fmt.Errorf("chroot: %w", err)
		}
	}
	if ctx != nil {
		if !cmd.Flags().Changed("theme") && s.theme == "" {
			s.theme = ctx.Theme
		}
		if ctx.ReadOnly && !g.write && !g.readOnly {
			s.readOnly = true
			s.readOnlyContext = true
		}
		if ctx.SessionTimeout != "" && !cmd.Flags().Changed("session-timeout") {
			d, err := time.ParseDuration(ctx.SessionTimeout)
			if err != nil || d <= 0 {
				return nil, fmt.Errorf("context %q: bad session_timeout %q", g.context, ctx.SessionTimeout)
			}
			s.sessionTimeout = d
		}
		s.roots = ctx.Roots
	}
	authFile := g.authFile
	if authFile == "" && ctx != nil {
		authFile = ctx.AuthFile
	}
	switch {
	case authFile != "":
		b, err := os.ReadFile(expandHome(authFile))
		if err != nil {
			return nil, fmt.Errorf("auth file: %w", err)
		}
		c, err := parseAuth(b)
		if err != nil {
			return nil, fmt.Errorf("auth file %s: %w", authFile, err)
		}
		s.auth = c
	case os.Getenv("ZK_AUTH") != "":
		c, err := parseAuth([]byte(os.Getenv("ZK_AUTH")))
		if err != nil {
			return nil, fmt.Errorf("ZK_AUTH: %w", err)
		}
		s.auth = c
	}
	s.auditLog = g.auditLog
	s.logFile = g.logFile
	if s.theme != "" {
		// Checked here, before connecting: a typo is one line at once.
		if _, err := themes.Load(s.theme); err != nil {
			return nil, err
		}
	}
	return s, nil
}

var errReadOnly = errors.New("read-only")

// requireWrite refuses an action under --read-only or a read-only context
// without --write.
func (s *settings) requireWrite(action string) error {
	switch {
	case !s.readOnly:
		return nil
	case s.readOnlyContext:
		return fmt.Errorf("%w: context %q is read-only; pass --write to %s", errReadOnly, s.contextName, action)
	default:
		return fmt.Errorf("%w: --read-only forbids %s", errReadOnly, action)
	}
}

var errBadServers = errors.New("malformed server list")

// parseServers reads a ZooKeeper connect string: host:port pairs separated
// by commas, IPv6 hosts in brackets, an optional /chroot suffix as the Java
// client accepts. A missing port means 2181.
func parseServers(s string) (servers []string, chroot string, err error) {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '/'); i >= 0 {
		s, chroot = s[:i], s[i:]
		if chroot == "/" {
			return nil, "", fmt.Errorf("%w: chroot \"/\" is the root; leave it out", errBadServers)
		}
		if err := validatePath(chroot); err != nil {
			return nil, "", fmt.Errorf("%w: chroot %q: %v", errBadServers, chroot, err)
		}
	}
	if s == "" {
		return nil, "", fmt.Errorf("%w: empty", errBadServers)
	}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			return nil, "", fmt.Errorf("%w: empty entry in %q", errBadServers, s)
		}
		host, port, err := net.SplitHostPort(part)
		if err != nil {
			// No port: accept a bare host or a bracketed IPv6 address
			// with 2181. A bare IPv6 address is refused: "::1:2181"
			// reads both as an address and as address plus port.
			bracketed := strings.HasPrefix(part, "[") && strings.HasSuffix(part, "]")
			host, port = strings.TrimSuffix(strings.TrimPrefix(part, "["), "]"), "2181"
			if strings.Contains(host, ":") && !bracketed {
				return nil, "", fmt.Errorf("%w: %q: write IPv6 addresses in brackets, as [::1]:2181", errBadServers, part)
			}
			if strings.ContainsAny(host, "[]") || (strings.Count(host, ":") > 0 && net.ParseIP(host) == nil) {
				return nil, "", fmt.Errorf("%w: %q is not host:port", errBadServers, part)
			}
		}
		if !validHost(host) {
			return nil, "", fmt.Errorf("%w: bad host in %q", errBadServers, part)
		}
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return nil, "", fmt.Errorf("%w: bad port in %q", errBadServers, part)
		}
		servers = append(servers, net.JoinHostPort(host, strconv.Itoa(n)))
	}
	return servers, chroot, nil
}

func validHost(h string) bool {
	if h == "" || len(h) > 253 {
		return false
	}
	if net.ParseIP(h) != nil {
		return true
	}
	for _, r := range h {
		if !(r == '-' || r == '.' || r == '_' || r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r))) {
			return false
		}
	}
	return !strings.HasPrefix(h, "-") && !strings.HasPrefix(h, ".")
}

var errBadPath = errors.New("invalid path")

// validatePath applies ZooKeeper's path rules, so that bad paths fail here
// with one clear line rather than as a server error: absolute, no trailing
// slash, no empty, "." or ".." segments, no control characters.
func validatePath(p string) error {
	switch {
	case p == "":
		return fmt.Errorf("%w: empty", errBadPath)
	case p[0] != '/':
		return fmt.Errorf("%w %q: must start with /", errBadPath, p)
	case p == "/":
		return nil
	case strings.HasSuffix(p, "/"):
		return fmt.Errorf("%w %q: must not end with /", errBadPath, p)
	case !utf8.ValidString(p):
		return fmt.Errorf("%w: not UTF-8", errBadPath)
	}
	for _, seg := range strings.Split(p[1:], "/") {
		switch seg {
		case "":
			return fmt.Errorf("%w %q: empty segment", errBadPath, p)
		case ".", "..":
			return fmt.Errorf("%w %q: relative segment %q", errBadPath, p, seg)
		}
	}
	for _, r := range p {
		if r < 0x20 || (r >= 0x7f && r <= 0x9f) || (r >= 0xd800 && r <= 0xf8ff) || r == 0xfff0 || r == 0xfffe || r == 0xffff {
			return fmt.Errorf("%w: character %U not allowed", errBadPath, r)
		}
	}
	return nil
}

var errBadAuth = errors.New("bad credentials")

// parseAuth reads digest credentials: one "user:password" line; blank lines
// and lines starting with # are ignored; "digest:" in front is accepted.
// The password never appears in an error.
func parseAuth(b []byte) (*credentials, error) {
	var found *credentials
	for _, line := range bytes.Split(b, []byte("\n")) {
		l := strings.TrimSpace(string(line))
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		if found != nil {
			return nil, fmt.Errorf("%w: more than one credentials line", errBadAuth)
		}
		l = strings.TrimPrefix(l, "digest:")
		user, pass, ok := strings.Cut(l, ":")
		if !ok {
			return nil, fmt.Errorf("%w: want user:password", errBadAuth)
		}
		if user == "" || pass == "" {
			return nil, fmt.Errorf("%w: empty user or password", errBadAuth)
		}
		for _, r := range user + pass {
			if r < 0x20 || r == 0x7f {
				return nil, fmt.Errorf("%w: control character", errBadAuth)
			}
		}
		found = &credentials{user: user, password: pass}
	}
	if found == nil {
		return nil, fmt.Errorf("%w: no user:password line", errBadAuth)
	}
	return found, nil
}

// fileConfig is the config file: named ensembles, as kubectl and k9s users
// expect.
//
//	contexts:
//	  prod:
//	    servers: [zk1:2181, zk2:2181, zk3:2181]
//	    chroot: /app
//	    auth_file: ~/.config/zklock/prod.auth
//	    read_only: true
//	    theme: high-contrast
//	    roots: [/locks]
type fileConfig struct {
	Contexts map[string]contextConfig `yaml:"contexts"`
}

type contextConfig struct {
	Servers        []string `yaml:"servers"`
	Chroot         string   `yaml:"chroot"`
	AuthFile       string   `yaml:"auth_file"`
	ReadOnly       bool     `yaml:"read_only"`
	Theme          string   `yaml:"theme"`
	Roots          []string `yaml:"roots"`
	SessionTimeout string   `yaml:"session_timeout"`
}

func (c *fileConfig) names() []string {
	var n []string
	for k := range c.Contexts {
		n = append(n, k)
	}
	slices.Sort(n)
	return n
}

func configPath() (string, error) {
	if p := os.Getenv("ZKLOCK_CONFIG"); p != "" {
		return p, nil
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "zklock", "config.yaml"), nil
}

func configPathHint() string {
	p, err := configPath()
	if err != nil {
		return "$XDG_CONFIG_HOME/zklock/config.yaml"
	}
	return p
}

func loadConfig() (*fileConfig, string, error) {
	path, err := configPath()
	if err != nil {
		return nil, "", fmt.Errorf("config file: %w", err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, path, fmt.Errorf("config file: %w", err)
	}
	var cfg fileConfig
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&cfg); err != nil {
		return nil, path, fmt.Errorf("config file %s: %s", path, oneLine(err.Error()))
	}
	for name, c := range cfg.Contexts {
		for _, r := range c.Roots {
			if err := validatePath(r); err != nil {
				return nil, path, fmt.Errorf("config file %s: context %q: root: %w", path, name, err)
			}
		}
	}
	return &cfg, path, nil
}

func expandHome(p string) string {
	if strings.HasPrefix(p, "~/") {
		if h, err := os.UserHomeDir(); err == nil {
			return filepath.Join(h, p[2:])
		}
	}
	return p
}
