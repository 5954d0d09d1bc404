// Command cqld is a Cassandra-compatible wide-column database in one binary.
package main

import (
	"fmt"
	"os"
)

func main() {
	if err := newRootCommand().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "cqld:", err)
		os.Exit(1)
	}
}
