package cmd

// `zklock release --force` and `zklock revoke`: the console's f and R keys
// for scripts and terminals without the console, through the same lockops
// calls, with the same facts shown before asking.

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/zklock/zklock/audit"
	"github.com/zklock/zklock/config"
	"github.com/zklock/zklock/ensemble"
	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/zkview"
)

// opTimeout bounds reading a node and acting on it once connected (the
// operator's typing is not counted).
const opTimeout = 30 * time.Second

var (
	errNotConfirmed = errors.New("not confirmed; nothing changed")
	errNoTTY        = errors.New("stdin is not a terminal; pass --yes to confirm")
)

func newReleaseCmd(g *config.Flags) *cobra.Command {
	var force, yes bool
	cmd := &cobra.Command{
		Use:   "release --force [--yes] NODEPATH|-",
		Short: "Delete another client's lock node (force-release)",
		Long: `release --force deletes the lock node NODEPATH (a child of a lock parent,
as zklock ls shows it) if its owner session is still the one shown. The
next waiter then takes the lock. The holder is NOT told and may still act
as if it held the lock: two clients in the critical section. Prefer
zklock revoke for holders that honour Curator's revocation protocol.

On a terminal zklock shows the node's owner, client and data and asks
for its sequence number; --yes skips the question (scripts).

With - instead of NODEPATH, the node paths are read from stdin, one a
line (what zklock ls -o name prints), and each is released in turn with
the same owner check and audit entry; this needs --yes.`,
		Example: `  zklock release --force /locks/billing/_c_0f6e4c9a-1d2b-4c3d-8e9f-0a1b2c3d4e5f-lock-0000000042
  zklock ls -o name /locks/stuck | zklock release --force --yes -`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if !force {
				return errors.New("release: deleting someone else's lock node needs --force (zklock releases its own locks itself)")
			}
			if len(args) == 1 && args[0] == "-" {
				return releaseFromStdin(cmd, g, yes)
			}
			np, err := oneNodeArg("release", args)
			if err != nil {
				return err
			}
			return runForceRelease(cmd, g, np, yes)
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "required: this deletes another client's lock node")
	cmd.Flags().BoolVar(&yes, "yes", false, "do not ask for the sequence number")
	return cmd
}

func newRevokeCmd(g *config.Flags) *cobra.Command {
	var yes bool
	cmd := &cobra.Command{
		Use:   "revoke [--yes] NODEPATH",
		Short: "Ask a lock holder to let go (Curator's revocation protocol)",
		Long: `revoke writes __REVOKE__ into the lock node NODEPATH, Curator's revocation
protocol. Holders that honour it (Curator's revocable InterProcessMutex, a
zklock lock) delete their node; others ignore it and keep the lock.`,
		Example: `  zklock revoke /locks/billing/_c_0f6e4c9a-1d2b-4c3d-8e9f-0a1b2c3d4e5f-lock-0000000042`,
		Args:    cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			np, err := oneNodeArg("revoke", args)
			if err != nil {
				return err
			}
			return runRevoke(cmd, g, np, yes)
		},
	}
	cmd.Flags().BoolVar(&yes, "yes", false, "do not ask")
	return cmd
}

func oneNodeArg(verb string, args []string) (string, error) {
	if len(args) != 1 {
		return "", fmt.Errorf("%s: want one NODEPATH, got %d", verb, len(args))
	}
	np := args[0]
	if err := lockops.ValidPath(np); err != nil {
		return "", err
	}
	if np == "/" {
		return "", fmt.Errorf("%s: / is not a lock node", verb)
	}
	return np, nil
}

// nodeFacts is what the operator is shown before acting on a node: what
// the console's dialog shows.
type nodeFacts struct {
	parent string
	node   model.Node
}

// inspectNode reads nodePath's lock parent once (with the servers' view
// of clients when they allow it) and returns the node, or a clear refusal:
// a parent or persistent node, a vanished node, NoAuth.
func inspectNode(ctx context.Context, sess *lockops.Session, nodePath string) (*nodeFacts, error) {
	parent, name := nodeParent(nodePath)
	snap, err := zkview.Load(ctx, sess, zkview.Options{Paths: []string{parent}, ServerView: true})
	if err != nil {
		return nil, err
	}
	if snap.Queues.Len() != 1 {
		return nil, fmt.Errorf("%s: could not read its lock parent", nodePath)
	}
	q := snap.Queues.At(0)
	switch q.State {
	case model.PathAbsent:
		return nil, fmt.Errorf("%w: %s (its parent %s does not exist)", lockops.ErrNoNode, nodePath, parent)
	case model.PathNoAuth:
		return nil, fmt.Errorf("%s: not readable with these credentials (NoAuth; %s)", parent, ensemble.NoAuthFix)
	case model.PathError:
		return nil, fmt.Errorf("%s: %s", parent, model.SanitizeString(q.Err(), 0))
	}
	for _, n := range q.Nodes.All() {
		if n.Name != name {
			continue
		}
		if n.Session == 0 {
			return nil, fmt.Errorf("%w: %s is persistent (lock nodes are ephemeral)", lockops.ErrNotLockNode, nodePath)
		}
		return &nodeFacts{parent: parent, node: *n}, nil
	}
	for _, o := range q.Other() {
		if o == name {
			return nil, fmt.Errorf("%w: %s is not named like a lock node (a lock parent? give one of its children, as zklock ls shows them)", lockops.ErrNotLockNode, nodePath)
		}
	}
	return nil, fmt.Errorf("%w: %s (released already?)", lockops.ErrNoNode, nodePath)
}

