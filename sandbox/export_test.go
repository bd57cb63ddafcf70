package sandbox

// The package's own tests are an external package (sandbox_test) so that
// they can use sandboxtest; these are the internals they check.
var (
	MemberMode = memberMode
	FreePorts  = freePorts
)

// WithPickPorts sets the port picker of o, for tests of a port clash.
func WithPickPorts(o Options, pick func(n int) ([]int, error)) Options {
	o.pickPorts = pick
	return o
}
