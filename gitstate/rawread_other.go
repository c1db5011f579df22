//go:build !linux

package gitstate

// readRaw reads the file path with its stat data (os.Open elsewhere than
// on Linux; see rawread_linux.go).
func readRaw(path string) ([]byte, fileSig, error) { return readWithSigOS(path) }
