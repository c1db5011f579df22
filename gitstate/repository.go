package gitstate

import "time"

// Reader is what itr reads from a repository: HEAD and refs, commits and
// their history, trees and blobs at a revision, the index, and the state
// of an operation in progress (merge, rebase, ...). *Repo implements it
// against git's files; a fake of it lets the rooms above gitstate be
// table-tested without a repository. gitstate/gitcontract holds the
// behaviour both must share.
type Reader interface {
	// Root is the top of the working tree.
	Root() string
	Head() (Head, error)
	ResolveRev(rev string) (string, error)
	// History calls fn for rev and its first-parent ancestors, newest
	// first, until fn returns false.
	History(rev string, fn func(Commit) bool) error
	ReadFile(rev, path string) ([]byte, error)
	FileHashAt(rev, path string) (string, error)
	ListFiles(rev, dir string) ([]string, error)
	TreeFiles(rev, dir string) (map[string]string, error)
	FolderHashes(rev, dir string) (map[string]string, error)
	ReadBlob(hash string) ([]byte, error)
	PeelCommit(hash string) (string, error)
	Refs(prefixes ...string) (map[string]string, error)
	RawRefs(prefix string) (map[string]string, error)
	ReadRef(name string) (string, error)
	ReadTag(ref string) (Tag, error)
	Staged(dir string) ([]IndexEntry, error)
	// Operation names the operation in progress ("merge", "rebase", ...)
	// or is "".
	Operation() string
	// OperationHeads are the commits being merged in (MERGE_HEAD, ...).
	OperationHeads() []string
	// BlobID is the object name data has as a blob in this repository
	// (SHA-1 or SHA-256, as the repository names objects).
	BlobID(data []byte) string
	// WorktreeFile reads a file of the working tree (rel is relative to
	// its top, with slashes) as git would store it: after the line-ending
	// conversions and clean filters its attributes ask for.
	WorktreeFile(rel string) ([]byte, error)
	// Uncommitted lists the paths of the working tree whose changes no
	// commit holds (modified, staged, or untracked and not ignored),
	// outside the folder except, as `git status` sees them.
	Uncommitted(except string) ([]string, error)
	// ChangedFiles lists the paths of the files (blobs, symbolic links,
	// submodules) commit rev added, removed or changed against its first
	// parent, sorted; every file for a commit without parents (or whose
	// parent is beyond a shallow boundary). Folders whose trees are equal
	// are not entered. ErrNotFound when rev names no commit.
	ChangedFiles(rev string) ([]string, error)
	// TreeWithout is the id of rev's tree with the folder dir left out,
	// as git would name that tree (no object is written): what a commit
	// holds besides one folder. A dir that is not there gives rev's tree;
	// ErrNotFound when rev names no commit.
	TreeWithout(rev, dir string) (string, error)
}

// Writer is what itr writes: commits of given paths, the index, branches,
// annotated tags.
type Writer interface {
	CommitFiles(req CommitRequest) (Commit, error)
	Stage(changes []FileChange) error
	SetBranch(name, commit string, who Signature, msg string) error
	CreateTag(name, commit, message string, tagger Signature) (string, error)
	// Committer is the identity git's configuration gives, at now.
	Committer(now time.Time) (Signature, error)
	// WriteBlob stores data as a blob object (no ref, no index, no work
	// tree), byte for byte, and returns its id, in the repository's object
	// format (SHA-1 or SHA-256).
	WriteBlob(data []byte) (string, error)
	// UpdateRef moves the ref name (a full name under refs/itr/, e.g.
	// "refs/itr/claims/auth/T1") from oldID to newID atomically,
	// compare-and-swap: oldID "" means the ref must not exist yet; newID
	// "" deletes it. When the ref holds anything other than oldID,
	// nothing changes and the error is a *RefChangedError, which wraps
	// ErrRefChanged and names the value the ref holds ("" when absent).
	// Names outside refs/itr/ are refused with ErrBadRef; a newID that
	// names no object is ErrNotFound; a lock another process holds
	// (name.lock) past the retry budget is ErrLocked.
	UpdateRef(name, newID, oldID string) error
	// JournalLocks records every lock file CommitFiles takes in the file
	// at path until it is called with "", so a crash can be cleaned up.
	JournalLocks(path string)
}

// Private is where itr keeps its own files inside the git directory and
// reads git's configuration and hooks folder.
type Private interface {
	ItrPath(elem ...string) string
	WorktreeItrPath(elem ...string) string
	HooksDir() (string, error)
	ConfigFile() string
	ConfigSection(name, sub string) ([][2]string, error)
	SetConfigSection(name, sub string, keys [][2]string) (bool, error)
}

// Repository is the whole of what itr asks of git.
type Repository interface {
	Reader
	Writer
	Private
	Close() error
}

var _ Repository = (*Repo)(nil)
