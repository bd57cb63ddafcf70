package sandbox

// A throwaway Kerberos realm for GSSAPI tests: MIT's krb5kdc with a
// database, kdc.conf and krb5.conf of its own in a temp dir, on a free
// loopback port. Nothing of it is committed; nothing of the machine's
// /etc/krb5.conf or /etc/krb5kdc is read.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// ErrNoKDC means MIT Kerberos's KDC programs are not installed.
var ErrNoKDC = errors.New("sandbox: no Kerberos KDC found (krb5kdc, kdb5_util, kadmin.local); install it with `make deps` (Debian/Ubuntu: apt-get install krb5-kdc krb5-admin-server)")

// kdcEnctype is the only key type of the realm: one that gokrb5 and
// Java 17 both speak, with RFC 4121 wrap tokens.
const kdcEnctype = "aes256-cts-hmac-sha1-96"

// KDCOptions describe the realm.
type KDCOptions struct {
	// Realm is the realm's name, "ZKLOCK.TEST" when empty.
	Realm string
	// Principals are made with random keys and exported each to a keytab
	// of its own (KDC.Keytab), such as "zookeeper/localhost" and "alice".
	Principals []string
	// ClockOffset shifts the KDC's clock (libfaketime), so that this
	// machine's clock is off by as much from the realm's point of view:
	// over 5 minutes, Kerberos refuses it (clock skew).
	ClockOffset time.Duration
}

// KDC is a running (or stopped) throwaway realm.
type KDC struct {
	realm    string
	dir      string
	port     int
	krb5Conf string
	env      []string // KRB5_CONFIG and KRB5_KDC_PROFILE of the realm
	bin      map[string]string
	offset   time.Duration // ClockOffset

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
}

// StartKDC makes the realm in a new temp dir (kdb5_util create, then
// kadmin.local for the principals and keytabs) and starts krb5kdc. It
// fails with install instructions when the KDC is not installed.
func StartKDC(ctx context.Context, o KDCOptions) (*KDC, error) {
	if os.Getenv("ZKLOCK_SANDBOX") == "off" {
		return nil, ErrOff
	}
	bin, err := findKDC()
	if err != nil {
		return nil, err
	}
	if o.Realm == "" {
		o.Realm = "ZKLOCK.TEST"
	}
	dir, err := os.MkdirTemp("", "zklock-kdc-")
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	ports, err := freePorts(1)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	k := &KDC{realm: o.Realm, dir: dir, port: ports[0], bin: bin, krb5Conf: filepath.Join(dir, "krb5.conf"), offset: o.ClockOffset}
	k.env = append(os.Environ(), "KRB5_CONFIG="+k.krb5Conf, "KRB5_KDC_PROFILE="+filepath.Join(dir, "kdc.conf"))
	if err := k.create(ctx, o.Principals); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if err := k.Start(ctx); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return k, nil
}

// findKDC finds the three programs, on PATH or in /usr/sbin (Debian puts
// them there, and /usr/sbin is not on every user's PATH).
func findKDC() (map[string]string, error) {
	bin := map[string]string{}
	for _, name := range []string{"krb5kdc", "kdb5_util", "kadmin.local"} {
		p, err := exec.LookPath(name)
		if err != nil {
			p = filepath.Join("/usr/sbin", name)
			if _, serr := os.Stat(p); serr != nil {
				return nil, ErrNoKDC
			}
		}
		bin[name] = p
	}
	return bin, nil
}

// Realm returns the realm's name.
func (k *KDC) Realm() string { return k.realm }

// Addr returns the KDC's host:port (TCP and UDP).
func (k *KDC) Addr() string { return fmt.Sprintf("127.0.0.1:%d", k.port) }

// Krb5Conf returns the path of the realm's krb5.conf, for clients and for
// the JVM (-Djava.security.krb5.conf).
func (k *KDC) Krb5Conf() string { return k.krb5Conf }

// Keytab returns the path of the keytab holding principal's key.
func (k *KDC) Keytab(principal string) string {
	return filepath.Join(k.dir, strings.ReplaceAll(principal, "/", "_")+".keytab")
}

// Principal returns name@REALM.
func (k *KDC) Principal(name string) string { return name + "@" + k.realm }

// ZooKeeperSASL returns the SASL options of a ZooKeeper whose server
// authenticates clients by Kerberos as service (such as
// "zookeeper/localhost"): a Krb5LoginModule Server section with the
// service's keytab, and the realm's krb5.conf for the JVM.
func (k *KDC) ZooKeeperSASL(service string) *SASLOptions {
	return &SASLOptions{
		ServerSection: fmt.Sprintf("  com.sun.security.auth.module.Krb5LoginModule required\n"+
			"  useKeyTab=true\n  keyTab=%q\n  storeKey=true\n  useTicketCache=false\n  principal=%q;",
			k.Keytab(service), k.Principal(service)),
		JVMOptions: []string{"-Djava.security.krb5.conf=" + k.krb5Conf},
	}
}

