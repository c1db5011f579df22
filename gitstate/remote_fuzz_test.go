package gitstate

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzParsePushPorcelain checks that parsePushPorcelain never panics and
// only reports refs that a status line of its input names.
func FuzzParsePushPorcelain(f *testing.F) {
	for _, s := range []string{
		"",
		"To /tmp/r.git\n*\tHEAD:refs/heads/main\t[new branch]\nDone\n",
		"To /tmp/r.git\n \tHEAD:refs/heads/main\t23702d4..75283a1\nDone\n",
		"To /tmp/r.git\n-\t:refs/heads/x\t[deleted]\nDone\n",
		"To /tmp/r.git\n+\tHEAD~1:refs/heads/main\t75283a1...23702d4 (forced update)\nDone\n",
		"To /tmp/r.git\n!\tf2ad6c76:refs/itr/a\t[rejected] (stale info)\n!\tf2ad6c76:refs/itr/c\t[rejected] (atomic push failed)\nDone\n",
		"To /tmp/r.git\n!\tf2ad6c76:refs/itr/c\t[remote rejected] (pre-receive hook declined)\nDone\n",
		"=\ta:b\r\n!\t\n\t\t:\t\t",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, out []byte) {
		st := parsePushPorcelain(out)
		lines := strings.Split(string(out), "\n")
		if len(st) > len(lines) {
			t.Fatalf("%d statuses from %d lines", len(st), len(lines))
		}
		for _, s := range st {
			if s.Rejected() != (s.Flag == '!') {
				t.Fatalf("Rejected() of %+v", s)
			}
			if strings.ContainsAny(s.Ref, "\n") || strings.ContainsAny(s.Summary, "\n") {
				t.Fatalf("a status spans lines: %+v", s)
			}
			found := false
			for _, l := range lines {
				l = strings.TrimSuffix(l, "\r")
				if len(l) >= 2 && l[0] == s.Flag && l[1] == '\t' && strings.Contains(l, ":"+s.Ref) &&
					(s.Summary == "" || strings.HasSuffix(l, "\t"+s.Summary)) {
					found = true
					break
				}
			}
			if !found {
				t.Fatalf("status %+v is on no line of %q", s, out)
			}
		}
	})
}

// FuzzParseRemoteConfig checks that parseRemoteConfig never panics and
// keeps its invariants: remotes listed once, named and taken from the
// input; the fallbacks applied.
func FuzzParseRemoteConfig(f *testing.F) {
	f.Add(configOut("remote.origin.url", "/x", "remote.origin.fetch", "+refs/heads/*:refs/remotes/origin/*",
		"branch.main.remote", "origin", "branch.main.merge", "refs/heads/main", "pull.rebase", "true"), "main")
	f.Add(configOut("remote.pushdefault", "mine", "remote.mine.url", "/m", "remote.a.url", "/a", "remote.a.url", "/b",
		"branch.release.v1.2.pushremote", "a", "branch.release.v1.2.rebase", "\x00"), "release.v1.2")
	f.Add(configOut("remote.a.url", "/a", "remote.b.url", "/b", "branch.Feature/X.merge", "refs/heads/Feature/X"), "Feature/X")
	f.Add([]byte("nokey\x00\nvalue\x00remote..url\n\x00branch..remote\nx\x00"), "")
	f.Fuzz(func(t *testing.T, out []byte, branch string) {
		u := parseRemoteConfig(out, branch)
		if u.Branch != "" {
			t.Fatalf("Branch %q is the caller's", u.Branch)
		}
		seen := map[string]bool{}
		for _, r := range u.Remotes {
			if r == "" || seen[r] {
				t.Fatalf("remotes %q: empty or repeated", u.Remotes)
			}
			seen[r] = true
			if !bytes.Contains(out, []byte("remote."+r+".url")) {
				t.Fatalf("remote %q is not in the input", r)
			}
		}
		if u.PushRemote == "" && u.Remote != "" {
			t.Fatalf("push remote empty with remote %q", u.Remote)
		}
		if u.Remote == "" && len(u.Remotes) == 1 {
			t.Fatalf("the only remote %q was not chosen", u.Remotes[0])
		}
		if len(u.Fetch) > 0 && u.Remote == "" {
			t.Fatalf("fetch refspecs %q without a remote", u.Fetch)
		}
		if branch == "" && (u.MergeRef != "") {
			t.Fatalf("merge ref %q for a detached HEAD", u.MergeRef)
		}
		again := parseRemoteConfig(out, branch)
		if strings.Join(again.Remotes, "\x00") != strings.Join(u.Remotes, "\x00") || again.Remote != u.Remote {
			t.Fatal("not deterministic")
		}
	})
}
