// Command gitstate opens the repository holding the folder given and
// prints HEAD's commit with gitstate. It is the process-start half of
// `go run ./internal/bench -gogit`; initcost/gogit does the same with go-git.
package main

import (
	"fmt"
	"os"

	"github.com/itr-dev/itr/gitstate"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gitstate DIR")
		os.Exit(2)
	}
	r, err := gitstate.Open(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "gitstate:", err)
		os.Exit(1)
	}
	h, err := r.Head()
	if err != nil {
		fmt.Fprintln(os.Stderr, "gitstate:", err)
		os.Exit(1)
	}
	fmt.Println(h.Hash)
}