// create writes the configs, the database and the keytabs.
func (k *KDC) create(ctx context.Context, principals []string) error {
	kdcConf := fmt.Sprintf(`[kdcdefaults]
 kdc_listen = 127.0.0.1:%[2]d
 kdc_tcp_listen = 127.0.0.1:%[2]d
[realms]
 %[1]s = {
  database_name = %[3]s/principal
  key_stash_file = %[3]s/stash
  acl_file = %[3]s/kadm5.acl
  max_life = 1h
  supported_enctypes = %[4]s:normal
  master_key_type = %[4]s
 }
[logging]
 kdc = FILE:%[3]s/kdc.log
`, k.realm, k.port, k.dir, kdcEnctype)
	krb5Conf := fmt.Sprintf(`[libdefaults]
 default_realm = %[1]s
 dns_lookup_realm = false
 dns_lookup_kdc = false
 rdns = false
 default_tkt_enctypes = %[3]s
 default_tgs_enctypes = %[3]s
 permitted_enctypes = %[3]s
[realms]
 %[1]s = {
  kdc = 127.0.0.1:%[2]d
 }
[domain_realm]
 localhost = %[1]s
`, k.realm, k.port, kdcEnctype)
	for name, text := range map[string]string{"kdc.conf": kdcConf, "krb5.conf": krb5Conf, "kadm5.acl": ""} {
		if err := os.WriteFile(filepath.Join(k.dir, name), []byte(text), 0o600); err != nil {
			return fmt.Errorf("sandbox: %w", err)
		}
	}
	if err := k.run(ctx, "kdb5_util", "", "create", "-s", "-r", k.realm, "-P", "sandbox-master-key"); err != nil {
		return err
	}
	var script strings.Builder
	for _, p := range principals {
		// requires_preauth, as real realms do: the KDC checks the
		// client's clock and key before it hands out a TGT.
		fmt.Fprintf(&script, "addprinc -randkey +requires_preauth %s\nktadd -k %s %s\n", p, k.Keytab(p), p)
	}
	return k.run(ctx, "kadmin.local", script.String(), "-r", k.realm)
}

// run runs one of the KDC's programs in the realm's environment.
func (k *KDC) run(ctx context.Context, name, stdin string, args ...string) error {
	cmd := exec.CommandContext(ctx, k.bin[name], args...)
	cmd.Env, cmd.Dir = k.env, k.dir
	cmd.Stdin = strings.NewReader(stdin)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("sandbox: %s: %w: %s", name, err, strings.TrimSpace(out.String()))
	}
	if strings.Contains(out.String(), "error") || strings.Contains(out.String(), "Error") {
		return fmt.Errorf("sandbox: %s: %s", name, strings.TrimSpace(out.String()))
	}
	return nil
}

// kdcWait bounds the KDC's start: it serves within milliseconds.
const kdcWait = 10 * time.Second

// Start starts krb5kdc (again, after Stop) on the realm's port and waits
// until it accepts TCP connections.
func (k *KDC) Start(ctx context.Context) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.cmd != nil {
		return nil
	}
	logf, err := os.OpenFile(filepath.Join(k.dir, "krb5kdc.out"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	cmd, err := k.kdcCommand()
	if err != nil {
		logf.Close()
		return err
	}
	cmd.Dir, cmd.Stdout, cmd.Stderr = k.dir, logf, logf
	if err := StartChild(cmd); err != nil {
		logf.Close()
		return fmt.Errorf("sandbox: start krb5kdc: %w", err)
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		logf.Close()
		close(done)
	}()
	k.cmd, k.done = cmd, done
	ctx, cancel := context.WithTimeout(ctx, kdcWait)
	defer cancel()
	for {
		c, err := (&net.Dialer{Timeout: time.Second}).DialContext(ctx, "tcp", k.Addr())
		if err == nil {
			c.Close()
			return nil
		}
		select {
		case <-done:
			k.cmd = nil
			return fmt.Errorf("sandbox: krb5kdc exited: %s", k.LogTail(20))
		case <-ctx.Done():
			return fmt.Errorf("sandbox: krb5kdc not serving on %s: %w: %s", k.Addr(), ctx.Err(), k.LogTail(20))
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Stop kills krb5kdc and waits until it is gone, so that clients find
// no KDC at all. Stopping a stopped KDC does nothing.
func (k *KDC) Stop() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.cmd == nil {
		return nil
	}
	if err := k.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("sandbox: stop krb5kdc: %w", err)
	}
	select {
	case <-k.done:
	case <-time.After(exitWait):
		return fmt.Errorf("%w: krb5kdc still there %v after SIGKILL", ErrStuck, exitWait)
	}
	k.cmd = nil
	return nil
}

// LogTail returns the last n lines of the KDC's logs.
func (k *KDC) LogTail(n int) string {
	return tailFile(filepath.Join(k.dir, "kdc.log"), n) + tailFile(filepath.Join(k.dir, "krb5kdc.out"), n)
}

// Close stops the KDC and removes its dir.
func (k *KDC) Close() error {
	err := k.Stop()
	return errors.Join(err, os.RemoveAll(k.dir))
}
