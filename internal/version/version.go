// Package version says which build of itr is running: the version, commit
// and build date stamped by the linker (make build, releases), else what
// the Go toolchain recorded in the binary (go install, go build: the
// module version, the VCS revision and time, whether the tree was dirty).
package version

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// Set by the linker: -ldflags "-X github.com/itr-dev/itr/internal/version.Version=v1.2.3
// -X ….Commit=<sha> -X ….Date=<RFC 3339>".
var (
	Version = ""
	Commit  = ""
	Date    = ""
)

// Info is what itr version prints.
type Info struct {
	Version string `json:"version"`          // v1.2.3, or "dev" when nothing says
	Commit  string `json:"commit,omitempty"` // the full revision
	Date    string `json:"date,omitempty"`   // build date, else the commit's date
	Dirty   bool   `json:"dirty,omitempty"`  // built from a tree with uncommitted changes
	Go      string `json:"go"`
	// Source says where the facts came from: "ldflags" or "buildinfo".
	Source string `json:"source"`
}

// Get returns the running build's Info: the linker's values when set,
// filled in from the build info the toolchain recorded.
func Get() Info {
	return resolve(Version, Commit, Date, debug.ReadBuildInfo)
}

// resolve is Get with its inputs as arguments, for tests.
func resolve(v, commit, date string, read func() (*debug.BuildInfo, bool)) Info {
	in := Info{Version: v, Commit: commit, Date: date, Go: runtime.Version(), Source: "ldflags"}
	if bi, ok := read(); ok {
		if in.Go == "" {
			in.Go = bi.GoVersion
		}
		if in.Version == "" {
			in.Source = "buildinfo"
			if mv := bi.Main.Version; mv != "" && mv != "(devel)" {
				in.Version = mv
			}
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				if in.Commit == "" {
					in.Commit = s.Value
				}
			case "vcs.time":
				if in.Date == "" {
					in.Date = s.Value
				}
			case "vcs.modified":
				in.Dirty = in.Dirty || s.Value == "true"
			}
		}
	}
	if strings.HasSuffix(in.Version, "-dirty") {
		in.Dirty = true
	}
	if in.Version == "" {
		in.Version = "dev"
	}
	return in
}

// String is one line: "v1.2.3 (commit 1a2b3c4d5e6f, built 2026-11-26T12:00:00Z, dirty) go1.26".
func (i Info) String() string {
	var parts []string
	if i.Commit != "" {
		c := i.Commit
		if len(c) > 12 {
			c = c[:12]
		}
		parts = append(parts, "commit "+c)
	}
	if i.Date != "" {
		parts = append(parts, "built "+i.Date)
	}
	if i.Dirty && !strings.HasSuffix(i.Version, "-dirty") {
		parts = append(parts, "dirty")
	}
	s := i.Version
	if len(parts) > 0 {
		s += " (" + strings.Join(parts, ", ") + ")"
	}
	return fmt.Sprintf("%s %s", s, i.Go)
}
