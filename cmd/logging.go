package cmd

// The debug log: --log-file FILE (every command) and --verbose (the
// commands that do not draw the console), through log/slog. Everything
// that logs (our debug lines, go-zookeeper's client, the standard logger
// Bubble Tea writes to) goes to slog's default logger, which is the
// file, stderr for --verbose, both, or nothing; never the terminal the
// console draws on (the console's commands have no --verbose).

import (
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/zklock/zklock/config"
)

// closeLog closes the log file opened by startLogging; execute calls it
// once the command is done.
var closeLog = func() {}

// startLogging points slog's default logger (and through it the standard
// logger) at --log-file, at stderr for --verbose, or at nothing, and logs
// the command starting. A log file that cannot be opened is an error
// before anything else is done.
func startLogging(cmd *cobra.Command, g *config.Flags) error {
	var writers []io.Writer
	if g.LogFile != "" {
		f, err := os.OpenFile(config.ExpandHome(g.LogFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return fmt.Errorf("log file: %w", err)
		}
		writers = append(writers, f)
		closeLog = func() { _ = f.Close() }
	}
	if g.Verbose {
		writers = append(writers, os.Stderr)
	}
	h := slog.DiscardHandler
	if len(writers) > 0 {
		h = slog.NewTextHandler(io.MultiWriter(writers...), &slog.HandlerOptions{Level: slog.LevelDebug})
	}
	slog.SetDefault(slog.New(h))
	var set []string
	cmd.Flags().Visit(func(f *pflag.Flag) { set = append(set, f.Name) })
	// The names of the flags given, not their values: a value may be a
	// note or a path an operator would rather not see in a shared log.
	slog.Debug("start", "command", cmd.CommandPath(), "version", version, "flags", set, "args", len(cmd.Flags().Args()))
	return nil
}
