// Command itr gives long-running, multi-session iterative work a memory kept
// in the project's git repository. See README.md for the commands.
package main

import (
	"os"
	"runtime/debug"
)

// shortLivedGC is the collector's target (GOGC) of a command that runs and
// exits: the heap may grow to five times what is live before a collection
// instead of twice. Reading a plan of 100,000 units builds some 400 MB of
// live objects, and at Go's default the collector ran once per doubling,
// scanning all of it each time (a quarter of status's processor time
// there, and the reason its time grew 13-15 times for 10 times the
// units). A file of 16 MiB or more read by the store lowers the target
// again (store.noteRead), so a long log's command still peaks within twice
// the log; itr mcp, which runs for a session, keeps Go's default, and so
// does a GOGC the user set.
const shortLivedGC = 400

func main() {
	args := os.Args[1:]
	if os.Getenv("GOGC") == "" && (len(args) == 0 || args[0] != "mcp") {
		debug.SetGCPercent(shortLivedGC)
	}
	os.Exit(Main(args, IO{In: os.Stdin, Out: os.Stdout, Err: os.Stderr, Getenv: os.Getenv}))
}
