package gitstate

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// FuzzConfigParse checks gitstate's config parser against git: whatever it
// accepts, `git config --list` reads to the same variables in the same
// order (git prints a variable without "=" as having no value; the parser
// gives it "true", which is what git means by it).
func FuzzConfigParse(f *testing.F) {
	for _, s := range []string{
		"[core]\n\tbare = false\n\tfsync = committed\n",
		"[user]\n  name = \"A \\\"quoted\\\" name\" ; comment\n  email=a@b.c # c\n",
		"[remote \"origin\"]\n\turl = /x\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n",
		"[Section.Sub]\nKey\nother = a \\\n  continued\n",
		"\uFEFF[a]\r\nb = c\r\n",
		"[a]\nb = \"  spaced  \"\nc = tab\\there\n",
		"[a \"sub \\\" with quote\"]\nb=1\n",
		"# only a comment\n; another\n",
		"b = outside\n",
		"[a]\nb = \"unterminated\n",
	} {
		f.Add([]byte(s))
	}
	git, gitErr := exec.LookPath("git")
	f.Fuzz(func(t *testing.T, data []byte) {
		var got []string
		err := parseConfig(data, func(section, sub, key, value string) error {
			name := section
			if sub != "" {
				name += "." + sub
			}
			got = append(got, name+"."+key+"\n"+value)
			return nil
		})
		if err != nil || gitErr != nil || bytes.IndexByte(data, 0) >= 0 {
			return
		}
		for _, g := range got {
			if strings.HasPrefix(g, "include.") || strings.HasPrefix(g, "includeif.") {
				return // git would follow it
			}
		}
		file := filepath.Join(t.TempDir(), "config")
		if err := os.WriteFile(file, data, 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(git, "config", "--file", file, "--list", "-z")
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir())
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("gitstate parsed what git refuses (%v):\n%q", err, data)
		}
		var want []string
		for _, rec := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
			if rec == "" {
				continue
			}
			if !strings.Contains(rec, "\n") {
				rec += "\ntrue"
			}
			want = append(want, rec)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("config %q:\ngitstate %q\ngit      %q", data, got, want)
		}
	})
}

// FuzzDecodeObjects feeds arbitrary bodies to the commit, tag and tree
// decoders: they never panic, and what they accept survives encoding and
// decoding again.
func FuzzDecodeObjects(f *testing.F) {
	tree := strings.Repeat("a", 40)
	f.Add([]byte("tree " + tree + "\nparent " + strings.Repeat("b", 40) + "\nauthor A <a@b> 1700000000 +0100\ncommitter C <c@d> 1700000001 -0030\n\nsubject\n\nbody\n"))
	f.Add([]byte("tree " + tree + "\nauthor A <a@b> 1 +0000\ncommitter A <a@b> 1 +0000\ngpgsig -----BEGIN PGP SIGNATURE-----\n line\n -----END PGP SIGNATURE-----\n\nsigned\n"))
	f.Add([]byte("object " + tree + "\ntype commit\ntag v1\ntagger T <t@x> 5 +0200\n\nmsg\n-----BEGIN PGP SIGNATURE-----\nx\n-----END PGP SIGNATURE-----\n"))
	f.Add([]byte("100644 a.txt\x00" + strings.Repeat("\x01", 20) + "40000 dir\x00" + strings.Repeat("\x02", 20)))
	f.Add([]byte("tree zz\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		h := plumbing.ComputeHash(plumbing.CommitObject, data)
		if c, err := decodeCommit(h, data); err == nil {
			again, err := decodeCommit(h, encodeCommit(c.Tree, c.Parents, c.Author, c.Committer, c.Message))
			if err != nil {
				t.Fatalf("a decoded commit does not decode after encoding: %v\n%q", err, data)
			}
			if again.Tree != c.Tree || fmt.Sprint(again.Parents) != fmt.Sprint(c.Parents) || again.Message != c.Message {
				t.Fatalf("commit round trip changed it:\n%+v\n%+v", c, again)
			}
		}
		if tg, err := decodeTag(h, data); err == nil {
			again, err := decodeTag(h, encodeTag(tg.Target, tg.Name, tg.Tagger, tg.Message))
			if err != nil || again.Target != tg.Target {
				t.Fatalf("a decoded tag does not survive encoding: %v\n%q", err, data)
			}
		}
		if entries, ok := parseTreeEntries(data); ok {
			var b bytes.Buffer
			for _, e := range entries {
				fmt.Fprintf(&b, "%o %s\x00", uint32(e.Mode), e.Name)
				b.Write(e.Hash[:])
			}
			again, ok := parseTreeEntries(b.Bytes())
			if !ok || fmt.Sprint(again) != fmt.Sprint(entries) {
				t.Fatalf("tree round trip changed it:\n%v\n%v", entries, again)
			}
		}
	})
}

// FuzzApplyDelta feeds arbitrary deltas to applyDelta: it never panics or
// reads out of bounds, and what it returns has the size the delta declares.
func FuzzApplyDelta(f *testing.F) {
	base := []byte("hello, delta world\n")
	// source size 19, target size 11: copy 5 bytes at offset 0, insert ", git\n".
	f.Add(base, []byte{19, 11, 0x90, 5, 6, ',', ' ', 'g', 'i', 't', '\n'})
	f.Add(base, []byte{19, 3, 3, 'a', 'b', 'c'})
	f.Add(base, []byte{19, 100, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
	f.Add([]byte{}, []byte{0, 0})
	f.Fuzz(func(t *testing.T, base, delta []byte) {
		out, ok := applyDelta(base, delta)
		if !ok {
			return
		}
		// The declared target size is the second varint.
		d, n := delta, 0
		for i := 0; i < 2; i++ {
			var v, shift uint64
			for len(d) > 0 {
				c := d[0]
				d = d[1:]
				v |= uint64(c&0x7f) << shift
				shift += 7
				if c&0x80 == 0 {
					break
				}
			}
			n = int(v)
		}
		if len(out) != n {
			t.Fatalf("applyDelta returned %d bytes, the delta declares %d", len(out), n)
		}
	})
}
