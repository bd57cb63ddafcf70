package peers

// Drivers over TLS: Curator through ZooKeeper's client system properties
// (zookeeper.client.secure with the Netty client socket, PEM stores, as a
// Java service is configured), Kazoo through KazooClient's use_ssl, ca,
// certfile and keyfile (read by the driver from its environment).

import (
	"os"
	"path/filepath"
)

// TLS makes every client of a driver connect over TLS (Options.TLS); the
// servers are then the members' secure ports.
type TLS struct {
	// CA is a PEM bundle of the CAs that sign the servers' certificates.
	CA string
	// Cert and Key are a PEM client certificate and its unencrypted key.
	// Curator reads ZooKeeper's PEM key store, the key and the
	// certificate in one file: give that file as Key (sandbox's
	// TLSFiles.ClientPair; it does for Cert too).
	Cert, Key string
}

// curatorTLSOptions are the JVM options that make ZooKeeper's client,
// under Curator, speak TLS.
func curatorTLSOptions(t *TLS) []string {
	if t == nil {
		return nil
	}
	return []string{
		"-Dzookeeper.client.secure=true",
		// The NIO client socket speaks no TLS.
		"-Dzookeeper.clientCnxnSocket=org.apache.zookeeper.ClientCnxnSocketNetty",
		"-Dzookeeper.ssl.trustStore.location=" + t.CA,
		"-Dzookeeper.ssl.trustStore.type=PEM",
		// ZooKeeper's PEM key store is the key and the certificate in one
		// file; Curator's side reads it as such when both paths are equal.
		"-Dzookeeper.ssl.keyStore.location=" + t.Key,
		"-Dzookeeper.ssl.keyStore.type=PEM",
	}
}

// curatorTLSJars are the Netty jars ZooKeeper's Netty client needs that
// Debian's zookeeper.jar manifest leaves out (as for the server: see
// sandbox's tlsClassPath).
func curatorTLSJars(t *TLS) []string {
	if t == nil {
		return nil
	}
	var jars []string
	for _, j := range []string{"netty-codec.jar", "netty-resolver.jar", "netty-transport-native-unix-common.jar"} {
		if p := filepath.Join(debianJava, j); isFile(p) {
			jars = append(jars, p)
		}
	}
	return jars
}

// kazooTLSEnv is the environment that tells the Kazoo driver to use TLS
// (kazoo_peer.py, tls_options).
func kazooTLSEnv(t *TLS) []string {
	if t == nil {
		return nil
	}
	return append(os.Environ(),
		"ZKLOCK_PEER_TLS_CA="+t.CA,
		"ZKLOCK_PEER_TLS_CERT="+t.Cert,
		"ZKLOCK_PEER_TLS_KEY="+t.Key)
}
