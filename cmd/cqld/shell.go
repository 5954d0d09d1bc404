package main

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/cqld/cqld/internal/shell"
	"github.com/spf13/cobra"
)

// shellFlags is the flag table of `cqld shell` (cqlsh's options).
var shellFlags = struct {
	username, password, keyspace, execute, file string
	protocolVersion                             int
	connectTimeout, requestTimeout              int
	color, noColor, debug, tty, version         bool
	cqlVersion, encoding                        string
}{}

// errExit makes the command exit with a given status without printing.
type errExit struct{ code int }

func (e errExit) Error() string { return "exit status " + strconv.Itoa(e.code) }

func newShellCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "shell [options] [HOST [PORT]]",
		Short: "cqlsh-compatible CQL shell",
		Long: `shell is a CQL shell that behaves like Cassandra 5.0's cqlsh: the same
prompts, output layout, shell commands (USE, DESCRIBE, CONSISTENCY, PAGING,
EXPAND, SOURCE, CAPTURE, SHOW, COPY TO/FROM, HELP, EXIT) and exit statuses.

Connects to 127.0.0.1:9042 by default. These defaults can be changed by
setting $CQLSH_HOST and/or $CQLSH_PORT. When a host (and optional port
number) are given on the command line, they take precedence.

Exit status: 0; 1 when it cannot connect or open -f's file; 2 when a
statement of -e, -f or piped input failed.`,
		Args:          cobra.MaximumNArgs(2),
		RunE:          runShell,
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	f := cmd.Flags()
	f.StringVarP(&shellFlags.username, "username", "u", "", "Authenticate as user.")
	f.StringVarP(&shellFlags.password, "password", "p", "", "Authenticate using password.")
	f.StringVarP(&shellFlags.keyspace, "keyspace", "k", "", "Authenticate to the given keyspace.")
	f.StringVarP(&shellFlags.execute, "execute", "e", "", "Execute the statement and quit.")
	f.StringVarP(&shellFlags.file, "file", "f", "", "Execute commands from FILE, then exit")
	f.IntVar(&shellFlags.protocolVersion, "protocol-version", 0, "Specify a specific protocol version otherwise the client will default and downgrade as necessary")
	f.IntVar(&shellFlags.connectTimeout, "connect-timeout", 5, "Specify the connection timeout in seconds")
	f.IntVar(&shellFlags.requestTimeout, "request-timeout", 10, "Specify the default request timeout in seconds")
	f.BoolVarP(&shellFlags.color, "color", "C", false, "Always use color output")
	f.BoolVar(&shellFlags.noColor, "no-color", false, "Never use color output")
	f.BoolVar(&shellFlags.debug, "debug", false, "Show additional debugging information")
	f.BoolVarP(&shellFlags.tty, "tty", "t", false, "Force tty mode (command prompt).")
	f.BoolVarP(&shellFlags.version, "version", "v", false, "show program's version number and exit")
	f.StringVar(&shellFlags.cqlVersion, "cqlversion", "", "Specify a particular CQL version (accepted and ignored)")
	f.StringVar(&shellFlags.encoding, "encoding", "utf-8", "Specify a non-default encoding for output (only utf-8)")
	return cmd
}

func runShell(cmd *cobra.Command, args []string) error {
	if shellFlags.version {
		fmt.Fprintln(cmd.OutOrStdout(), "cqlsh "+shell.Version)
		return nil
	}
	host, port := "127.0.0.1", 9042
	if h := os.Getenv("CQLSH_HOST"); h != "" {
		host = h
	}
	portStr := os.Getenv("CQLSH_PORT")
	if len(args) > 0 {
		host = args[0]
	}
	if len(args) > 1 {
		portStr = args[1]
	}
	if portStr != "" {
		p, err := strconv.Atoi(portStr)
		if err != nil {
			return fmt.Errorf("%q is not a valid port number", portStr)
		}
		port = p
	}
	tty, terminal := shellFlags.tty, false
	if f, ok := cmd.InOrStdin().(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			tty, terminal = true, true
		}
	}
	// cqlsh's should_use_color: stdout a terminal and TERM not dumb; -f
	// turns it off unless -C; --no-color always wins.
	color := shellFlags.color
	if !color && shellFlags.file == "" {
		if f, ok := cmd.OutOrStdout().(*os.File); ok {
			if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
				term := os.Getenv("TERM")
				color = term != "" && term != "dumb"
			}
		}
	}
	if shellFlags.noColor {
		color = false
	}
	code := shell.Run(shell.Options{
		Color:           color,
		Host:            host,
		Port:            port,
		Username:        shellFlags.username,
		Password:        shellFlags.password,
		Keyspace:        shellFlags.keyspace,
		Execute:         shellFlags.execute,
		File:            shellFlags.file,
		ProtocolVersion: shellFlags.protocolVersion,
		ConnectTimeout:  time.Duration(shellFlags.connectTimeout) * time.Second,
		RequestTimeout:  time.Duration(shellFlags.requestTimeout) * time.Second,
		Debug:           shellFlags.debug,
		TTY:             tty,
		HandleInterrupt: terminal && shellFlags.execute == "" && shellFlags.file == "",
		Stdin:           cmd.InOrStdin(),
		Stdout:          cmd.OutOrStdout(),
		Stderr:          cmd.ErrOrStderr(),
	})
	if code != 0 {
		return errExit{code}
	}
	return nil
}
