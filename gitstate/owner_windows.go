package gitstate

import (
	"fmt"
	"os"

	"golang.org/x/sys/windows"
)

// ownership names a repository owned by someone other than the user
// running itr: git refuses it unless safe.directory allows it, and only git
// knows every form of that setting, so git decides. Windows has no uids:
// the owner is a security identifier (SID), which Git for Windows compares
// with the user's own. Git also accepts, for a member of Administrators, a
// folder the Administrators group owns; itr does not reproduce that rule
// and leaves such a repository to git, which only costs speed. Where
// itr cannot read the owner (or the user's SID), it leaves the decision to
// the native engine, as it does on Unix where the owner is not known.
func ownership(loc Location) (Reason, bool) {
	tu, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return Reason{}, false
	}
	me := tu.User.Sid
	for _, p := range []string{loc.Root, loc.GitDir} {
		if p == "" {
			continue
		}
		if _, err := os.Stat(p); err != nil {
			continue
		}
		sd, err := windows.GetNamedSecurityInfo(p, windows.SE_FILE_OBJECT, windows.OWNER_SECURITY_INFORMATION)
		if err != nil {
			continue
		}
		owner, _, err := sd.Owner()
		if err != nil || owner == nil || owner.Equals(me) {
			continue
		}
		return Reason{Setting: "owner of " + p, Value: owner.String(),
			Why: fmt.Sprintf("the repository belongs to another user (%s, you are %s): git decides with safe.directory whether it may be used", owner, me)}, true
	}
	return Reason{}, false
}
