// Package release holds no code, only the tests that prove zklock reaches
// its users the two ways it is published:
//
//   - install_test.go: `go install github.com/zklock/zklock@VERSION` from a
//     module proxy works (no replace directive, a real module path), proven
//     against a file:// proxy built from this checkout, with the real proxy
//     behind it for the dependencies; the installed binary's `version`
//     prints the module version.
//   - goreleaser_test.go: the release build (.goreleaser.yaml) for
//     linux/amd64 stamps version and commit into the binary, and its .deb
//     holds the binary, the licences, the man pages and the completions.
//
// Both run the go command and goreleaser as a user would, in temporary
// directories; neither touches the user's module cache or GOBIN.
package release
