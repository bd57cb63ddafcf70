package sasl

import (
	"errors"
	"testing"
)

func TestParseJAAS(t *testing.T) {
	tests := []struct {
		name, text string
		want       JAASClient
		err        error
	}{
		{"digest, ZooKeeper's documented form", `
Server {
  org.apache.zookeeper.server.auth.DigestLoginModule required
  user_alice="alice-secret";
};
Client {
  org.apache.zookeeper.server.auth.DigestLoginModule required
  username="alice"
  password="alice-secret";
};`, JAASClient{Mechanism: "DIGEST-MD5", User: "alice", Password: "alice-secret"}, nil},
		{"kerberos, Kafka's form with comments and odd spacing", `
// a comment
/* a block
   comment */
Client{com.sun.security.auth.module.Krb5LoginModule required
    useKeyTab=true keyTab="/etc/security/keytabs/zk.keytab"
    storeKey=true useTicketCache=false
    principal="kafka/broker1@EXAMPLE.COM";};`, JAASClient{Mechanism: "GSSAPI", Keytab: "/etc/security/keytabs/zk.keytab", Principal: "kafka/broker1@EXAMPLE.COM"}, nil},
		{"unquoted values, any case", `Client { org.apache.zookeeper.server.auth.DigestLoginModule required USERNAME=bob Password=p\w ; };`,
			JAASClient{Mechanism: "DIGEST-MD5", User: "bob", Password: `p\w`}, nil},
		{"quote escapes", `Client { x.DigestLoginModule required username="a" password="q\"x"; };`,
			JAASClient{Mechanism: "DIGEST-MD5", User: "a", Password: `q"x`}, nil},
		{"kerberos from a ticket cache", `Client { com.sun.security.auth.module.Krb5LoginModule required
    useTicketCache=true ticketCache="/tmp/krb5cc_kafka" principal="kafka@EXAMPLE.COM"; };`,
			JAASClient{Mechanism: "GSSAPI", Principal: "kafka@EXAMPLE.COM", TicketCache: "/tmp/krb5cc_kafka"}, nil},
		{"a ticketCache not in use", `Client { com.sun.security.auth.module.Krb5LoginModule required
    useTicketCache=false ticketCache="/tmp/krb5cc_kafka" useKeyTab=true keyTab="/k"; };`,
			JAASClient{Mechanism: "GSSAPI", Keytab: "/k"}, nil},
		{"no Client section", `Server { x.DigestLoginModule required user_a="b"; };`, JAASClient{}, ErrJAAS},
		{"unknown module", `Client { com.example.OtherModule required a="b"; };`, JAASClient{}, ErrJAAS},
		{"digest without username", `Client { x.DigestLoginModule required password="b"; };`, JAASClient{}, ErrJAAS},
		{"missing brace", `Client x.DigestLoginModule required;`, JAASClient{}, ErrJAAS},
		{"missing value", `Client { x.DigestLoginModule required username; };`, JAASClient{}, ErrJAAS},
		{"unterminated comment", `/* Client { };`, JAASClient{}, ErrJAAS},
		{"unterminated quote", `Client { x.DigestLoginModule required username="a; };`, JAASClient{}, ErrJAAS},
	}
	// Another section, as zookeeper.sasl.clientconfig (--jaas-section) picks.
	kafka := `Client { x.DigestLoginModule required username="c" password="p"; };
ZkForKafka { x.DigestLoginModule required username="k" password="q"; };`
	if got, err := ParseJAAS(kafka, "ZkForKafka"); err != nil || got.User != "k" || got.Password != "q" {
		t.Errorf("section ZkForKafka: %+v, %v", got, err)
	}
	if _, err := ParseJAAS(kafka, "Nope"); !errors.Is(err, ErrJAAS) {
		t.Errorf("a missing section: %v, want ErrJAAS", err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseJAAS(tt.text, "Client")
			if !errors.Is(err, tt.err) {
				t.Fatalf("err = %v, want %v", err, tt.err)
			}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}
