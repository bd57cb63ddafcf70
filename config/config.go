// Package config resolves what zklock connects to and how: the named
// contexts of the config file, the flags every command shares (as plain
// values: the cobra wiring lives in cmd), credentials, server lists and
// paths (the audit log itself is package audit). It opens no connection.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/memberview"
	"github.com/zklock/zklock/themes"
)

const (
	// DefaultServers is ZooKeeper's own default client address.
	DefaultServers = "127.0.0.1:2181"
	// DefaultSessionTimeout matches Curator's default connection handling
	// closely enough for operators, and lets a crashed zklock release its
	// locks within seconds rather than a minute.
	DefaultSessionTimeout = 10 * time.Second
	// DefaultConnectTimeout bounds how long an unreachable ensemble keeps
	// the operator waiting before zklock says so.
	DefaultConnectTimeout = 10 * time.Second
)

// Flags are the values of the flags every command shares (PRODUCT.md:
// Common flags); cmd registers them.
type Flags struct {
	// ConfigFile is --config: the config file instead of ZKLOCK_CONFIG
	// or the default (Path).
	ConfigFile     string
	Context        string
	Servers        string
	Chroot         string
	SessionTimeout time.Duration
	ConnectTimeout time.Duration
	AuthFile       string
	Theme          string
	ReadOnly       bool
	Write          bool
	AuditLog       string
	LogFile        string
	// Verbose is --verbose: the debug log on stderr too (the commands
	// that do not draw the console).
	Verbose bool
	// AdminPort is --admin-port: where each member's AdminServer is
	// (memberview.ParseAdminPorts); "" for the context's or the default.
	AdminPort string

	// TLS flags (tls.go): any of them turns TLS on.
	TLS                   bool
	TLSCA                 string
	TLSCert               string
	TLSKey                string
	TLSServerName         string
	TLSInsecureSkipVerify bool

	// SASL flags (sasl.go): --sasl MECH or --jaas FILE turns SASL on.
	SASL, SASLUser, SASLPasswordFile, SASLKeytab string
	SASLPrincipal, Krb5Conf, SASLService, JAAS   string
	SASLServerPrincipal, JAASSection             string
	// SASLHostAsWritten is --sasl-canonicalize-hostname=false: the zero
	// value is the Java client's default, canonicalization on.
	SASLHostAsWritten bool
}

// Settings are the resolved connection and console settings: flags over
// the named context over environment over defaults.
type Settings struct {
	ContextName    string
	Servers        []string
	Chroot         string
	SessionTimeout time.Duration
	ConnectTimeout time.Duration
	Auth           *Credentials
	Theme          string
	ReadOnly       bool
	// ReadOnlyContext: readOnly comes from the context, and --write
	// lifts it (as opposed to --read-only, which nothing lifts).
	ReadOnlyContext bool
	Roots           []string
	// Elections are the context's paths to show as leader elections
	// (zkview.Options.Elections).
	Elections []string
	// Barriers are the context's paths to show as single barriers
	// (zkview.Options.Barriers).
	Barriers []string
	AuditLog string
	LogFile  string

	// Semaphores are the context's stated semaphore limits by path
	// (zkview.Options.SemaphoreLimits).
	Semaphores map[string]int

	// TLS is nil for plain TCP (tls.go).
	TLS *TLS
	// SASL is nil without SASL (sasl.go).
	SASL *SASL
	// AdminPorts says where each member's AdminServer is: --admin-port,
	// else the context's admin_port, else 8080 on each member's host.
	AdminPorts memberview.AdminPorts
}

type Credentials struct {
	User, Password string
}

