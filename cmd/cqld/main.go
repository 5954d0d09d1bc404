// Command cqld is a Cassandra-compatible wide-column database in one binary.
package main

import (
	"errors"
	"fmt"
	"os"
)

func main() {
	if err := newRootCommand().Execute(); err != nil {
		var findings errFindings
		var exit errExit
		if errors.As(err, &exit) {
			os.Exit(exit.code)
		}
		if !errors.As(err, &findings) {
			fmt.Fprintln(os.Stderr, "cqld:", err)
		}
		os.Exit(1)
	}
}
