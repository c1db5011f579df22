package gitstate

import "os"

// renameFile renames the file oldpath to newpath, replacing it.
func renameFile(oldpath, newpath string) error { return os.Rename(oldpath, newpath) }

// removeFile removes the file path.
func removeFile(path string) error { return os.Remove(path) }
