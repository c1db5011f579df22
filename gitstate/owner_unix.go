//go:build !windows

package gitstate

import (
	"fmt"
	"os"
	"syscall"
)

// ownership names a repository owned by someone other than the user
// running itr: git refuses it unless safe.directory allows it, and only git
// knows every form of that setting, so git decides.
func ownership(loc Location) (Reason, bool) {
	uid := os.Geteuid()
	for _, p := range []string{loc.Root, loc.GitDir} {
		if p == "" {
			continue
		}
		fi, err := os.Stat(p)
		if err != nil {
			continue
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok || int(st.Uid) == uid {
			continue
		}
		return Reason{Setting: "owner of " + p, Value: fmt.Sprint(st.Uid),
			Why: fmt.Sprintf("the repository belongs to another user (uid %d, you are %d): git decides with safe.directory whether it may be used", st.Uid, uid)}, true
	}
	return Reason{}, false
}
