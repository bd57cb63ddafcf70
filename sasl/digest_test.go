package sasl

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestDigestRFC2831Vectors checks response-value and rspauth against the two
// examples of RFC 2831 section 4 (IMAP and ACAP).
func TestDigestRFC2831Vectors(t *testing.T) {
	tests := []struct {
		name, nonce, cnonce, uri, response, rspauth string
	}{
		{"imap", "OA6MG9tEQGm2hh", "OA6MHXh6VqTrRk", "imap/elwood.innosoft.com",
			"d388dad90d4bbd760a152321f2143af7", "ea40f60335c427b5527b84dbabcdfffd"},
		{"acap", "OA9BSXrbuRhWay", "OA9BSuZWMSpW8m", "acap/elwood.innosoft.com",
			"6084c6db3fede7352c551284490fd0fc", "2f0b3d7c3c2e486600ef710726aa2eae"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := digestParams{user: "chris", realm: "elwood.innosoft.com", password: "secret",
				nonce: tt.nonce, cnonce: tt.cnonce, nc: "00000001", uri: tt.uri}
			if got := p.response("AUTHENTICATE"); got != tt.response {
				t.Errorf("response = %s, want %s", got, tt.response)
			}
			if got := p.response(""); got != tt.rspauth {
				t.Errorf("rspauth = %s, want %s", got, tt.rspauth)
			}
		})
	}
}

// TestDigestLatin1 checks that with charset=utf-8 a name that fits ISO
// 8859-1 is hashed in ISO 8859-1 and one that does not in UTF-8.
func TestDigestLatin1(t *testing.T) {
	latin := digestParams{utf8: true}
	if got := latin.enc("zoë"); got != "zo\xeb" {
		t.Errorf("enc(zoë) = %q, want ISO 8859-1", got)
	}
	if got := latin.enc("日本"); got != "日本" {
		t.Errorf("enc(日本) = %q, want UTF-8 unchanged", got)
	}
	if got := (digestParams{}).enc("zoë"); got != "zoë" {
		t.Errorf("without charset enc = %q, want unchanged", got)
	}
}

// TestDigestExchange runs the three steps against a challenge in the form
// ZooKeeper's server sends, with a fixed client nonce.
func TestDigestExchange(t *testing.T) {
	d := &Digest{User: "chris", Password: "secret", rand: strings.NewReader(strings.Repeat("x", 16))}
	ex, _ := d.Start(context.Background(), "127.0.0.1:2181", nil)
	first, err := ex.Step(nil)
	if err != nil || len(first) != 0 || ex.Complete() {
		t.Fatalf("first step = %q, %v, complete %v; want empty, nil, false", first, err, ex.Complete())
	}
	chal := `realm="zk-sasl-md5",nonce="OA6MG9tEQGm2hh",qop="auth",charset=utf-8,algorithm=md5-sess`
	resp, err := ex.Step([]byte(chal))
	if err != nil {
		t.Fatal(err)
	}
	got, err := parseDirectives(string(resp))
	if err != nil {
		t.Fatalf("own response unreadable: %v", err)
	}
	cnonce := "eHh4eHh4eHh4eHh4eHh4eA" // base64 of 16 "x"
	want := map[string]string{"charset": "utf-8", "username": "chris", "realm": "zk-sasl-md5",
		"nonce": "OA6MG9tEQGm2hh", "nc": "00000001", "cnonce": cnonce, "digest-uri": "zookeeper/zk-sasl-md5", "qop": "auth"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	p := digestParams{user: "chris", realm: "zk-sasl-md5", password: "secret", nonce: "OA6MG9tEQGm2hh",
		cnonce: cnonce, nc: "00000001", uri: "zookeeper/zk-sasl-md5", utf8: true}
	if got["response"] != p.response("AUTHENTICATE") {
		t.Errorf("response = %s, want %s", got["response"], p.response("AUTHENTICATE"))
	}
	if _, err := ex.Step([]byte("rspauth=00000000000000000000000000000000")); !errors.Is(err, ErrServerProof) {
		t.Errorf("wrong rspauth: err = %v, want ErrServerProof", err)
	}
	ex.(*digestExchange).step = 2
	if tok, err := ex.Step([]byte("rspauth=" + p.response(""))); err != nil || tok != nil || !ex.Complete() {
		t.Errorf("right rspauth: %q, %v, complete %v; want nil, nil, true", tok, err, ex.Complete())
	}
}

// TestDigestBadChallenges checks the refusals of step 2.
func TestDigestBadChallenges(t *testing.T) {
	tests := []struct {
		name, chal string
		want       error
	}{
		{"empty: no SASL on the server", "", ErrNoChallenge},
		{"no nonce", `realm="r",qop="auth",algorithm=md5-sess`, ErrChallenge},
		{"no auth qop", `nonce="n",qop="auth-conf",algorithm=md5-sess`, ErrChallenge},
		{"other algorithm", `nonce="n",qop="auth",algorithm=md5`, ErrChallenge},
		{"unterminated", `nonce="n`, ErrChallenge},
		{"no value", `nonce`, ErrChallenge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ex, _ := (&Digest{User: "u", Password: "p"}).Start(context.Background(), "", nil)
			_, _ = ex.Step(nil)
			if _, err := ex.Step([]byte(tt.chal)); !errors.Is(err, tt.want) {
				t.Errorf("err = %v, want %v", err, tt.want)
			}
		})
	}
}

// TestParseDirectives covers quoting, escapes, commas in quotes and
// repeated realms.
func TestParseDirectives(t *testing.T) {
	got, err := parseDirectives(` realm="a",realm="b", nonce="x\"y,z",qop=auth , Algorithm=md5-sess`)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"realm": "a,b", "nonce": `x"y,z`, "qop": "auth", "algorithm": "md5-sess"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	if q := quote(`a"b\c`); q != `"a\"b\\c"` {
		t.Errorf("quote = %s", q)
	}
}
