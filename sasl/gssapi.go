package sasl

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jcmturner/gokrb5/v8/client"
	krb5config "github.com/jcmturner/gokrb5/v8/config"
	"github.com/jcmturner/gokrb5/v8/credentials"
	"github.com/jcmturner/gokrb5/v8/crypto"
	"github.com/jcmturner/gokrb5/v8/gssapi"
	"github.com/jcmturner/gokrb5/v8/iana/flags"
	"github.com/jcmturner/gokrb5/v8/iana/keyusage"
	"github.com/jcmturner/gokrb5/v8/iana/nametype"
	"github.com/jcmturner/gokrb5/v8/keytab"
	"github.com/jcmturner/gokrb5/v8/messages"
	"github.com/jcmturner/gokrb5/v8/spnego"
	"github.com/jcmturner/gokrb5/v8/types"

	"github.com/zklock/zklock/third_party/zk"
)

// RFC 4752's security layers, the first byte of the negotiation message.
// ZooKeeper's QOP is "auth": authentication only, no layer.
const (
	layerNone      byte = 0x01
	layerIntegrity byte = 0x02
	layerPrivacy   byte = 0x04
)

var (
	// ErrKerberosSetup means krb5.conf, the keytab or the credential cache
	// could not be read or does not hold the principal.
	ErrKerberosSetup = errors.New("sasl: Kerberos set-up")
	// ErrKDCUnreachable means no KDC of the realm answered.
	ErrKDCUnreachable = errors.New("sasl: no Kerberos KDC answered")
	// ErrClientPrincipal means the KDC does not know the client principal
	// or refused its key (a keytab older than the principal's key).
	ErrClientPrincipal = errors.New("sasl: the KDC refused the client principal")
	// ErrServicePrincipal means the KDC has no such service principal
	// (<service>/<host>): a wrong --sasl-service or a host name that is
	// not the one in the servers' principal.
	ErrServicePrincipal = errors.New("sasl: the KDC has no such service principal")
	// ErrClockSkew means the KDC found this machine's clock too far from
	// its own (KRB_AP_ERR_SKEW).
	ErrClockSkew = errors.New("sasl: clock skew too great")
	// ErrNoTicket means the credential cache holds no valid ticket.
	ErrNoTicket = errors.New("sasl: no valid Kerberos ticket")
	// ErrSecurityLayer means the server's GSSAPI tokens could not be
	// checked with the session key, or it offers no layer "none" (qop
	// auth): it is not the service the ticket is for.
	ErrSecurityLayer = errors.New("sasl: bad GSSAPI reply from the server")
)

// GSSAPIOptions say where a GSSAPI client finds its credentials.
type GSSAPIOptions struct {
	// Principal is the client, name or name@REALM; without a realm,
	// krb5.conf's default_realm. Empty with no Keytab: the cache's.
	Principal string
	// Keytab is the client's keytab; empty: the credential cache.
	Keytab string
	// CCache names the credential cache when Keytab is empty (a JAAS
	// ticketCache: a path or FILE:path); empty: KRB5CCNAME, else
	// krb5.conf's default_ccache_name, else /tmp/krb5cc_<uid> (FILE:
	// caches only: ccache.go).
	CCache string
	// Krb5Conf is the path of krb5.conf.
	Krb5Conf string
	// Service is the servers' Kerberos service, "zookeeper" when empty.
	Service string
	// ServerPrincipal names the servers' principal outright,
	// SERVICE/HOST[@REALM] (the Java client's zookeeper.server.principal):
	// Service and the host of the connect string play no part then.
	ServerPrincipal string
	// HostAsWritten turns off the canonicalization of the server's host
	// name (zookeeper.sasl.client.canonicalize.hostname=false): the
	// principal names the host as the connect string writes it.
	HostAsWritten bool
}

