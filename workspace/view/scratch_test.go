package view

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestScratch(t *testing.T) {
	f := newFixture(t)
	b := inProgressTask(f)
	_ = b
	sum, err := Status(f.st, "")
	require.NoError(t, err)
	j, _ := json.MarshalIndent(sum, "", "  ")
	fmt.Println(string(j))
	p, err := Prime(f.st, "")
	require.NoError(t, err)
	fmt.Println(p.Markdown)
}
