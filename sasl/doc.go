// Package sasl holds the client side of the SASL mechanisms zklock speaks to
// ZooKeeper (zk.SASLMechanism: the patched go-zookeeper runs the exchange,
// PATCHES.md patch 4), and the reading of a JAAS file's Client section.
//
//   - digest.go: DIGEST-MD5 (RFC 2831), qop "auth", against ZooKeeper's
//     fixed realm and digest-uri.
//   - gssapi.go: GSSAPI (RFC 4752) on gokrb5: keytab or credential cache,
//     an AP-REQ for the servers' principal, the AP-REP checked, layer
//     "none" (qop auth); Kerberos failures carry sentinels (ErrKDCUnreachable...).
//   - principal.go: the servers' principal as the Java client 3.8 names
//     it: given outright (zookeeper.server.principal), else
//     <service>/<host>, the host canonicalized from the address reached
//     (zookeeper.sasl.client.canonicalize.hostname) unless turned off.
//   - ccache.go: which credential cache is read (KRB5CCNAME, krb5.conf's
//     default_ccache_name, /tmp/krb5cc_<uid>), and the one line for a
//     cache that is not a file (KCM:, KEYRING:...).
//   - jaas.go: ReadJAAS, a tolerant reader of a section (Client by default)
//     (DigestLoginModule username/password, Krb5LoginModule keyTab/principal).
//
// Tests of the mechanisms against a real SASL ZooKeeper (sandbox.SASL, and
// sandbox.KDC's realm for GSSAPI) are here too. sasl imports the zk client only; lockops and cmd build on it.
package sasl