// GSSAPI is SASL's Kerberos V5 mechanism (RFC 4752), the client side as
// ZooKeeper's Java client runs it, for zk.WithSASL: an AP-REQ for the
// service principal <Service>/<host> with mutual authentication, the
// server's AP-REP, then the security-layer negotiation, where it takes
// layer "none" (ZooKeeper's qop auth).
type GSSAPI struct {
	principal string // name@REALM, for messages and the authzid
	service   string
	named     string // ServerPrincipal without its realm, "" when not given
	asWritten bool   // HostAsWritten
	resolver  Resolver
	cfg       *krb5config.Config // for the service's realm (domain_realm)
	ccache    string             // the credential cache file, when not a keytab
	tgtEnd    time.Time          // when the cache's TGT expires (zero: unknown)

	mu    sync.Mutex
	cl    *client.Client    // logged in on first use; renews its TGT itself
	asked map[string]string // server (as written) to the principal last asked for it
}

// NewGSSAPI reads krb5.conf and the keytab (or the credential cache), so
// that a missing or wrong file fails before any connection.
func NewGSSAPI(o GSSAPIOptions) (*GSSAPI, error) {
	cfg, err := krb5config.Load(o.Krb5Conf)
	if err != nil {
		var unsupported krb5config.UnsupportedDirective
		if !errors.As(err, &unsupported) {
			return nil, fmt.Errorf("%w: krb5.conf %s: %w", ErrKerberosSetup, o.Krb5Conf, err)
		}
	}
	g := &GSSAPI{service: o.Service, asWritten: o.HostAsWritten, resolver: net.DefaultResolver, cfg: cfg}
	if g.service == "" {
		g.service = "zookeeper"
	}
	if err := g.nameServer(o.ServerPrincipal); err != nil {
		return nil, err
	}
	settings := []func(*client.Settings){client.DisablePAFXFAST(true)}
	if o.Keytab == "" {
		return g, g.fromCCache(o, cfg, settings)
	}
	kt, err := keytab.Load(o.Keytab)
	if err != nil {
		return nil, fmt.Errorf("%w: keytab %s: %w", ErrKerberosSetup, o.Keytab, err)
	}
	name, realm := splitPrincipal(o.Principal, cfg.LibDefaults.DefaultRealm)
	if name == "" || realm == "" {
		return nil, fmt.Errorf("%w: principal %q: want name@REALM (krb5.conf %s has no default_realm)", ErrKerberosSetup, o.Principal, o.Krb5Conf)
	}
	g.principal = name + "@" + realm
	if held := keytabPrincipals(kt); !slices.Contains(held, g.principal) {
		return nil, fmt.Errorf("%w: keytab %s has no key for %s (it holds %s)", ErrKerberosSetup, o.Keytab, g.principal, strings.Join(held, ", "))
	}
	g.cl = client.NewWithKeytab(name, realm, kt, cfg, settings...)
	return g, nil
}

// fromCCache builds the client from a credential cache (kinit's).
func (g *GSSAPI) fromCCache(o GSSAPIOptions, cfg *krb5config.Config, settings []func(*client.Settings)) error {
	path, err := ccachePath(o)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrKerberosSetup, err)
	}
	cc, err := credentials.LoadCCache(path)
	if err != nil {
		return fmt.Errorf("%w: %w: credential cache %s: %w (run kinit, or give a keytab)", ErrKerberosSetup, ErrNoTicket, path, err)
	}
	g.principal = cc.GetClientPrincipalName().PrincipalNameString() + "@" + cc.GetClientRealm()
	if o.Principal != "" {
		name, realm := splitPrincipal(o.Principal, cfg.LibDefaults.DefaultRealm)
		if name+"@"+realm != g.principal {
			return fmt.Errorf("%w: credential cache %s holds %s, not %s", ErrKerberosSetup, path, g.principal, o.Principal)
		}
	}
	if g.cl, err = client.NewFromCCache(cc, cfg, settings...); err != nil {
		return fmt.Errorf("%w: %w: credential cache %s: %w (run kinit)", ErrKerberosSetup, ErrNoTicket, path, err)
	}
	g.ccache = path
	tgs := types.PrincipalName{NameType: nametype.KRB_NT_SRV_INST, NameString: []string{"krbtgt", cc.GetClientRealm()}}
	if tgt, ok := cc.GetEntry(tgs); ok {
		g.tgtEnd = tgt.EndTime
	}
	return nil
}

