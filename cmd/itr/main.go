// Command itr gives long-running, multi-session iterative work a memory kept
// in the project's git repository. See README.md for the commands.
package main

import "os"

func main() {
	os.Exit(Main(os.Args[1:], IO{In: os.Stdin, Out: os.Stdout, Err: os.Stderr, Getenv: os.Getenv}))
}
