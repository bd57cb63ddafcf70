package sasl

import (
	"context"
	"crypto/md5"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"unicode/utf8"

	"github.com/zklock/zklock/third_party/zk"
)

// ZooKeeper's server creates its DIGEST-MD5 side with the protocol
// "zookeeper" and the server name "zk-sasl-md5", whatever its host is
// called (ZooKeeperSaslServer), and offers that name as the realm; the Java
// client uses the same two, so the digest-uri is fixed.
const (
	DigestRealm = "zk-sasl-md5"
	digestURI   = "zookeeper/" + DigestRealm
)

var (
	// ErrNoChallenge means the server answered the first SASL request
	// without a challenge: it has no SASL login configured (no JAAS Server
	// section), so it cannot check anyone.
	ErrNoChallenge = errors.New("sasl: the server sent no challenge: SASL is not configured on it")
	// ErrChallenge means the server's challenge could not be read or asks
	// for something this client does not do.
	ErrChallenge = errors.New("sasl: bad DIGEST-MD5 challenge")
	// ErrServerProof means the server's rspauth did not match: it does not
	// know the password, so it is not the server it claims to be.
	ErrServerProof = errors.New("sasl: the server's DIGEST-MD5 proof (rspauth) is wrong")
)

// Digest is the DIGEST-MD5 mechanism (RFC 2831) with qop "auth"
// (authentication only, as ZooKeeper uses it), for zk.WithSASL.
type Digest struct {
	User     string
	Password string
	// rand makes the client nonce; crypto/rand when nil (tests fix it).
	rand io.Reader
}

// Name returns "DIGEST-MD5".
func (d *Digest) Name() string { return "DIGEST-MD5" }

// Start begins an exchange; the server name plays no part (see digestURI).
func (d *Digest) Start(context.Context, string, net.Addr) (zk.SASLExchange, error) {
	return &digestExchange{d: d}, nil
}

// digestExchange is one run of DIGEST-MD5: an empty first token, the
// response to the server's challenge, then the check of its rspauth.
type digestExchange struct {
	d        *Digest
	step     int
	rspauth  string
	complete bool
}

// Complete reports whether the server's proof was checked.
func (e *digestExchange) Complete() bool { return e.complete }

// Step answers the server's token for the current step.
func (e *digestExchange) Step(challenge []byte) ([]byte, error) {
	e.step++
	switch e.step {
	case 1:
		return []byte{}, nil // DIGEST-MD5 has no initial response
	case 2:
		if len(challenge) == 0 {
			return nil, ErrNoChallenge
		}
		c, err := parseDirectives(string(challenge))
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrChallenge, err)
		}
		resp, rspauth, err := e.d.respond(c)
		if err != nil {
			return nil, err
		}
		e.rspauth = rspauth
		return []byte(resp), nil
	case 3:
		got, err := parseDirectives(string(challenge))
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrServerProof, err)
		}
		if subtle.ConstantTimeCompare([]byte(got["rspauth"]), []byte(e.rspauth)) != 1 {
			return nil, ErrServerProof
		}
		e.complete = true
		return nil, nil
	}
	return nil, fmt.Errorf("sasl: DIGEST-MD5 has no step %d", e.step)
}

// respond builds the digest-response to challenge c and the rspauth the
// server must send back.
func (d *Digest) respond(c map[string]string) (resp, rspauth string, err error) {
	nonce := c["nonce"]
	if nonce == "" {
		return "", "", fmt.Errorf("%w: no nonce", ErrChallenge)
	}
	if q, ok := c["qop"]; ok && !hasToken(q, "auth") {
		return "", "", fmt.Errorf("%w: qop %q has no \"auth\"", ErrChallenge, q)
	}
	if a := c["algorithm"]; a != "md5-sess" {
		return "", "", fmt.Errorf("%w: algorithm %q, want md5-sess", ErrChallenge, a)
	}
	realm, _, _ := strings.Cut(c["realm"], ",") // the first realm offered
	utf := c["charset"] == "utf-8"
	cnonce, err := d.cnonce()
	if err != nil {
		return "", "", err
	}
	const nc = "00000001"
	p := digestParams{user: d.User, realm: realm, password: d.Password, nonce: nonce,
		cnonce: cnonce, nc: nc, uri: digestURI, utf8: utf}
	var b strings.Builder
	if utf {
		b.WriteString("charset=utf-8,")
	}
	fmt.Fprintf(&b, "username=%s,realm=%s,nonce=%s,nc=%s,cnonce=%s,digest-uri=%s,response=%s,qop=auth",
		quote(d.User), quote(realm), quote(nonce), nc, quote(cnonce), quote(digestURI), p.response("AUTHENTICATE"))
	return b.String(), p.response(""), nil
}