// ccachePath is the file of the credential cache MIT's libraries would
// use (KRB5CCNAME, else krb5.conf's default_ccache_name, else
// /tmp/krb5cc_<uid>), or ErrCCacheType for one that is not a file.
func ccachePath(o GSSAPIOptions) (string, error) {
	u := thisUser()
	if o.CCache != "" {
		return cacheFile(o.CCache, "the JAAS ticketCache", o.Principal, u.uid)
	}
	env, conf := os.Getenv("KRB5CCNAME"), ""
	if env == "" {
		b, _ := os.ReadFile(o.Krb5Conf) // read once already, by NewGSSAPI
		conf = string(b)
	}
	name, from := cacheName(env, conf, o.Krb5Conf, u)
	return cacheFile(name, from, o.Principal, u.uid)
}

// expired says, for a client from a credential cache, that its TGT has
// expired: gokrb5 cannot renew it without a key and says only that it has
// no credentials, while the fix is to run kinit again.
func (g *GSSAPI) expired(now time.Time) error {
	if g.ccache == "" || g.tgtEnd.IsZero() || now.Before(g.tgtEnd) {
		return nil
	}
	return fmt.Errorf("%w: the ticket of %s in credential cache %s expired at %s", ErrNoTicket,
		g.principal, g.ccache, g.tgtEnd.Local().Format(time.DateTime))
}

// Name returns "GSSAPI".
func (g *GSSAPI) Name() string { return "GSSAPI" }

// Principal returns the client principal, name@REALM.
func (g *GSSAPI) Principal() string { return g.principal }

// nameServer takes the principal given outright, if any: its realm,
// when it has one, becomes its host's in krb5.conf's domain_realm, where
// gokrb5 looks for a service's realm.
func (g *GSSAPI) nameServer(principal string) error {
	if principal == "" {
		return nil
	}
	service, host, realm, err := ParseServerPrincipal(principal)
	if err != nil {
		return err
	}
	g.named = service + "/" + host
	if realm != "" {
		if g.cfg.DomainRealm == nil {
			g.cfg.DomainRealm = krb5config.DomainRealm{}
		}
		g.cfg.DomainRealm[host] = realm
	}
	return nil
}

// ServicePrincipal returns the principal the server must hold for a
// connection to server (host:port as written) that reached remote (nil:
// unknown), without its realm: the one given outright, else
// <service>/<host> with the host canonicalized as the Java client does
// (serverHost) unless HostAsWritten.
func (g *GSSAPI) ServicePrincipal(ctx context.Context, server string, remote net.Addr) string {
	if g.named != "" {
		return g.named
	}
	return g.service + "/" + serverHost(ctx, g.resolver, server, remote, !g.asWritten)
}

// AskedFor returns the principal, SERVICE/HOST@REALM, that the last
// exchange with server (host:port as written) asked a ticket for, "" when
// none was made: for doctor, to show which principal a server must hold.
func (g *GSSAPI) AskedFor(server string) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.asked[server]
}

// serviceRealm is the realm gokrb5 asks a ticket of spn in: the host's
// in krb5.conf's domain_realm, else the client's.
func (g *GSSAPI) serviceRealm(spn string) string {
	_, host, _ := strings.Cut(spn, "/")
	if r := g.cfg.ResolveRealm(host); r != "" {
		return r
	}
	_, realm := splitPrincipal(g.principal, "")
	return realm
}

