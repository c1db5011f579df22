package gitstate

import "strings"

// durability says which writes are fsynced. gitstate follows the
// repository's own git settings, so itr is exactly as durable as git is on
// the same repository: core.fsync (git 2.36+) and the older
// core.fsyncObjectFiles. Git's default fsyncs none of what a commit writes
// (loose objects, the index, refs); every write is still atomic (a temp
// file or lock file renamed into place), so a killed process never leaves
// a half-written file. `git config core.fsync added` makes both git and itr
// fsync objects, refs and the index.
type durability struct {
	objects bool // loose objects and their folders
	index   bool // the index (and the working-tree files itr writes)
	refs    bool // refs and their reflogs
}

// durabilityOf reads core.fsync and core.fsyncObjectFiles.
func durabilityOf(cfg *configSet) durability {
	var d durability
	if isTrue(cfg.value("core", "", "fsyncobjectfiles")) {
		d.objects = true
	}
	v := cfg.value("core", "", "fsync")
	if v == "" {
		return d
	}
	d = durability{}
	for _, item := range strings.Split(v, ",") {
		item = strings.ToLower(strings.TrimSpace(item))
		on := true
		if strings.HasPrefix(item, "-") {
			on, item = false, item[1:]
		}
		switch item {
		case "none":
			d = durability{}
		case "loose-object", "objects":
			d.objects = on
		case "index":
			d.index = on
		case "reference":
			d.refs = on
		case "committed":
			d.objects, d.refs = on, on
		case "added", "all":
			d.objects, d.refs, d.index = on, on, on
		}
	}
	return d
}
