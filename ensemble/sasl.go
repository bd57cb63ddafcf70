package ensemble

// One line for each way SASL authentication fails: who refused, why, and
// what to change.

import (
	"errors"
	"fmt"
	"strings"

	"github.com/zklock/zklock/config"
	"github.com/zklock/zklock/sasl"
	"github.com/zklock/zklock/third_party/zk"
)

// saslFailure is a SASL failure reworded; err keeps the chain.
type SASLFailure struct {
	msg string
	err error
}

func (e *SASLFailure) Error() string { return e.msg }
func (e *SASLFailure) Unwrap() error { return e.err }

// saslHint rewords err when it is a SASL failure, and returns it unchanged
// otherwise.
func SASLHint(err error) error {
	var se *zk.SASLError
	if !errors.As(err, &se) {
		// The refused request itself; zkview keeps a path's error as text,
		// hence the match on the message.
		if errors.Is(err, zk.ErrSASLRequired) || strings.Contains(err.Error(), zk.ErrSASLRequired.Error()) {
			se = &zk.SASLError{Err: zk.ErrSASLRequired}
		} else {
			return err
		}
	}
	var msg string
	switch {
	case errors.Is(se.Err, zk.ErrSASLRequired):
		at := ""
		if se.Server != "" {
			at = " at " + se.Server
		}
		msg = "ZooKeeper" + at + " requires SASL authentication and zklock sent none: give --sasl DIGEST-MD5 --sasl-user NAME (password in --sasl-password-file FILE or ZKLOCK_SASL_PASSWORD), --sasl GSSAPI --sasl-keytab FILE --sasl-principal NAME, or --jaas FILE"
	case se.Mechanism == config.MechGSSAPI:
		msg = gssapiHint(se)
	case errors.Is(se.Err, zk.ErrAuthFailed):
		msg = fmt.Sprintf("SASL %s refused by %s: unknown user or wrong password (ZooKeeper does not say which): check --sasl-user and the password (--sasl-password-file, ZKLOCK_SASL_PASSWORD or the --jaas file's Client section)", se.Mechanism, se.Server)
	case errors.Is(se.Err, sasl.ErrNoChallenge):
		msg = fmt.Sprintf("SASL %s: %s has no SASL configured (no JAAS Server section in its JVM's java.security.auth.login.config), so it cannot check anyone: connect without --sasl/--jaas, or configure SASL on the server", se.Mechanism, se.Server)
	case errors.Is(se.Err, sasl.ErrServerProof):
		msg = fmt.Sprintf("SASL %s with %s: the server did not prove it knows your password (bad rspauth): check --servers points at the ensemble you mean", se.Mechanism, se.Server)
	default:
		msg = fmt.Sprintf("SASL %s with %s failed: %v", se.Mechanism, se.Server, se.Err)
	}
	return &SASLFailure{msg: msg, err: err}
}

// gssapiHint is the one line for a failed Kerberos exchange: the cause
// as the sasl package words it, then the fix.
func gssapiHint(se *zk.SASLError) string {
	fix := ""
	switch {
	case errors.Is(se.Err, zk.ErrAuthFailed):
		return fmt.Sprintf("SASL GSSAPI refused by %s: the server did not accept the Kerberos ticket: its keytab may hold another key or principal than the KDC's, its clock may be off, or it has no Kerberos login (DIGEST-MD5 only): see the server's log", se.Server)
	case errors.Is(se.Err, sasl.ErrServicePrincipal):
		fix = "the servers' principal is --sasl-server-principal when given, else SERVICE/HOST with HOST the canonical name of the address reached, as the Java client names it: check --sasl-service (default zookeeper) and the servers' reverse DNS, or name the principal with --sasl-server-principal SERVICE/HOST@REALM, or keep HOST as written in --servers with --sasl-canonicalize-hostname=false"
	case errors.Is(se.Err, sasl.ErrClientPrincipal):
		fix = "check --sasl-principal, and that --sasl-keytab holds its current key"
	case errors.Is(se.Err, sasl.ErrKDCUnreachable):
		fix = "is the realm's KDC up, and does krb5.conf (--krb5-conf, KRB5_CONFIG) name it?"
	case errors.Is(se.Err, sasl.ErrClockSkew):
		fix = "this machine's clock and the KDC's differ by more than Kerberos allows (5 minutes): set the wrong one right (NTP)"
	case errors.Is(se.Err, sasl.ErrNoTicket):
		fix = "run kinit (again, if the ticket expired), or give --sasl-keytab FILE --sasl-principal NAME, from which zklock logs in again by itself"
	case errors.Is(se.Err, sasl.ErrNoChallenge):
		fix = "connect without --sasl/--jaas, or configure SASL on the server"
	case errors.Is(se.Err, sasl.ErrSecurityLayer):
		fix = "the server could not prove it holds the service's key: check --servers points at the ensemble you mean"
	default:
		return fmt.Sprintf("SASL GSSAPI with %s failed: %v", se.Server, se.Err)
	}
	return fmt.Sprintf("SASL GSSAPI with %s: %v: %s", se.Server, se.Err, fix)
}

// saslLog is the SASL setting for the debug log: mechanism and identity,
// never the password.
func SASLLog(s *config.Settings) string {
	if s.SASL == nil {
		return ""
	}
	return s.SASL.Mechanism + " as " + s.SASL.Identity()
}

// noAuthFix ends every NoAuth refusal: the ACL may name a digest user, a
// SASL identity or a TLS client certificate's subject, and each has its
// own flag.
const NoAuthFix = "give --auth-file or ZKLOCK_AUTH (digest), --sasl (sasl) or --tls-cert (x509) with credentials the ACL allows"
