//go:build !unix

package gitfmt

import "os"

// keepPacksOpen says a pack's file stays open for the process: not where
// an open file stops a repack (or a test's clean-up) from removing it
// (Windows); each read opens it.
const keepPacksOpen = false

// mapIndex reads the whole pack index of p (a pack index is small beside
// its pack: 28 bytes an object).
func mapIndex(p *pack) ([]byte, error) { return os.ReadFile(p.idxPath) }
