package main

import "github.com/spf13/cobra"

// fastCommands are the commands an agent runs in its loop, each built
// alone when it is the one asked for: building the whole tree of some
// forty commands, their flags and completions was about 3% of the CPU of
// a small `itr checkpoint` (issue #33). A command built alone is the
// same command as in the whole tree (TestFastCommandsAsInTheTree); help,
// completion, the version and every other command build the whole tree.
var fastCommands = map[string]func(*globals) *cobra.Command{
	"checkpoint": newCheckpointCmd,
	"status":     newStatusCmd,
	"prime":      newPrimeCmd,
	"next":       newNextCmd,
	"note":       newNoteCmd,
	"log":        newLogCmd,
	"verify":     newVerifyCmd,
	"claim":      newClaimCmd,
	"release":    newReleaseCmd,
	"block":      newBlockCmd,
	"decide":     newDecideCmd,
	"guardrail":  newGuardrailCmd,
}

// onlyCommand is the command of fastCommands that args run, "" when they
// run another, ask for help, or the first argument is not a command name.
func onlyCommand(args []string) string {
	if len(args) == 0 {
		return ""
	}
	if _, ok := fastCommands[args[0]]; !ok {
		return ""
	}
	for _, a := range args[1:] {
		if a == "--" {
			break
		}
		if a == "-h" || a == "--help" || a == "--version" || a == "help" {
			return ""
		}
	}
	return args[0]
}
