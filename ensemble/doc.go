// Package ensemble is how a command reaches the ensemble its settings name,
// and what it says when it cannot: the session options the settings make
// (TLS, digest, SASL, the session timeout, go-zookeeper's log as debug
// records), a connect bounded by the connect timeout, and each way a link
// or an authentication fails told in one line with its fix.
//
// Files:
//
//   - connect.go: SessionOptions, ConnectBounded, PathErr (a request's
//     error named with its path), ContextHint, InsecureWarning, ZKLogger.
//   - links.go: LinkFailure and LinkHints: why every server's link failed
//     (a certificate expired, from an unknown CA or for another name, a
//     refused client certificate, the other protocol on the port), from
//     lockops' LinkErrors; ServerCert, CertNames, ErrText.
//   - sasl.go: SASLHint, a refused SASL exchange named with its mechanism,
//     server and fix; SASLLog; NoAuthFix.
//
// It imports config and lockops; cmd and doctor import it. It prints
// nothing itself: the commands say what it returns.
package ensemble