func (d *Digest) cnonce() (string, error) {
	r := d.rand
	if r == nil {
		r = rand.Reader
	}
	b := make([]byte, 16)
	if _, err := io.ReadFull(r, b); err != nil {
		return "", fmt.Errorf("sasl: client nonce: %w", err)
	}
	return base64.RawStdEncoding.EncodeToString(b), nil
}

// digestParams are the values RFC 2831's response-value is computed from.
type digestParams struct {
	user, realm, password, nonce, cnonce, nc, uri string
	utf8                                          bool
}

// response is RFC 2831's response-value (section 2.1.2.1) for qop=auth:
// method "AUTHENTICATE" for the client's response, "" for the server's
// rspauth.
func (p digestParams) response(method string) string {
	h := func(s string) []byte { s2 := md5.Sum([]byte(s)); return s2[:] }
	hexh := func(s string) string { return hex.EncodeToString(h(s)) }
	secret := h(p.enc(p.user) + ":" + p.enc(p.realm) + ":" + p.enc(p.password))
	a1 := string(secret) + ":" + p.nonce + ":" + p.cnonce
	a2 := method + ":" + p.uri
	return hexh(hexh(a1) + ":" + p.nonce + ":" + p.nc + ":" + p.cnonce + ":auth:" + hexh(a2))
}

// enc encodes a user name, realm or password for hashing: with charset
// utf-8, a string whose every character fits ISO 8859-1 is hashed in
// ISO 8859-1 (RFC 2831, 2.1.2.1), as Java's DigestMD5Client does.
func (p digestParams) enc(s string) string {
	if !p.utf8 {
		return s
	}
	b := make([]byte, 0, len(s))
	for _, r := range s {
		if r > 0xff || r == utf8.RuneError {
			return s
		}
		b = append(b, byte(r))
	}
	return string(b)
}

// hasToken reports whether the comma-separated list has tok.
func hasToken(list, tok string) bool {
	for _, t := range strings.Split(list, ",") {
		if strings.TrimSpace(t) == tok {
			return true
		}
	}
	return false
}

func quote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// parseDirectives reads RFC 2831's comma-separated name=value list, values
// plain or quoted (with backslash escapes, commas allowed inside). A
// realm given more than once is kept as one comma-separated value.
func parseDirectives(s string) (map[string]string, error) {
	out := map[string]string{}
	for {
		s = strings.TrimLeft(s, " \t\r\n,")
		if s == "" {
			return out, nil
		}
		eq := strings.IndexByte(s, '=')
		if eq <= 0 {
			return nil, fmt.Errorf("directive without a value near %q", clip(s))
		}
		name := strings.ToLower(strings.TrimSpace(s[:eq]))
		s = strings.TrimLeft(s[eq+1:], " \t")
		var val string
		if strings.HasPrefix(s, `"`) {
			v, rest, err := unquote(s)
			if err != nil {
				return nil, err
			}
			val, s = v, rest
		} else {
			end := strings.IndexByte(s, ',')
			if end < 0 {
				end = len(s)
			}
			val, s = strings.TrimSpace(s[:end]), s[end:]
		}
		if old, ok := out[name]; ok && name == "realm" {
			val = old + "," + val
		}
		out[name] = val
	}
}

func unquote(s string) (val, rest string, err error) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i])
			}
		case '"':
			return b.String(), s[i+1:], nil
		default:
			b.WriteByte(s[i])
		}
	}
	return "", "", fmt.Errorf("unterminated quoted value near %q", clip(s))
}

func clip(s string) string {
	if len(s) > 20 {
		return s[:20] + "..."
	}
	return s
}