// write prints the facts as the console's force dialog does; every text
// from ZooKeeper sanitized.
func (f *nodeFacts) write(w io.Writer, title string) {
	n := f.node
	client := model.SanitizeString(n.Client(), 0)
	if client == "" {
		client = "unknown (the servers do not tell)"
	}
	data := model.Sanitize(n.Data(), 0)
	if int(n.DataLen) > len(n.Data()) {
		data += "…"
	}
	if data == "" {
		data = "-"
	}
	role := "waiting in line"
	if n.Believes == ordering.RoleHolder || n.Role == ordering.RoleHolder {
		role = "HOLDER"
		if !n.Since().IsZero() {
			role += " for at least " + time.Since(n.Since()).Round(time.Second).String()
		}
	}
	fmt.Fprintf(w, "%s\n", title)
	fmt.Fprintf(w, "  Lock      %s\n", model.SanitizeString(f.parent, 0))
	fmt.Fprintf(w, "  Node      %s\n", model.SanitizeString(n.Name, 0))
	fmt.Fprintf(w, "  Owner     session 0x%x\n", n.Session)
	fmt.Fprintf(w, "  Client    %s\n", client)
	fmt.Fprintf(w, "  Data      %s\n", data)
	fmt.Fprintf(w, "  Role      %s\n", role)
}

// nodeAction is one of the commands that act on someone else's lock node
// (release --force, revoke): they share every step but the words, the
// confirmation and the call.
type nodeAction struct {
	verb    string // audit action and error prefix: force-release | revoke
	purpose string // for a read-only refusal: "... forbids <purpose>"
	title   string // heading of the node's facts
	// explain says what the action does and risks, after the facts.
	explain func(out io.Writer, n model.Node)
	// confirm asks on the terminal; nil error means go on.
	confirm func(cmd *cobra.Command, n model.Node) error
	act     func(ctx context.Context, sess *lockops.Session, nodePath string, n model.Node) error
	// done is the line printed after success.
	done func(out io.Writer, nodePath string, f *nodeFacts)
}

// runNodeAction resolves the settings, refuses a read-only context, opens
// the audit log, connects, shows the node, asks (unless --yes), and acts
// between an audit line before and one after.
func runNodeAction(cmd *cobra.Command, g *config.Flags, a nodeAction, nodePath string, yes bool) error {
	s, err := g.Resolve(cmd.Flags().Changed)
	if err != nil {
		return err
	}
	if err := s.RequireWrite(a.purpose); err != nil {
		return err
	}
	auditLog, err := audit.Open(s)
	if err != nil {
		return err
	}
	defer auditLog.Close()
	sess, err := connect(cmd.Context(), s)
	if err != nil {
		return err
	}
	defer sess.Close()

	ictx, cancel := context.WithTimeout(cmd.Context(), opTimeout)
	facts, err := inspectNode(ictx, sess, nodePath)
	cancel()
	if err != nil {
		return fmt.Errorf("%s: %w", a.verb, err)
	}
	out := cmd.OutOrStdout()
	n := facts.node
	facts.write(out, a.title+" "+model.SanitizeString(nodePath, 0))
	a.explain(out, n)
	if !yes {
		if err := a.confirm(cmd, n); err != nil {
			return fmt.Errorf("%s: %w", a.verb, err)
		}
	}

	rec := audit.Record{Action: a.verb, Path: facts.parent, Node: n.Name, Owner: model.SessionHex(n.Session),
		Client: n.Client(), Session: model.SessionHex(sess.ID())}
	err = auditLog.Do(rec, func(*audit.Record) error {
		actx, cancel := context.WithTimeout(cmd.Context(), opTimeout)
		defer cancel()
		return a.act(actx, sess, nodePath, n)
	})
	if err != nil {
		return err
	}
	a.done(out, nodePath, facts)
	return nil
}

