package verify

import "github.com/itr-dev/itr/gitstate"

// largeVersion is the size from which a version of a log that is a prefix
// of HEAD's is taken from HEAD's bytes (fromHead) rather than read.
const largeVersion = 1 << 20

// fromHead is the version of tr's log named hash when it is a prefix of
// the version at HEAD: its size from the object's header alone, its name
// checked by hashing that prefix of HEAD's bytes. A long log's older
// version is then not read and held beside HEAD's (issue #33: a full
// verify within twice the log). ok is false when it is not such a prefix,
// is small, or cannot be told so: the caller reads the blob.
func (v *verifier) fromHead(tr *track, hash string) ([]byte, bool) {
	if hash == "" || len(tr.head) < largeVersion {
		return nil, false
	}
	n, ok, err := gitstate.BlobSize(v.st.Repo, hash)
	if err != nil || !ok || n < largeVersion || n > int64(len(tr.head)) {
		return nil, false
	}
	now := tr.head[:n:n]
	if v.st.Repo.BlobID(now) != hash {
		return nil, false
	}
	return now, true
}