// Start logs in (once: the client keeps and renews its TGT), gets a
// service ticket for the server and makes the AP-REQ.
func (g *GSSAPI) Start(ctx context.Context, server string, remote net.Addr) (zk.SASLExchange, error) {
	spn := g.ServicePrincipal(ctx, server, remote)
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.asked == nil {
		g.asked = map[string]string{}
	}
	g.asked[server] = spn + "@" + g.serviceRealm(spn)
	if err := g.expired(time.Now()); err != nil {
		return nil, err
	}
	if err := g.cl.AffirmLogin(); err != nil {
		return nil, classifyKerberos(err, "log in as "+g.principal)
	}
	tkt, key, err := g.cl.GetServiceTicket(spn)
	if err != nil {
		return nil, classifyKerberos(err, "ticket for "+g.asked[server])
	}
	tok, err := spnego.NewKRB5TokenAPREQ(g.cl, tkt, key,
		[]int{gssapi.ContextFlagInteg, gssapi.ContextFlagMutual}, []int{flags.APOptionMutualRequired})
	if err != nil {
		return nil, fmt.Errorf("%w: AP-REQ for %s: %w", ErrKerberosSetup, spn, err)
	}
	apreq, err := tok.Marshal()
	if err != nil {
		return nil, fmt.Errorf("%w: AP-REQ for %s: %w", ErrKerberosSetup, spn, err)
	}
	ex := &gssapiExchange{apreq: apreq, key: key, authzid: g.principal}
	if ex.sent, err = authenticatorTime(tok.APReq, key); err != nil {
		return nil, err
	}
	return ex, nil
}

// gssapiExchange is one run of GSSAPI on one connection.
type gssapiExchange struct {
	apreq    []byte
	key      types.EncryptionKey // the ticket's session key (no subkeys: gokrb5 sends none)
	sent     types.Authenticator // ours, to match the AP-REP against
	authzid  string
	step     int
	complete bool
}

// Complete reports whether the security layer was agreed.
func (e *gssapiExchange) Complete() bool { return e.complete }

// Step sends the AP-REQ, checks the AP-REP, then answers the server's
// security-layer offer.
func (e *gssapiExchange) Step(challenge []byte) ([]byte, error) {
	e.step++
	switch {
	case e.step == 1:
		return e.apreq, nil
	case len(challenge) == 0 && e.step == 2:
		return nil, ErrNoChallenge
	case len(challenge) > 0 && challenge[0] == 0x60:
		// A GSS token (RFC 2743 framing): the AP-REP of mutual
		// authentication; the server's offer comes after an empty reply.
		if err := e.checkAPRep(challenge); err != nil {
			return nil, err
		}
		return []byte{}, nil
	}
	reply, err := securityLayerReply(challenge, e.key, e.authzid)
	if err != nil {
		return nil, err
	}
	e.complete = true
	return reply, nil
}

// checkAPRep decrypts the AP-REP with the session key (only the service
// could) and matches the time in it against the authenticator sent.
func (e *gssapiExchange) checkAPRep(b []byte) error {
	var tok spnego.KRB5Token
	if err := tok.Unmarshal(b); err != nil {
		return fmt.Errorf("%w: AP-REP: %w", ErrSecurityLayer, err)
	}
	if tok.IsKRBError() {
		return classifyKerberos(tok.KRBError, "the server's answer to the AP-REQ")
	}
	if !tok.IsAPRep() {
		return fmt.Errorf("%w: a GSS token that is not an AP-REP", ErrSecurityLayer)
	}
	plain, err := crypto.DecryptEncPart(tok.APRep.EncPart, e.key, keyusage.AP_REP_ENCPART)
	if err != nil {
		return fmt.Errorf("%w: AP-REP: %w", ErrSecurityLayer, err)
	}
	var part messages.EncAPRepPart
	if err := part.Unmarshal(plain); err != nil {
		return fmt.Errorf("%w: AP-REP: %w", ErrSecurityLayer, err)
	}
	if !part.CTime.Equal(e.sent.CTime) || part.Cusec != e.sent.Cusec {
		return fmt.Errorf("%w: the AP-REP answers another authenticator", ErrSecurityLayer)
	}
	if part.Subkey.KeyType != 0 && len(part.Subkey.KeyValue) > 0 {
		e.key = part.Subkey // RFC 4121 4.2.2: the acceptor's subkey, when it sends one
	}
	return nil
}

