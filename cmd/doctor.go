package cmd

// zklock doctor: what each member of an ensemble offers this client, and
// what stands in the way, member by member.

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/zklock/zklock/config"
	"github.com/zklock/zklock/doctor"
)

func newDoctorCmd(g *config.Flags) *cobra.Command {
	var output *outputFlag
	cmd := &cobra.Command{
		Use:   "doctor [-o text|json] [CONTEXT]",
		Short: "Report what each member of the ensemble supports and what fails",
		Long: `doctor connects to every member of the ensemble (of CONTEXT, or as the
flags say) one by one and reports: the ZooKeeper version and mode (srvr),
which four-letter words the member allows (srvr, ruok, cons, wchc, mntr),
whether persistent recursive watches (addWatch, ZooKeeper 3.6+) work, the
TLS protocol, cipher and server certificate, the session timeout the
member grants, and, once for the ensemble, the offset of the clock that
stamps node times (the leader's) from this machine's, and whether the
context's credentials can read each lock root.

Measuring the clock creates and deletes one ephemeral node at the root
(under the chroot); a read-only context skips it (pass --write).
-o json (or --json) prints the same as one object (schema in docs/json.md).
doctor exits 1 when a member cannot be used or a root cannot be read.`,
		Example: `  zklock doctor prod
  zklock doctor --servers zk1:2281 --tls-ca ca.pem --json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			format, err := output.format()
			if err != nil {
				return err
			}
			if len(args) == 1 {
				if g.Context != "" && g.Context != args[0] {
					return fmt.Errorf("doctor: context %q and --context %q: give one", args[0], g.Context)
				}
				g.Context = args[0]
			}
			s, err := g.Resolve(cmd.Flags().Changed)
			if err != nil {
				return err
			}
			// Once for the ensemble: each member's session is made
			// without connect's own warning.
			warnInsecure(s)
			rep := doctor.Run(cmd.Context(), s)
			if format == "json" {
				if err := writeJSON(cmd.OutOrStdout(), rep); err != nil {
					return err
				}
			} else {
				rep.Write(cmd.OutOrStdout())
			}
			if n := len(rep.Problems); n > 0 {
				return exitCode(exitFailure, fmt.Errorf("doctor: %d problem(s): %s", n, strings.Join(rep.Problems, "; ")))
			}
			return nil
		},
	}
	output = addOutputFlag(cmd, "text or json (schema in docs/json.md)", "text", "json")
	return cmd
}
