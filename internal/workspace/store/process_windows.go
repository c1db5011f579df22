package store

import "github.com/itr-dev/itr/internal/winproc"

// processExists reports whether a process with id pid exists and has not
// exited (OpenProcess and GetExitCodeProcess).
func processExists(pid int) bool { return winproc.Alive(pid) }
