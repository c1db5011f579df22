package merge

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/internal/workspace/store"
)

// Bugs found by these tests, fixed; each reproduction stays.

// Attributes read .gitattributes with a bufio.Scanner whose token limit is
// 64 KiB: after a longer line it saw nothing more, so itr's lines were
// appended again on every Setup.
func TestBugAttributesLongLine(t *testing.T) {
	f := newFixture(t)
	have := strings.Repeat("x", 70000) + " binary\n" + itrAttributes
	f.writeAttrs(have)
	got, changed, err := Attributes(f.st)
	require.NoError(t, err)
	assert.False(t, changed)
	assert.Equal(t, have, string(got))
}

// The refusal for a state.json whose commit cannot be found named the path
// twice: "merge driver: <path>: <path>: cannot tell ...".
func TestBugTheirsNotFoundNamesPathTwice(t *testing.T) {
	f := newFixture(t)
	base, ours, theirs := f.diverged()
	hide(t, f)
	err := Driver(f.st, f.stateRequest(base, ours, theirs))
	require.Error(t, err)
	assert.Equal(t, 1, strings.Count(err.Error(), rel(store.StateFile)), err.Error())
}
