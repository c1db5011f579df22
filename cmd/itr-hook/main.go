// Command itr-hook is itr's pre-commit hook as a program: `itr hooks
// install` copies it into the repository's hooks folder. It reads the index
// and HEAD itself and lets a commit that stages none of itr's logs go on at
// once; any other commit goes to `itr hooks pre-commit`. See
// gitstate/precommit.
package main

import (
	"os"

	"github.com/itr-dev/itr/gitstate/precommit"
)

func main() { os.Exit(precommit.Main(os.Args, os.Stderr)) }
