//go:build !linux

package gitstate

import "os"

// statOf returns zeroed stat data: git re-hashes such entries, which is
// slower but never shows a false change.
func statOf(fi os.FileInfo) statData { return statData{} }
