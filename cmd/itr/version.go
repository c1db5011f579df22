package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/itr-dev/itr/internal/version"
)

func newVersionCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Which build of itr this is: version, commit, build date",
		Long: `Print the version, commit and build date stamped by make build and the releases; a binary
built with go install or go build says what the Go toolchain recorded instead (the module
version, the VCS revision and time, and whether the tree had uncommitted changes).
With --json: version, commit, date, dirty, go and source (ldflags or buildinfo).`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			info := version.Get()
			return g.emit(info, func(w io.Writer) { fmt.Fprintf(w, "itr version %s\n", info) })
		},
	}
}
