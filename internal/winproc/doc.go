// Package winproc holds the Windows versions of what itr asks the system
// about processes where Unix has kill(pid, 0). It has code on Windows only.
package winproc
