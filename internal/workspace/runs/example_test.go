package runs_test

import (
	"fmt"

	"github.com/itr-dev/itr/internal/workspace/runs"
)

func ExampleSplitCommand() {
	argv, err := runs.SplitCommand(`sh -c 'go vet ./... && go test ./...'`)
	fmt.Printf("%q %v\n", argv, err)

	_, err = runs.SplitCommand("go vet ./... && go test ./...")
	fmt.Println(err)
	// Output:
	// ["sh" "-c" "go vet ./... && go test ./..."] <nil>
	// "&" at column 14: it needs a shell: write the check as sh -c '...'
}

func ExampleQuoteCommand() {
	fmt.Println(runs.QuoteCommand([]string{"go", "test", "./..."}))
	fmt.Println(runs.QuoteCommand([]string{"sh", "-c", "a && b"}))
	fmt.Println(runs.QuoteCommand([]string{"echo", "it's", ""}))
	// Output:
	// go test ./...
	// sh -c 'a && b'
	// echo 'it'\''s' ''
}
