package winproc

import (
	"errors"

	"golang.org/x/sys/windows"
)

// stillActive is the exit code GetExitCodeProcess reports for a process
// that has not exited (STILL_ACTIVE).
const stillActive = 259

// Alive reports whether a process with id pid exists and has not exited:
// OpenProcess finds it (a process of another user, which refuses the
// handle, exists, as EPERM from kill(pid, 0) says on Unix), and
// GetExitCodeProcess says STILL_ACTIVE. (A process that exited with code
// 259 looks alive; no itr or git process exits so.)
func Alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return errors.Is(err, windows.ERROR_ACCESS_DENIED)
	}
	defer windows.CloseHandle(h)
	var code uint32
	if err := windows.GetExitCodeProcess(h, &code); err != nil {
		return true // it exists; what it is doing is unknown
	}
	return code == stillActive
}
