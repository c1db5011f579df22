//go:build !linux

package gitstate

// replaceBySpare is Linux's (spare_linux.go): elsewhere the caller writes
// the file itself.
func (r *Repo) replaceBySpare(rel, dst string, data []byte, fsync bool) (bool, error) {
	return false, nil
}

// dropSpare has nothing to remove where there are no spares.
func (r *Repo) dropSpare(rel string) {}