// Resolve merges flags, environment and the named context. It reads the
// config and auth files but opens no connection.
func (g *Flags) Resolve(changed func(flag string) bool) (*Settings, error) {
	s := &Settings{
		SessionTimeout: g.SessionTimeout,
		ConnectTimeout: g.ConnectTimeout,
		Theme:          g.Theme,
		ReadOnly:       g.ReadOnly,
	}
	if g.SessionTimeout <= 0 {
		return nil, fmt.Errorf("--session-timeout must be positive, got %s", g.SessionTimeout)
	}
	if g.ConnectTimeout <= 0 {
		return nil, fmt.Errorf("--connect-timeout must be positive, got %s", g.ConnectTimeout)
	}
	var ctx *Context
	if name, source := g.contextName(); name != "" {
		c, err := g.loadContext(name, source)
		if err != nil {
			return nil, err
		}
		ctx, s.ContextName = c, name
	}
	var err error
	if s.Servers, s.Chroot, err = g.resolveServers(ctx); err != nil {
		return nil, err
	}
	if ctx != nil {
		if err := g.applyContext(s, ctx, changed); err != nil {
			return nil, err
		}
	}
	if err := g.resolveAuth(s, ctx); err != nil {
		return nil, err
	}
	var ctxTLS *ContextTLS
	where := "flags"
	if ctx != nil {
		ctxTLS, where = ctx.TLS, fmt.Sprintf("context %q", s.ContextName)
	}
	if s.TLS, err = resolveTLS(g, ctxTLS, where); err != nil {
		return nil, err
	}
	var ctxSASL *ContextSASL
	if ctx != nil {
		ctxSASL = ctx.SASL
	}
	if s.SASL, err = resolveSASL(g, ctxSASL, changed("sasl-canonicalize-hostname")); err != nil {
		return nil, err
	}
	adminPort, where := g.AdminPort, "--admin-port"
	if adminPort == "" && ctx != nil {
		adminPort, where = ctx.AdminPort, fmt.Sprintf("context %q: admin_port", s.ContextName)
	}
	if s.AdminPorts, err = memberview.ParseAdminPorts(adminPort, len(s.Servers)); err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	s.AuditLog = g.AuditLog
	s.LogFile = g.LogFile
	if s.Theme != "" {
		// Checked here, before connecting: a typo is one line at once.
		if _, err := themes.Load(s.Theme); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// contextName is the name of the context to use and what named it:
// --context, else ZKLOCK_CONTEXT, else the config file's current_context
// when nothing else names the ensemble (no --servers, no ZK_SERVERS; no
// file: no default). "" for none.
func (g *Flags) contextName() (name, source string) {
	name, source = g.Context, "--context"
	if name == "" {
		name, source = os.Getenv("ZKLOCK_CONTEXT"), "ZKLOCK_CONTEXT"
	}
	if name == "" && g.Servers == "" && envServers() == "" {
		if cfg, _, err := g.Load(); err == nil && cfg.CurrentContext != "" {
			name, source = cfg.CurrentContext, "current_context"
		}
	}
	return name, source
}

// loadContext reads the context name from the config file; source says
// what named it, for the error when the file has no such context.
func (g *Flags) loadContext(name, source string) (*Context, error) {
	cfg, path, err := g.Load()
	if errors.Is(err, fs.ErrNotExist) {
		// Say the context asked for, and where contexts come from.
		if path == "" {
			path, _ = g.ConfigPath()
		}
		return nil, fmt.Errorf("%w: %q (named by %s): no config file at %s, where contexts are kept; make one with `zklock config set-context %s --servers HOST:PORT,...`, or give --servers",
			ErrNoContext, name, source, path, name)
	}
	if err != nil {
		return nil, err
	}
	c, ok := cfg.Contexts[name]
	if !ok {
		return nil, fmt.Errorf("context %q is not in %s (have: %s; named by %s)", name, path, strings.Join(cfg.Names(), ", "), source)
	}
	return &c, nil
}

// resolveServers is the server list, from --servers, else the context
// (ctx, nil for none), else ZK_SERVERS, else the default; and the chroot,
// from --chroot, else the end of the server list, else the context ("/"
// is none).
func (g *Flags) resolveServers(ctx *Context) (servers []string, chroot string, err error) {
	// An explicit --context beats ZK_SERVERS: a variable left in the
	// environment must not send "--context staging" to another ensemble
	// while the header says staging.
	serverList := g.Servers
	if serverList == "" && ctx != nil {
		serverList = strings.Join(ctx.Servers, ",")
	}
	if serverList == "" {
		serverList = envServers()
	}
	if serverList == "" {
		serverList = DefaultServers
	}
	servers, listChroot, err := ParseServers(serverList)
	if err != nil {
		return nil, "", err
	}
	switch {
	case g.Chroot != "":
		chroot = g.Chroot
	case listChroot != "":
		chroot = listChroot
	case ctx != nil:
		chroot = ctx.Chroot
	}
	if chroot == "/" {
		chroot = ""
	}
	if chroot != "" {
		if err := lockops.ValidPath(chroot); err != nil {
			return nil, "", fmt.Errorf("chroot: %w", err)
		}
	}
	return servers, chroot, nil
}

// applyContext sets what the context says where no flag said otherwise
// (changed tells): the theme, read-only (--write lifts it), the session
// timeout; and the context's lock roots, elections and semaphores.
func (g *Flags) applyContext(s *Settings, ctx *Context, changed func(flag string) bool) error {
	if !changed("theme") && s.Theme == "" {
		s.Theme = ctx.Theme
	}
	if ctx.ReadOnly && !g.Write && !g.ReadOnly {
		s.ReadOnly = true
		s.ReadOnlyContext = true
	}
	if ctx.SessionTimeout != "" && !changed("session-timeout") {
		d, err := time.ParseDuration(ctx.SessionTimeout)
		if err != nil || d <= 0 {
			return fmt.Errorf("context %q: bad session_timeout %q", s.ContextName, ctx.SessionTimeout)
		}
		s.SessionTimeout = d
	}
	s.Roots = ctx.Roots
	s.Elections = ctx.Elections
	s.Barriers = ctx.Barriers
	s.Semaphores = ctx.Semaphores
	return nil
}

// resolveAuth sets s.Auth from --auth-file, else the context's auth file
// (ctx, nil for none), else ZKLOCK_AUTH or ZK_AUTH; none of them: no
// credentials.
func (g *Flags) resolveAuth(s *Settings, ctx *Context) error {
	authFile := g.AuthFile
	if authFile == "" && ctx != nil {
		authFile = ctx.AuthFile
	}
	switch {
	case authFile != "":
		b, err := os.ReadFile(ExpandHome(authFile))
		if err != nil {
			return fmt.Errorf("auth file: %w", err)
		}
		c, err := ParseAuth(b)
		if err != nil {
			return fmt.Errorf("auth file %s: %w", authFile, err)
		}
		s.Auth = c
	case envAuth() != "":
		c, err := ParseAuth([]byte(envAuth()))
		if err != nil {
			return fmt.Errorf("ZKLOCK_AUTH (or ZK_AUTH): %w", err)
		}
		s.Auth = c
	}
	return nil
}

var ErrReadOnly = errors.New("read-only")

// RequireWrite refuses an action under --read-only or a read-only context
// without --write.
func (s *Settings) RequireWrite(action string) error {
	switch {
	case !s.ReadOnly:
		return nil
	case s.ReadOnlyContext:
		return fmt.Errorf("%w: context %q is read-only; pass --write to %s", ErrReadOnly, s.ContextName, action)
	default:
		return fmt.Errorf("%w: --read-only forbids %s", ErrReadOnly, action)
	}
}

var ErrBadServers = errors.New("malformed server list")

// ParseServers reads a ZooKeeper connect string: host:port pairs separated
// by commas, IPv6 hosts in brackets, an optional /chroot suffix as the Java
// client accepts. A missing port means 2181.
func ParseServers(s string) (servers []string, chroot string, err error) {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '/'); i >= 0 {
		s, chroot = s[:i], s[i:]
		if chroot == "/" {
			return nil, "", fmt.Errorf("%w: chroot \"/\" is the root; leave it out", ErrBadServers)
		}
		if err := lockops.ValidPath(chroot); err != nil {
			return nil, "", fmt.Errorf("%w: chroot %q: %v", ErrBadServers, chroot, err)
		}
	}
	if s == "" {
		return nil, "", fmt.Errorf("%w: empty", ErrBadServers)
	}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			return nil, "", fmt.Errorf("%w: empty entry in %q", ErrBadServers, s)
		}
		host, port, err := net.SplitHostPort(part)
		if err != nil {
			// No port: accept a bare host or a bracketed IPv6 address
			// with 2181. A bare IPv6 address is refused: "::1:2181"
			// reads both as an address and as address plus port.
			bracketed := strings.HasPrefix(part, "[") && strings.HasSuffix(part, "]")
			host, port = strings.TrimSuffix(strings.TrimPrefix(part, "["), "]"), "2181"
			if strings.Contains(host, ":") && !bracketed {
				return nil, "", fmt.Errorf("%w: %q: write IPv6 addresses in brackets, as [::1]:2181", ErrBadServers, part)
			}
			if strings.ContainsAny(host, "[]") || (strings.Count(host, ":") > 0 && net.ParseIP(host) == nil) {
				return nil, "", fmt.Errorf("%w: %q is not host:port", ErrBadServers, part)
			}
		}
		if !validHost(host) {
			return nil, "", fmt.Errorf("%w: bad host in %q", ErrBadServers, part)
		}
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return nil, "", fmt.Errorf("%w: bad port in %q", ErrBadServers, part)
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

var ErrBadAuth = errors.New("bad credentials")

// ParseAuth reads digest credentials: one "user:password" line; blank lines
// and lines starting with # are ignored; "digest:" in front is accepted.
// The password never appears in an error.
func ParseAuth(b []byte) (*Credentials, error) {
	var found *Credentials
	for _, line := range bytes.Split(b, []byte("\n")) {
		l := strings.TrimSpace(string(line))
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		if found != nil {
			return nil, fmt.Errorf("%w: more than one credentials line", ErrBadAuth)
		}
		l = strings.TrimPrefix(l, "digest:")
		user, pass, ok := strings.Cut(l, ":")
		if !ok {
			return nil, fmt.Errorf("%w: want user:password", ErrBadAuth)
		}
		if user == "" || pass == "" {
			return nil, fmt.Errorf("%w: empty user or password", ErrBadAuth)
		}
		for _, r := range user + pass {
			if r < 0x20 || r == 0x7f {
				return nil, fmt.Errorf("%w: control character", ErrBadAuth)
			}
		}
		found = &Credentials{User: user, Password: pass}
	}
	if found == nil {
		return nil, fmt.Errorf("%w: no user:password line", ErrBadAuth)
	}
	return found, nil
}

// File is the config file: named ensembles, as kubectl and k9s users
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
//	    elections: [/svc/leader]
//	    barriers: [/jobs/start-gate]
//	    semaphores: {/jobs/slots: 3}
//	    tls: {ca: /etc/zk/ca.pem, cert: ~/.zk/me.pem, key: ~/.zk/me-key.pem}
//
// tls turns TLS on: see ContextTLS.
//
// elections names paths to show as leader elections: their holder is the
// leader, their waiters the followers. Curator's LeaderLatch is told by
// its node names; LeaderSelector and Kazoo's Election are mutexes on the
// wire and are elections only when named here. Naming a path does not
// watch it (give it, or a root above it).
//
// barriers names paths to show as single barriers (Curator's
// DistributedBarrier, Kazoo's Barrier): set while the node exists, with
// the sessions the servers show waiting on it, open once it is gone. Both
// are one node its waiters watch, which nothing else on the wire tells
// from a cache watching a leaf. Naming a path does not watch it.
//
// semaphores states semaphores' limits by path: Curator's
// InterProcessSemaphoreV2 keeps its limit in the clients only, so zklock
// can only deduce it while a lease waits; a stated limit is shown, wins
// over Kazoo's max_leases in the parent's data, and more holders than it
// are flagged over-limit.
type File struct {
	// CurrentContext is the context used when no --context,
	// ZKLOCK_CONTEXT, --servers or ZKLOCK_SERVERS names the ensemble.
	CurrentContext string             `yaml:"current_context"`
	Contexts       map[string]Context `yaml:"contexts"`
}

// envAuth is ZKLOCK_AUTH, or ZK_AUTH (kept as an alias).
func envAuth() string {
	if v := os.Getenv("ZKLOCK_AUTH"); v != "" {
		return v
	}
	return os.Getenv("ZK_AUTH")
}

// envServers is ZKLOCK_SERVERS, or ZK_SERVERS (kept as an alias: the
// name other ZooKeeper tools read).
func envServers() string {
	if v := os.Getenv("ZKLOCK_SERVERS"); v != "" {
		return v
	}
	return os.Getenv("ZK_SERVERS")
}

type Context struct {
	Servers        []string `yaml:"servers"`
	Chroot         string   `yaml:"chroot"`
	AuthFile       string   `yaml:"auth_file"`
	ReadOnly       bool     `yaml:"read_only"`
	Theme          string   `yaml:"theme"`
	Roots          []string `yaml:"roots"`
	Elections      []string `yaml:"elections"`
	Barriers       []string `yaml:"barriers"`
	SessionTimeout string   `yaml:"session_timeout"`
	// AdminPort is where each member's AdminServer is: a port, 0 never
	// to ask, or one port per member ("8081,8082,8083").
	AdminPort string `yaml:"admin_port"`

	Semaphores map[string]int `yaml:"semaphores"`

	// TLS is the `tls:` block (ContextTLS): paths, never key material.
	TLS *ContextTLS `yaml:"tls"`
	// SASL is the `sasl:` block (ContextSASL): paths, never passwords.
	SASL *ContextSASL `yaml:"sasl"`
}

func (c *File) Names() []string {
	var n []string
	for k := range c.Contexts {
		n = append(n, k)
	}
	slices.Sort(n)
	return n
}

// Path is the config file: ZKLOCK_CONFIG, else zklock/config.yaml in
// the user's config directory (os.UserConfigDir: $XDG_CONFIG_HOME or
// ~/.config on Linux, ~/Library/Application Support on macOS).
func Path() (string, error) {
	if p := os.Getenv("ZKLOCK_CONFIG"); p != "" {
		return p, nil
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "zklock", "config.yaml"), nil
}

// PathHint is Path's default for a help text: the same on every
// machine (man pages are made on one machine for all), naming both
// systems' config directories.
func PathHint() string {
	return "$XDG_CONFIG_HOME/zklock/config.yaml or ~/.config/zklock/config.yaml; on macOS ~/Library/Application Support/zklock/config.yaml"
}

// Load reads and checks the config file at Path; it returns the path
// read.
func Load() (*File, string, error) {
	path, err := Path()
	if err != nil {
		return nil, "", fmt.Errorf("config file: %w", err)
	}
	cfg, err := LoadPath(path)
	return cfg, path, err
}

// Load reads and checks the config file: --config, else Path.
func (g *Flags) Load() (*File, string, error) {
	if g.ConfigFile == "" {
		return Load()
	}
	path := ExpandHome(g.ConfigFile)
	cfg, err := LoadPath(path)
	return cfg, path, err
}

// ConfigPath is the config file the flags name: --config, else Path.
func (g *Flags) ConfigPath() (string, error) {
	if g.ConfigFile != "" {
		return ExpandHome(g.ConfigFile), nil
	}
	return Path()
}

// LoadPath reads and checks the config file at path: unknown keys,
// invalid paths and limits are errors.
func LoadPath(path string) (*File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config file: %w", err)
	}
	cfg, err := decodeFile(b)
	if err != nil {
		return nil, fmt.Errorf("config file %s: %w", path, err)
	}
	if err := cfg.check(path); err != nil {
		return nil, err
	}
	return cfg, nil
}

