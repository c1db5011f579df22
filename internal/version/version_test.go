package version

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestResolve(t *testing.T) {
	info := func(main string, settings ...string) func() (*debug.BuildInfo, bool) {
		return func() (*debug.BuildInfo, bool) {
			bi := &debug.BuildInfo{GoVersion: "go1.26", Main: debug.Module{Version: main}}
			for i := 0; i+1 < len(settings); i += 2 {
				bi.Settings = append(bi.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
			}
			return bi, true
		}
	}
	none := func() (*debug.BuildInfo, bool) { return nil, false }
	tests := []struct {
		name                string
		v, commit, date     string
		read                func() (*debug.BuildInfo, bool)
		version, src, fixed string
		dirty               bool
	}{
		{"ldflags win", "v1.2.3", "abc", "2026-01-01T00:00:00Z", info("v0.0.1", "vcs.revision", "def"), "v1.2.3", "ldflags", "abc", false},
		{"go install of a tag", "", "", "", info("v1.4.0"), "v1.4.0", "buildinfo", "", false},
		{"go build in a dirty clone", "", "", "", info("(devel)", "vcs.revision", "0123456789abcdef", "vcs.time", "2026-11-26T10:00:00Z", "vcs.modified", "true"), "dev", "buildinfo", "0123456789abcdef", true},
		{"nothing recorded", "", "", "", none, "dev", "ldflags", "", false},
		{"a dirty describe", "v1.2.3-4-gabc-dirty", "abc", "", none, "v1.2.3-4-gabc-dirty", "ldflags", "abc", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := resolve(tt.v, tt.commit, tt.date, tt.read)
			assert.Equal(t, tt.version, got.Version)
			assert.Equal(t, tt.src, got.Source)
			assert.Equal(t, tt.fixed, got.Commit)
			assert.Equal(t, tt.dirty, got.Dirty)
			assert.NotEmpty(t, got.Go)
		})
	}
	assert.Equal(t, "v1.2.3 (commit 0123456789ab, built 2026-11-26T10:00:00Z, dirty) go1.26",
		Info{Version: "v1.2.3", Commit: "0123456789abcdef", Date: "2026-11-26T10:00:00Z", Dirty: true, Go: "go1.26"}.String())
}