func runForceRelease(cmd *cobra.Command, g *config.Flags, nodePath string, yes bool) error {
	return runNodeAction(cmd, g, nodeAction{
		verb:    "force-release",
		purpose: "force-release a lock node",
		title:   "FORCE-RELEASE",
		explain: func(out io.Writer, n model.Node) {
			fmt.Fprintf(out, "\nRISK: the holder is not told and may still act. It goes on as if it held the lock while the next waiter takes it: two clients in the critical section.\n")
			fmt.Fprintf(out, "The node is deleted only if its owner is still session 0x%x.\n", n.Session)
		},
		confirm: func(cmd *cobra.Command, n model.Node) error {
			what, token := model.ConfirmToken(n.Name)
			token = model.SanitizeString(token, 0)
			typed, err := ask(cmd, fmt.Sprintf("\nType the %s %s to confirm: ", what, token))
			if err != nil {
				return err
			}
			if !model.Confirms(n.Name, typed) {
				return fmt.Errorf("%w (typed %q, the %s is %s)", errNotConfirmed, model.SanitizeString(strings.TrimSpace(typed), 16), what, token)
			}
			return nil
		},
		act: func(ctx context.Context, sess *lockops.Session, nodePath string, n model.Node) error {
			err := lockops.ForceRelease(ctx, sess, nodePath, n.Session)
			if errors.Is(err, lockops.ErrOwnerChanged) {
				return fmt.Errorf("not deleted: %w", err)
			}
			return err
		},
		done: func(out io.Writer, nodePath string, f *nodeFacts) {
			fmt.Fprintf(out, "deleted %s (owner session 0x%x)\n", model.SanitizeString(nodePath, 0), f.node.Session)
		},
	}, nodePath, yes)
}

func runRevoke(cmd *cobra.Command, g *config.Flags, nodePath string, yes bool) error {
	return runNodeAction(cmd, g, nodeAction{
		verb:    "revoke",
		purpose: "revoke a lock",
		title:   "REVOKE",
		explain: func(out io.Writer, _ model.Node) {
			fmt.Fprintf(out, "\nThis writes __REVOKE__ into its node (Curator's revocation protocol). Only a holder that listens for revocation lets go; others ignore it and keep the lock.\n")
		},
		confirm: func(cmd *cobra.Command, _ model.Node) error {
			typed, err := ask(cmd, "\nRevoke? [y/N] ")
			if err != nil {
				return err
			}
			if a := strings.ToLower(strings.TrimSpace(typed)); a != "y" && a != "yes" {
				return errNotConfirmed
			}
			return nil
		},
		act: func(ctx context.Context, sess *lockops.Session, nodePath string, _ model.Node) error {
			return lockops.Revoke(ctx, sess, nodePath)
		},
		done: func(out io.Writer, _ string, f *nodeFacts) {
			fmt.Fprintf(out, "asked %s to let go (check with: zklock ls %s)\n", model.SanitizeString(f.node.Name, 0), model.SanitizeString(f.parent, 0))
		},
	}, nodePath, yes)
}

// ask prints prompt and reads one line from stdin, which must be a
// terminal: a script confirms with --yes, never by piping "y".
func ask(cmd *cobra.Command, prompt string) (string, error) {
	in := cmd.InOrStdin()
	if f, ok := in.(*os.File); !ok || !isTerminal(f) {
		return "", errNoTTY
	}
	fmt.Fprint(cmd.OutOrStdout(), prompt)
	line, err := bufio.NewReader(in).ReadString('\n')
	if err != nil && line == "" {
		return "", fmt.Errorf("%w: %w", errNotConfirmed, err)
	}
	return line, nil
}

// releaseFromStdin force-releases every node path read from stdin, one a
// line, each through the one-node pipeline (owner check, audit). It goes
// on past a node it cannot release and fails at the end, naming them.
func releaseFromStdin(cmd *cobra.Command, g *config.Flags, yes bool) error {
	if !yes {
		return errors.New("release: node paths read from stdin need --yes (the questions would read stdin too)")
	}
	var nodes []string
	sc := bufio.NewScanner(cmd.InOrStdin())
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		if err := lockops.ValidPath(line); err != nil || line == "/" {
			return fmt.Errorf("release: stdin line %d: not a node path: %q", len(nodes)+1, model.SanitizeString(line, 80))
		}
		nodes = append(nodes, line)
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("release: reading stdin: %w", err)
	}
	if len(nodes) == 0 {
		return errors.New("release: no node paths on stdin")
	}
	var failed []string
	for _, np := range nodes {
		if err := runForceRelease(cmd, g, np, true); err != nil {
			warn(err)
			failed = append(failed, path.Base(np))
		}
	}
	if failed != nil {
		return fmt.Errorf("release: %d of %d nodes not released: %s", len(failed), len(nodes), model.SanitizeString(strings.Join(failed, ", "), 200))
	}
	return nil
}
