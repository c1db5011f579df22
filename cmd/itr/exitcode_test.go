package main

import (
	"bytes"
	"fmt"
	"os"
	"syscall"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
)

// TestExitCodeComesFromTheErrorsType: an error whose text happens to read
// like cobra's ("invalid argument" is EINVAL's text, "accepts " or "unknown
// command" can be anyone's) is a failure, exit 1; only usage errors, which
// markUsage gives a type, exit 2.
func TestExitCodeComesFromTheErrorsType(t *testing.T) {
	run := func(err error) (int, string) {
		var out, errb bytes.Buffer
		root := &cobra.Command{Use: "itr", SilenceErrors: true, SilenceUsage: true}
		root.AddCommand(&cobra.Command{Use: "fail", Args: cobra.NoArgs, RunE: func(*cobra.Command, []string) error { return err }})
		root.AddCommand(&cobra.Command{Use: "group"})
		root.Commands()[1].AddCommand(&cobra.Command{Use: "leaf", Run: func(*cobra.Command, []string) {}})
		markUsage(root)
		root.SetArgs([]string{"fail"})
		root.SetOut(&out)
		root.SetErr(&errb)
		return exitCode(root.Execute(), &errb, nil), errb.String()
	}
	for _, err := range []error{
		fmt.Errorf("open state.json: %w", syscall.EINVAL),
		&os.PathError{Op: "read", Path: "x", Err: syscall.EINVAL},
		fmt.Errorf("the plan accepts 3 units"),
		fmt.Errorf("unknown command in tasks.md line 4"),
	} {
		code, msg := run(err)
		assert.Equal(t, ExitError, code, "%v: %s", err, msg)
	}
	code, _ := run(usageError{fmt.Errorf("--did is required")})
	assert.Equal(t, ExitUsage, code)

	// Argument errors and unknown subcommands are usage errors.
	for _, args := range [][]string{{"fail", "extra"}, {"bogus"}, {"group", "bogus"}} {
		var errb bytes.Buffer
		root := &cobra.Command{Use: "itr", SilenceErrors: true, SilenceUsage: true}
		root.AddCommand(&cobra.Command{Use: "fail", Args: cobra.NoArgs, RunE: func(*cobra.Command, []string) error { return nil }})
		group := &cobra.Command{Use: "group"}
		group.AddCommand(&cobra.Command{Use: "leaf", Run: func(*cobra.Command, []string) {}})
		root.AddCommand(group)
		markUsage(root)
		root.SetArgs(args)
		root.SetOut(&bytes.Buffer{})
		root.SetErr(&errb)
		assert.Equal(t, ExitUsage, exitCode(root.Execute(), &errb, nil), "%v: %s", args, errb.String())
	}
}
