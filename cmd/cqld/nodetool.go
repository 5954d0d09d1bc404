package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/cqld/cqld/internal/admin"
	"github.com/spf13/cobra"
)

// newNodetoolCommand is `cqld nodetool [-h HOST] [-p ADMIN_PORT] COMMAND
// [ARGS]`: Cassandra's nodetool against a node's admin port. Arguments are
// parsed by internal/admin as nodetool parses them (options before the
// command, -h is the host), not by cobra.
func newNodetoolCommand() *cobra.Command {
	return &cobra.Command{
		Use:                "nodetool [-h HOST] [-p ADMIN_PORT] COMMAND [ARGS]",
		Short:              "Cassandra-compatible admin commands (status, info, flush, compact, tablestats, ...)",
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			ctx, cancel := context.WithTimeout(ctx, admin.Timeout)
			defer cancel()
			if code := admin.Nodetool(ctx, args, cmd.OutOrStdout(), cmd.ErrOrStderr()); code != 0 {
				stop()
				os.Exit(code)
			}
			return nil
		},
	}
}
