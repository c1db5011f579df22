package main

import (
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func testGlobals() *globals {
	return &globals{io: IO{Getenv: func(string) string { return "" }}, color: colorAuto}
}

// TestFastCommandsAsInTheTree: each command built alone has the name it is
// listed under and the same usage, flags, inherited flags, arguments
// rule presence and subcommands as in the whole tree.
func TestFastCommandsAsInTheTree(t *testing.T) {
	full := newRoot(testGlobals())
	for name := range fastCommands {
		t.Run(name, func(t *testing.T) {
			g := testGlobals()
			g.only = name
			lean := newRoot(g)
			var got *cobra.Command
			for _, c := range lean.Commands() {
				switch c.Name() {
				case name:
					got = c
				case "help", "completion":
				default:
					t.Errorf("the tree for %s also builds %s", name, c.Name())
				}
			}
			require.NotNil(t, got, "fastCommands[%q] builds another command", name)
			want, _, err := full.Find([]string{name})
			require.NoError(t, err)
			require.Equal(t, name, want.Name())
			assert.Equal(t, want.UsageString(), got.UsageString())
			assert.Equal(t, want.Flags().FlagUsages(), got.Flags().FlagUsages())
			assert.Equal(t, want.InheritedFlags().FlagUsages(), got.InheritedFlags().FlagUsages())
			assert.Equal(t, want.Args != nil, got.Args != nil)
			assert.Equal(t, want.ValidArgsFunction != nil, got.ValidArgsFunction != nil)
			assert.Equal(t, len(want.Commands()), len(got.Commands()))
		})
	}
}

func TestOnlyCommand(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{nil, ""},
		{[]string{"checkpoint", "T1", "--did", "x"}, "checkpoint"},
		{[]string{"status", "--json"}, "status"},
		{[]string{"checkpoint", "--help"}, ""},
		{[]string{"status", "-h"}, ""},
		{[]string{"note", "--", "--help"}, "note"},
		{[]string{"--json", "status"}, ""},
		{[]string{"archive", "x"}, ""},
		{[]string{"help", "checkpoint"}, ""},
		{[]string{"__complete", "checkpoint", ""}, ""},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, onlyCommand(tt.args), "%q", tt.args)
	}
}
