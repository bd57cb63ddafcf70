package sasl

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jcmturner/gokrb5/v8/gssapi"
	"github.com/jcmturner/gokrb5/v8/iana/keyusage"
	"github.com/jcmturner/gokrb5/v8/types"
)

// aes256 is a fixed session key (etype 18) for the pure tests.
var aes256 = types.EncryptionKey{KeyType: 18, KeyValue: bytes.Repeat([]byte{7}, 32)}

// offer is the server's wrapped security-layer offer, as the acceptor
// (ZooKeeper's GssKrb5Server) sends it.
func offer(t *testing.T, key types.EncryptionKey, payload []byte) []byte {
	t.Helper()
	wt := gssapi.WrapToken{Flags: 0x01, EC: 12, Payload: payload}
	if err := wt.SetCheckSum(key, keyusage.GSSAPI_ACCEPTOR_SEAL); err != nil {
		t.Fatal(err)
	}
	b, err := wt.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestSecurityLayerReply(t *testing.T) {
	other := types.EncryptionKey{KeyType: 18, KeyValue: bytes.Repeat([]byte{8}, 32)}
	tests := []struct {
		name    string
		token   []byte
		wantErr string
	}{
		{"auth offered", offer(t, aes256, []byte{layerNone | layerIntegrity | layerPrivacy, 0, 0x10, 0}), ""},
		{"only auth", offer(t, aes256, []byte{layerNone, 0, 0, 0}), ""},
		{"no layer none", offer(t, aes256, []byte{layerIntegrity | layerPrivacy, 0, 0x10, 0}), "not \"none\""},
		{"another key", offer(t, other, []byte{layerNone, 0, 0, 0}), "checksum mismatch"},
		{"wrong length", offer(t, aes256, []byte{layerNone, 0, 0}), "3 bytes"},
		{"not a wrap token", []byte("garbage that is long enough"), "Token ID"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reply, err := securityLayerReply(tt.token, aes256, "alice@R")
			if tt.wantErr != "" {
				if !errors.Is(err, ErrSecurityLayer) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want ErrSecurityLayer naming %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got gssapi.WrapToken
			if err := got.Unmarshal(reply, false); err != nil {
				t.Fatal(err)
			}
			if ok, err := got.Verify(aes256, keyusage.GSSAPI_INITIATOR_SEAL); !ok {
				t.Fatalf("the reply does not verify as the initiator's: %v", err)
			}
			if want := append([]byte{layerNone, 0, 0, 0}, "alice@R"...); !bytes.Equal(got.Payload, want) {
				t.Fatalf("payload %x, want %x", got.Payload, want)
			}
		})
	}
}

func TestClassifyKerberos(t *testing.T) {
	tests := []struct {
		text string
		want error
		show string
	}{
		{"[Root cause: KDC_Error] KDC_Error: TGS Exchange Error: KRB Error: (7) KDC_ERR_S_PRINCIPAL_UNKNOWN Server not found in Kerberos database - LOOKING_UP_SERVER",
			ErrServicePrincipal, "op: (7) KDC_ERR_S_PRINCIPAL_UNKNOWN Server not found in Kerberos database"},
		{"AS Exchange Error: KRB Error: (6) KDC_ERR_C_PRINCIPAL_UNKNOWN Client not found in Kerberos database", ErrClientPrincipal, "(6)"},
		{"AS Exchange Error: KRB Error: (24) KDC_ERR_PREAUTH_FAILED Pre-authentication information was invalid", ErrClientPrincipal, "(24)"},
		{"KRB Error: (37) KRB_AP_ERR_SKEW Clock skew too great", ErrClockSkew, "(37)"},
		{"failed to communicate with KDC. Attempts made with UDP (x) and then TCP (dial tcp 127.0.0.1:9: connect: connection refused)",
			ErrKDCUnreachable, "op: dial tcp 127.0.0.1:9: connect: connection refused"},
		{"cannot login, no user credentials available and no valid existing session", ErrNoTicket, "no user credentials"},
		{"TGS Exchange Error: KRB Error: (33) KRB_AP_ERR_TKT_NYV Ticket not yet valid - PROCESS_TGS", ErrClockSkew, "op: (33) KRB_AP_ERR_TKT_NYV Ticket not yet valid"},
		{"TGS Exchange Error: KRB Error: (32) KRB_AP_ERR_TKT_EXPIRED Ticket expired", ErrNoTicket, "(32)"},
	}
	for _, tt := range tests {
		err := classifyKerberos(errors.New(tt.text), "op")
		if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.show) {
			t.Errorf("classifyKerberos(%q) = %v, want %v showing %q", tt.text, err, tt.want, tt.show)
		}
	}
	if err := classifyKerberos(fmt.Errorf("something else"), "op"); err.Error() != "op: something else" {
		t.Errorf("unknown failure: %v", err)
	}
}

// TestGSSAPIExpired: a client from a credential cache says its TGT
// expired (and when) from the moment it did, naming kinit's cache; a
// keytab client, which logs in again by itself, never does.
func TestGSSAPIExpired(t *testing.T) {
	end := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	g := &GSSAPI{principal: "alice@R", ccache: "/tmp/cc", tgtEnd: end}
	if err := g.expired(end.Add(-time.Second)); err != nil {
		t.Fatalf("a second before the end: %v", err)
	}
	err := g.expired(end)
	if !errors.Is(err, ErrNoTicket) || !strings.Contains(err.Error(), "alice@R in credential cache /tmp/cc expired at "+end.Local().Format(time.DateTime)) {
		t.Fatalf("at the end: %v", err)
	}
	if err := (&GSSAPI{principal: "alice@R"}).expired(end.Add(time.Hour)); err != nil {
		t.Fatalf("a keytab client: %v", err)
	}
}
