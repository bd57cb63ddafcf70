package sandbox

// Changes to a running realm for the failure tests (a principal added,
// deleted or given a new key), kinit for credential caches, and a KDC
// whose clock is shifted (libfaketime) for clock skew.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

var (
	// ErrNoKinit means MIT Kerberos's client programs are not installed.
	ErrNoKinit = errors.New("sandbox: no kinit found; install it with `make deps` (Debian/Ubuntu: apt-get install krb5-user)")
	// ErrNoFaketime means libfaketime's faketime is not installed.
	ErrNoFaketime = errors.New("sandbox: no libfaketime found (/usr/lib/*/faketime/libfaketime.so.1); install it with `make deps` (Debian/Ubuntu: apt-get install faketime)")
)

// AddPrincipal adds name with a random key, requiring pre-authentication
// as StartKDC's principals do, and exports its key to Keytab(name).
func (k *KDC) AddPrincipal(ctx context.Context, name string) error {
	return k.run(ctx, "kadmin.local", fmt.Sprintf("addprinc -randkey +requires_preauth %s\nktadd -k %s %s\n", name, k.Keytab(name), name), "-r", k.realm)
}

// DeletePrincipal removes name from the realm; its keytab stays, as a
// client's keytab outlives a principal removed by an administrator.
func (k *KDC) DeletePrincipal(ctx context.Context, name string) error {
	return k.run(ctx, "kadmin.local", fmt.Sprintf("delprinc -force %s\n", name), "-r", k.realm)
}

// Rekey gives name a new random key (and key version) in the KDC only:
// Keytab(name) keeps the old one, as a keytab not redistributed after a
// key change does.
func (k *KDC) Rekey(ctx context.Context, name string) error {
	return k.run(ctx, "kadmin.local", fmt.Sprintf("cpw -randkey %s\n", name), "-r", k.realm)
}

// Kinit fills the credential cache file ccache with a TGT for principal
// from its keytab (kinit -k -t), valid for lifetime when not zero (the
// realm allows up to an hour).
func (k *KDC) Kinit(ctx context.Context, principal, ccache string, lifetime time.Duration) error {
	kinit, err := findClientTool("kinit")
	if err != nil {
		return err
	}
	args := []string{"-k", "-t", k.Keytab(principal), "-c", "FILE:" + ccache}
	if lifetime > 0 {
		args = append(args, "-l", strconv.Itoa(int(lifetime.Seconds()))+"s")
	}
	cmd := exec.CommandContext(ctx, kinit, append(args, k.Principal(principal))...)
	cmd.Env, cmd.Dir = k.env, k.dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("sandbox: kinit %s: %w: %s", principal, err, strings.TrimSpace(out.String()))
	}
	return nil
}

// TicketValid reports whether ccache holds a TGT that has not expired
// (klist -s), so a test can wait for a short ticket to expire.
func (k *KDC) TicketValid(ctx context.Context, ccache string) (bool, error) {
	klist, err := findClientTool("klist")
	if err != nil {
		return false, err
	}
	cmd := exec.CommandContext(ctx, klist, "-s", "-c", "FILE:"+ccache)
	cmd.Env = k.env
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return true, nil
	case errors.As(err, &exit):
		return false, nil
	}
	return false, fmt.Errorf("sandbox: klist: %w", err)
}

// findClientTool finds kinit or klist (krb5-user), on PATH or in /usr/bin.
func findClientTool(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	p := filepath.Join("/usr/bin", name)
	if _, err := os.Stat(p); err != nil {
		return "", ErrNoKinit
	}
	return p, nil
}

// kdcCommand is krb5kdc's command line: with libfaketime preloaded when
// the realm's clock is shifted. krb5kdc is a C program, which the preload
// library can fool; Go's clients cannot be, so skew is made on the KDC's
// side. The library is preloaded directly rather than through the
// faketime program, which forks: killing it would leave krb5kdc running.
func (k *KDC) kdcCommand() (*exec.Cmd, error) {
	cmd := exec.Command(k.bin["krb5kdc"], "-n", "-r", k.realm)
	cmd.Env = k.env
	if k.offset == 0 {
		return cmd, nil
	}
	libs, _ := filepath.Glob("/usr/lib/*/faketime/libfaketime.so.1")
	if more, _ := filepath.Glob("/usr/lib/faketime/libfaketime.so.1"); len(more) > 0 {
		libs = append(libs, more...)
	}
	if len(libs) == 0 {
		return nil, ErrNoFaketime
	}
	shift := fmt.Sprintf("%+ds", int(k.offset.Seconds()))
	cmd.Env = append(append([]string{}, k.env...), "LD_PRELOAD="+libs[0], "FAKETIME="+shift, "FAKETIME_DONT_FAKE_MONOTONIC=1")
	return cmd, nil
}