// check refuses what decodes but cannot be used: invalid paths, limits
// below one.
func (cfg *File) check(path string) error {
	for name, c := range cfg.Contexts {
		for _, r := range c.Roots {
			if err := lockops.ValidPath(r); err != nil {
				return fmt.Errorf("config file %s: context %q: root: %w", path, name, err)
			}
		}
		for p, n := range c.Semaphores {
			if err := lockops.ValidPath(p); err != nil {
				return fmt.Errorf("config file %s: context %q: semaphore: %w", path, name, err)
			}
			if n < 1 {
				return fmt.Errorf("config file %s: context %q: semaphore %s: limit %d (want 1 or more)", path, name, p, n)
			}
		}
		for _, e := range c.Elections {
			if err := lockops.ValidPath(e); err != nil {
				return fmt.Errorf("config file %s: context %q: election: %w", path, name, err)
			}
		}
		for _, b := range c.Barriers {
			if err := lockops.ValidPath(b); err != nil {
				return fmt.Errorf("config file %s: context %q: barrier: %w", path, name, err)
			}
		}
	}
	return nil
}

// decodeFile decodes a config file's text strictly (unknown keys are
// errors); an empty file is an empty config.
func decodeFile(b []byte) (*File, error) {
	var cfg File
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&cfg); err != nil && !errors.Is(err, io.EOF) {
		return nil, errors.New(strings.ReplaceAll(err.Error(), "\n", " "))
	}
	return &cfg, nil
}

func ExpandHome(p string) string {
	if strings.HasPrefix(p, "~/") {
		if h, err := os.UserHomeDir(); err == nil {
			return filepath.Join(h, p[2:])
		}
	}
	return p
}