// securityLayerReply checks the server's wrapped offer (a layer bitmask
// and a 3-byte maximum size) and wraps the answer: layer "none", size 0,
// then the authorization id (RFC 4752 3.1).
func securityLayerReply(challenge []byte, key types.EncryptionKey, authzid string) ([]byte, error) {
	var offer gssapi.WrapToken
	if err := offer.Unmarshal(challenge, true); err != nil {
		return nil, fmt.Errorf("%w: security-layer offer: %w", ErrSecurityLayer, err)
	}
	if ok, err := offer.Verify(key, keyusage.GSSAPI_ACCEPTOR_SEAL); !ok {
		return nil, fmt.Errorf("%w: security-layer offer: %w", ErrSecurityLayer, err)
	}
	if len(offer.Payload) != 4 {
		return nil, fmt.Errorf("%w: security-layer offer of %d bytes, want 4", ErrSecurityLayer, len(offer.Payload))
	}
	if offer.Payload[0]&layerNone == 0 {
		return nil, fmt.Errorf("%w: the server offers layers %#x, not \"none\" (qop auth)", ErrSecurityLayer, offer.Payload[0]&(layerNone|layerIntegrity|layerPrivacy))
	}
	payload := append([]byte{layerNone, 0, 0, 0}, authzid...)
	answer, err := gssapi.NewInitiatorWrapToken(payload, key)
	if err != nil {
		return nil, fmt.Errorf("%w: wrap: %w", ErrSecurityLayer, err)
	}
	return answer.Marshal()
}

// authenticatorTime reads back the authenticator inside apreq.
func authenticatorTime(apreq messages.APReq, key types.EncryptionKey) (types.Authenticator, error) {
	var a types.Authenticator
	plain, err := crypto.DecryptEncPart(apreq.EncryptedAuthenticator, key, keyusage.AP_REQ_AUTHENTICATOR)
	if err == nil {
		err = a.Unmarshal(plain)
	}
	if err != nil {
		return a, fmt.Errorf("%w: read back the authenticator: %w", ErrKerberosSetup, err)
	}
	return a, nil
}

// classifyKerberos puts a sentinel on a gokrb5 failure of op and keeps
// only the KDC's error of gokrb5's long text. gokrb5 keeps a KDC's error
// only as text (krberror has no Unwrap), hence the match on names.
func classifyKerberos(err error, op string) error {
	msg := err.Error()
	detail := msg
	if i := strings.LastIndex(msg, "KRB Error: "); i >= 0 {
		detail = strings.TrimSpace(msg[i+len("KRB Error: "):])
		detail, _, _ = strings.Cut(detail, " - ") // gokrb5's e-text suffix
	} else if i := strings.LastIndex(msg, "dial tcp "); i >= 0 {
		detail = strings.TrimRight(msg[i:], ")") // the TCP try: UDP's says less
	}
	for _, c := range []struct {
		name string
		is   error
	}{
		{"KDC_ERR_C_PRINCIPAL_UNKNOWN", ErrClientPrincipal},
		{"KDC_ERR_PREAUTH_FAILED", ErrClientPrincipal},
		{"KDC_ERR_CLIENT_REVOKED", ErrClientPrincipal},
		{"KDC_ERR_S_PRINCIPAL_UNKNOWN", ErrServicePrincipal},
		{"KRB_AP_ERR_SKEW", ErrClockSkew},
		{"KRB_AP_ERR_TKT_NYV", ErrClockSkew}, // a ticket that starts in our future
		{"KRB_AP_ERR_TKT_EXPIRED", ErrNoTicket},
		{"failed to communicate with KDC", ErrKDCUnreachable},
		{"communication error with KDC", ErrKDCUnreachable},
		{"no KDCs defined", ErrKDCUnreachable},
		{"matching key not found in keytab", ErrKerberosSetup},
		{"no user credentials available", ErrNoTicket},
		{"TGT session expired", ErrNoTicket},
	} {
		if strings.Contains(msg, c.name) {
			return fmt.Errorf("%w: %s: %s", c.is, op, detail)
		}
	}
	return fmt.Errorf("%s: %w", op, err)
}

// splitPrincipal splits name@REALM, with realm when there is none.
func splitPrincipal(p, realm string) (string, string) {
	if i := strings.LastIndexByte(p, '@'); i >= 0 {
		return p[:i], p[i+1:]
	}
	return p, realm
}

// keytabPrincipals lists the principals a keytab holds keys for.
func keytabPrincipals(kt *keytab.Keytab) []string {
	var out []string
	for _, e := range kt.Entries {
		p := strings.Join(e.Principal.Components, "/") + "@" + e.Principal.Realm
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}
