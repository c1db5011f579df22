// Command gogit opens the repository holding the folder given and prints
// HEAD's commit with go-git. It is the process-start half of
// `go run ./internal/bench -gogit`; initcost/gitstate does the same with
// gitstate.
package main

import (
	"fmt"
	"os"

	git "github.com/go-git/go-git/v5"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gogit DIR")
		os.Exit(2)
	}
	r, err := git.PlainOpenWithOptions(os.Args[1], &git.PlainOpenOptions{DetectDotGit: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, "gogit:", err)
		os.Exit(1)
	}
	h, err := r.Head()
	if err != nil {
		fmt.Fprintln(os.Stderr, "gogit:", err)
		os.Exit(1)
	}
	fmt.Println(h.Hash())
}
