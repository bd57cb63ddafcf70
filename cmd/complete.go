package cmd

// Shell completion that knows ZooKeeper: flag values (contexts from the
// config file, themes, styles, kinds, output formats) and lock paths and
// node paths read from the ensemble the command line names, with a quick,
// bounded, read-only listing. cobra's `completion` command writes the
// shell scripts (README: Shell completion); `gen-man` writes man pages.

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
	"github.com/zklock/zklock/config"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/themes"
)

// completeTimeout bounds connecting and listing for one completion: a
// shell waiting longer than this is worse than no answer.
const completeTimeout = 2 * time.Second

// completeMax bounds the names offered from one listing.
const completeMax = 500

// completeValues offers vals, and no file names.
func completeValues(vals ...string) cobra.CompletionFunc {
	return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return vals, cobra.ShellCompDirectiveNoFileComp
	}
}

// registerCompletion wires value completion into every command of root.
// Each flag is completed on the commands that have it: --theme, for one,
// is a flag of the console's commands only (registerFlags). -o values
// are registered with the flag (addOutputFlag), each command its own.
func registerCompletion(root *cobra.Command, g *config.Flags) {
	_ = root.RegisterFlagCompletionFunc("context", completeContexts(g))
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if f := c.Flags().Lookup("theme"); f != nil {
			_ = c.RegisterFlagCompletionFunc("theme", completeValues(themes.Names()...))
		}
		if f := c.Flags().Lookup("style"); f != nil {
			_ = c.RegisterFlagCompletionFunc("style", completeValues("curator", "kazoo"))
		}
		if f := c.Flags().Lookup("kind"); f != nil {
			_ = c.RegisterFlagCompletionFunc("kind", completeValues("mutex", "read", "write", "lease", "election"))
		}
		if c.Name() == "record" {
			// record's -f (and its deprecated -o) is the file it
			// writes: the shell's own file names.
			for _, name := range []string{"file", "output"} {
				_ = c.RegisterFlagCompletionFunc(name, func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
					return nil, cobra.ShellCompDirectiveDefault
				})
			}
		}
		if f := c.Flags().Lookup("root"); f != nil {
			_ = c.RegisterFlagCompletionFunc("root", completeZKPaths(g, false))
		}
		switch c.Name() {
		case "release", "revoke":
			c.ValidArgsFunction = completeZKPaths(g, true)
		case "run":
			c.ValidArgsFunction = func(cmd *cobra.Command, args []string, typed string) ([]string, cobra.ShellCompDirective) {
				if cmd.ArgsLenAtDash() >= 0 || len(args) > 0 {
					return nil, cobra.ShellCompDirectiveDefault // CMD: files and commands
				}
				return completeZKPaths(g, false)(cmd, args, typed)
			}
		case "zklock", "ls", "sessions", "watch", "record", "export":
			c.ValidArgsFunction = completeZKPaths(g, false)
		case "why":
			c.ValidArgsFunction = func(cmd *cobra.Command, args []string, typed string) ([]string, cobra.ShellCompDirective) {
				if len(args) > 0 {
					return nil, cobra.ShellCompDirectiveNoFileComp // one PATH
				}
				return completeZKPaths(g, false)(cmd, args, typed)
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// completeContexts offers the contexts of the config file (--config's,
// when given before the word completed).
func completeContexts(g *config.Flags) cobra.CompletionFunc {
	return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		f, _, err := g.Load()
		if err != nil || f == nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return f.Names(), cobra.ShellCompDirectiveNoFileComp
	}
}

// completeZKPaths offers the children of the path being typed, read from
// the ensemble the command line names (its --servers, --context...).
// nodes: the path is a lock node (release, revoke), so lock nodes are
// offered too; otherwise only what may be a lock parent.
func completeZKPaths(g *config.Flags, nodes bool) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(cmd *cobra.Command, _ []string, typed string) ([]string, cobra.ShellCompDirective) {
		none := cobra.ShellCompDirectiveNoFileComp
		if typed == "" {
			return []string{"/"}, none | cobra.ShellCompDirectiveNoSpace
		}
		if !strings.HasPrefix(typed, "/") {
			return nil, none
		}
		dir, prefix := path.Split(typed)
		if dir != "/" {
			dir = strings.TrimSuffix(dir, "/")
		}
		s, err := g.Resolve(cmd.Flags().Changed)
		if err != nil {
			return nil, none
		}
		ctx, cancel := context.WithTimeout(cmd.Context(), completeTimeout)
		defer cancel()
		s.ConnectTimeout = min(s.ConnectTimeout, completeTimeout)
		sess, err := connect(ctx, s)
		if err != nil {
			return nil, none
		}
		defer sess.Close()
		kids, _, err := sess.ChildrenStat(ctx, dir)
		if err != nil {
			return nil, none
		}
		slices.Sort(kids)
		var out []string
		for _, k := range kids {
			if !strings.HasPrefix(k, prefix) || len(out) >= completeMax {
				continue
			}
			full := path.Join(dir, k)
			if model.SanitizeString(full, 0) != full {
				continue // a name a shell must not be handed raw
			}
			isNode := model.NodeRef(k, 0) != k
			switch {
			case isNode && nodes:
				out = append(out, full)
			case !isNode:
				// Without a trailing slash (a lock parent's path has none):
				// typing "/" goes on below it.
				out = append(out, full)
			}
		}
		return out, none | cobra.ShellCompDirectiveNoSpace
	}
}

// newGenManCmd writes a man page per command (hidden: for packagers).
func newGenManCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "gen-man DIR",
		Short:  "Write zklock's man pages (one per command) into DIR",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			h := &doc.GenManHeader{Title: "ZKLOCK", Section: "1", Source: "zklock " + version, Manual: "zklock manual"}
			if err := doc.GenManTree(cmd.Root(), h, args[0]); err != nil {
				return fmt.Errorf("gen-man: %w", err)
			}
			return nil
		},
	}
}
