package reportdemo

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestProblemsFindsWhatChromiumLogs(t *testing.T) {
	stderr := "[1:2:INFO:CONSOLE(1)] \"boom\", source: file:///x.html (1)\n" +
		"some harmless line\n" +
		"Refused to load the image 'http://example.com/x.png' because it violates the following Content Security Policy directive\n" +
		"Failed to load resource: net::ERR_NAME_NOT_RESOLVED\n"
	assert.Len(t, Problems(stderr), 3)
	assert.Empty(t, Problems("DevTools listening on ws://127.0.0.1\nharmless\n"))
}

func TestTaskDirFollowsTheSlug(t *testing.T) {
	r := &Repo{Dir: "/r"}
	assert.Equal(t, filepath.Join("/r", ".claude", "iterative", Slug), r.TaskDir())
	r.Slug = CheckoutSlug
	assert.Equal(t, filepath.Join("/r", ".claude", "iterative", CheckoutSlug), r.TaskDir())
	assert.Len(t, CheckoutUnits, 12)
}
