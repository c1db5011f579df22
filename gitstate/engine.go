package gitstate

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
)

// Engine names one of the two implementations of Repository.
type Engine string

const (
	// EngineNative reads and writes git's files itself (*Repo): the fast
	// path, used only where it is proven to write what git would write.
	EngineNative Engine = "native"
	// EngineGit drives git's own plumbing (*GitRepo): every repository git
	// can use, with git's attributes, filters, signing, environment, object
	// formats, ref backends and index forms.
	EngineGit Engine = "git"
)

// Reason is one fact about a repository that sends its commands to git's
// own plumbing: where it was read and why the native engine steps aside.
type Reason struct {
	Setting string // e.g. "core.autocrlf", ".gitattributes:3", "GIT_DIR"
	Value   string // what it holds
	Why     string // what git does there that the native engine does not
	conv    string // "lines" or "filters" for a conversion of content
}

// String words a reason for a person.
func (r Reason) String() string {
	if r.Value == "" {
		return r.Setting + ": " + r.Why
	}
	return r.Setting + "=" + r.Value + ": " + r.Why
}

// Choice is the engine chosen for one command and the reasons for it (none
// for the native engine).
type Choice struct {
	Engine  Engine
	Reasons []Reason
	// Location is where the repository is.
	Location Location
	// ObjectFormat is how the repository names objects: "sha1" or
	// "sha256".
	ObjectFormat string
	// LineEndings is set when git may convert line endings of itr's files
	// (core.autocrlf, core.eol, text/eol/crlf attributes); Filters when
	// other conversions may apply (filter, ident, working-tree-encoding).
	// Without either, git stores a file's bytes as they are.
	LineEndings, Filters bool
	// Reftable is set when refs live in reftable, not in files.
	Reftable bool
}

// conversions classifies the reasons that are conversions of content.
func conversions(rs []Reason) (lines, filters bool) {
	for _, r := range rs {
		lines = lines || r.conv == "lines"
		filters = filters || r.conv == "filters"
	}
	return lines, filters
}

// Location is where a repository is: its working tree top ("" when bare),
// this worktree's git directory and the common one.
type Location struct {
	Root      string
	GitDir    string
	CommonDir string
	// ByGit is set when git itself located the repository (GIT_DIR and
	// friends are set): only the git engine may open it then.
	ByGit bool
	// wtConfig is extensions.worktreeConfig, read once by Locate.
	wtConfig bool
	// cache is what the command has read of the repository (proccache.go),
	// shared by the native Repos of this location.
	cache *procCache
}

// files is the native reader of the located repository's own files
// (config, HEAD, the operation in progress).
func (loc Location) files() *Repo {
	return &Repo{root: loc.Root, gitDir: loc.GitDir, commonDir: loc.CommonDir, wtConfig: loc.wtConfig, cache: loc.cache}
}

// uncachedFiles is files without the process cache: the git engine's
// reader of its own files, whose refs git changes behind its back.
func (loc Location) uncachedFiles() *Repo {
	r := loc.files()
	r.cache = nil
	return r
}

// OpenOptions say what the command will touch, so the engine can be chosen
// from the attributes that apply there.
type OpenOptions struct {
	// Scope is the folder, relative to the working tree top with slashes,
	// that itr writes in (the task root): .gitattributes files on the way
	// to it and inside it are read.
	Scope string
	// RunHooks runs the user's pre-commit, prepare-commit-msg, commit-msg
	// and post-commit hooks around itr's commits, as `git commit` does
	// (only the git engine runs hooks).
	RunHooks bool
}

// locationEnv are the variables with which git finds a repository
// elsewhere than by walking up from the current folder.
var locationEnv = []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_CEILING_DIRECTORIES", "GIT_DISCOVERY_ACROSS_FILESYSTEM"}

// contentEnv are the variables that change what git reads or writes once
// the repository is found, which the native engine does not honour
// (GIT_AUTHOR_NAME and the like it does; GIT_CONFIG_COUNT, _GLOBAL and
// _SYSTEM too; and GIT_INDEX_FILE, which git sets for every commit hook).
// GIT_AUTHOR_DATE and GIT_COMMITTER_DATE are no reason: on both engines an
// itr commit is dated by itr's clock, the time of the entry it records.
var contentEnv = []struct{ name, why string }{
	{"GIT_OBJECT_DIRECTORY", "git keeps objects in this folder instead of the repository's"},
	{"GIT_ALTERNATE_OBJECT_DIRECTORIES", "git reads objects from these folders too"},
	{"GIT_CONFIG_PARAMETERS", "git applies these `git -c` settings"},
	{"GIT_NAMESPACE", "git puts refs under this namespace"},
	{"GIT_REPLACE_REF_BASE", "git reads replacement objects from here"},
	{"GIT_NO_REPLACE_OBJECTS", "git does not apply replace refs"},
	{"GIT_SHALLOW_FILE", "git reads the shallow boundary from this file"},
}

// Locate finds the repository around dir as git would: by walking up from
// it, or, when GIT_DIR, GIT_WORK_TREE and the like are set, by asking git.
func Locate(dir string) (Location, error) {
	for _, v := range locationEnv {
		if _, ok := os.LookupEnv(v); ok {
			return locateByGit(dir)
		}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Location{}, fmt.Errorf("open %s: %w", dir, err)
	}
	if _, err := os.Stat(abs); err != nil {
		return Location{}, fmt.Errorf("open %s: %w", abs, err)
	}
	root, gitDir, err := discover(abs)
	if err != nil {
		return Location{}, err
	}
	commonDir, err := readCommonDir(gitDir)
	if err != nil {
		return Location{}, err
	}
	cache := newProcCache()
	var cs configSet
	if err := cs.readFile(filepath.Join(commonDir, "config"), configContext{files: cache}, 0, true); err != nil {
		return Location{}, err
	}
	if isTrue(cs.value("core", "", "bare")) && root != "" && gitDir == filepath.Join(root, ".git") {
		root = ""
	}
	return Location{Root: root, GitDir: gitDir, CommonDir: commonDir,
		wtConfig: isTrue(cs.value("extensions", "", "worktreeconfig")), cache: cache}, nil
}

// OpenRepository opens the repository around dir with the engine its
// settings call for: the native engine where nothing in the repository, its
// configuration, the attributes on the way to opts.Scope or the environment
// asks for more than it does; git's own plumbing otherwise. ITR_ENGINE=git
// forces git's plumbing.
func OpenRepository(dir string, opts OpenOptions) (Repository, Choice, error) {
	loc, err := Locate(dir)
	if err != nil {
		return nil, Choice{}, err
	}
	return OpenAt(loc, opts)
}

// OpenAt opens a located repository with the engine Choose picks.
func OpenAt(loc Location, opts OpenOptions) (Repository, Choice, error) {
	choice, err := Choose(loc, opts)
	if err != nil {
		return nil, choice, err
	}
	if choice.Engine == EngineNative {
		return loc.files(), choice, nil
	}
	g, err := openGit(loc, opts, choice)
	if err != nil {
		return nil, choice, err
	}
	return g, choice, nil
}

// Choose decides which engine serves a located repository, once per
// command, from the environment, the repository's format and extensions,
// its configuration, its index and the attributes that apply to
// opts.Scope. It reads files only; it runs no git.
func Choose(loc Location, opts OpenOptions) (Choice, error) {
	var rs []Reason
	add := func(setting, value, why string) { rs = append(rs, Reason{Setting: setting, Value: value, Why: why}) }
	if v := os.Getenv("ITR_ENGINE"); v != "" {
		switch strings.ToLower(v) {
		case "git":
			add("ITR_ENGINE", v, "asked for git's own plumbing")
		case "auto", "":
		default:
			return Choice{}, fmt.Errorf("ITR_ENGINE=%q: use \"git\" (git's own plumbing for everything) or \"auto\" (the native engine where it is proven identical to git)", v)
		}
	}
	if loc.ByGit {
		for _, v := range locationEnv {
			if val, ok := os.LookupEnv(v); ok {
				add(v, val, "git finds the repository through the environment")
			}
		}
	}
	for _, v := range contentEnv {
		if val, ok := os.LookupEnv(v.name); ok {
			add(v.name, val, v.why)
		}
	}
	if opts.RunHooks {
		add(".itr.yaml run_hooks", "true", "itr's commits run the repository's commit hooks, as `git commit` does")
	}
	if r, ok := ownership(loc); ok {
		rs = append(rs, r)
	}
	cfg, err := locConfig(loc)
	if err != nil {
		return Choice{}, err
	}
	rs = append(rs, configReasons(cfg)...)
	rs = append(rs, indexReasons(loc)...)
	if loc.Root != "" {
		rs = append(rs, attributeReasons(loc, cfg, opts.Scope)...)
	}
	format := strings.ToLower(strings.TrimSpace(cfg.value("extensions", "", "objectformat")))
	if format == "" {
		format = "sha1"
	}
	c := Choice{Engine: EngineNative, Location: loc, ObjectFormat: format,
		Reftable: strings.EqualFold(strings.TrimSpace(cfg.value("extensions", "", "refstorage")), "reftable")}
	c.LineEndings, c.Filters = conversions(rs)
	if len(rs) > 0 {
		c.Engine, c.Reasons = EngineGit, rs
	}
	return c, nil
}

// Folders are where the repository is, for a person (itr doctor): the
// working tree top ("" when bare), this worktree's git directory and the
// common one. Paths inside them are gitstate's to build.
func (c Choice) Folders() (root, gitDir, commonDir string) {
	return c.Location.Root, c.Location.GitDir, c.Location.CommonDir
}

// GitVersion is what `git --version` says, or "" when git is not on PATH.
func GitVersion() string {
	git, err := exec.LookPath("git")
	if err != nil {
		return ""
	}
	out, err := exec.Command(git, "--version").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// locConfig reads the whole configuration stack of a located repository.
func locConfig(loc Location) (*configSet, error) {
	r := loc.files()
	return r.loadConfig(r.currentBranch())
}

// worktreeConfigOn reports whether extensions.worktreeConfig is set.
func worktreeConfigOn(commonDir string) (bool, error) {
	var cs configSet
	if err := cs.readFile(filepath.Join(commonDir, "config"), configContext{}, 0, false); err != nil {
		return false, err
	}
	return isTrue(cs.value("extensions", "", "worktreeconfig")), nil
}

// configReasons lists the settings the native engine does not reproduce.
func configReasons(cfg *configSet) []Reason {
	var rs []Reason
	add := func(setting, value, why string) { rs = append(rs, Reason{Setting: setting, Value: value, Why: why}) }
	switch v := strings.TrimSpace(cfg.value("core", "", "repositoryformatversion")); v {
	case "", "0", "1":
	default:
		add("core.repositoryFormatVersion", v, "a repository format newer than the native engine knows")
	}
	for _, e := range cfg.entries {
		if e.section != "extensions" || e.subsection != "" {
			continue
		}
		val := strings.ToLower(strings.TrimSpace(e.value))
		switch e.key {
		case "worktreeconfig", "noop", "noop-v1", "preciousobjects":
		case "objectformat":
			if val != "sha1" {
				add("extensions.objectFormat", e.value, "objects are named by "+val+"; the native engine writes SHA-1 only")
			}
		case "compatobjectformat":
			add("extensions.compatObjectFormat", e.value, "git keeps a second object name for every object")
		case "refstorage":
			if val != "files" {
				add("extensions.refStorage", e.value, "refs live in "+val+", not in files the native engine can lock")
			}
		case "partialclone":
			add("extensions.partialClone", e.value, "objects may be missing until git fetches them from the promisor remote")
		default:
			add("extensions."+e.key, e.value, "an extension the native engine does not know")
		}
	}
	if v := cfg.value("core", "", "autocrlf"); isTrue(v) || strings.EqualFold(strings.TrimSpace(v), "input") {
		rs = append(rs, Reason{"core.autocrlf", v, "git converts line endings of text files between the working tree and the repository", "lines"})
	}
	if v := cfg.value("core", "", "eol"); strings.EqualFold(strings.TrimSpace(v), "crlf") {
		rs = append(rs, Reason{"core.eol", v, "git writes text files to the working tree with CRLF line endings", "lines"})
	}
	if v := cfg.value("core", "", "safecrlf"); v != "" && !strings.EqualFold(strings.TrimSpace(v), "false") {
		if isTrue(cfg.value("core", "", "autocrlf")) {
			add("core.safecrlf", v, "git checks line-ending conversions are reversible")
		}
	}
	if v := cfg.value("commit", "", "gpgsign"); isTrue(v) {
		add("commit.gpgSign", v, "git signs every commit ("+signFormat(cfg)+")")
	}
	if v := cfg.value("tag", "", "gpgsign"); isTrue(v) {
		add("tag.gpgSign", v, "git signs every annotated tag ("+signFormat(cfg)+")")
	}
	if v := cfg.value("core", "", "splitindex"); isTrue(v) {
		add("core.splitIndex", v, "the index is split in two files that git keeps in step")
	}
	if v := cfg.value("index", "", "sparse"); isTrue(v) {
		add("index.sparse", v, "the index holds whole folders outside the sparse-checkout cone")
	}
	if v := cfg.value("core", "", "sparsecheckout"); isTrue(v) {
		add("core.sparseCheckout", v, "git writes to the working tree only what the sparse-checkout patterns include")
	}
	if v := cfg.value("index", "", "skiphash"); isTrue(v) {
		add("index.skipHash", v, "the index ends without its checksum")
	}
	if v := cfg.value("feature", "", "manyfiles"); isTrue(v) {
		add("feature.manyFiles", v, "git writes index version 4 with a skipped checksum")
	}
	return rs
}

// signFormat names the signing format gpg.format chooses.
func signFormat(cfg *configSet) string {
	if f := strings.TrimSpace(cfg.value("gpg", "", "format")); f != "" {
		return f
	}
	return "openpgp"
}

// indexReasons looks at the index and its companions for forms the native
// engine cannot patch: a split index (a sharedindex file beside it).
func indexReasons(loc Location) []Reason {
	if loc.Root == "" {
		return nil
	}
	if m, _ := filepath.Glob(filepath.Join(loc.GitDir, "sharedindex.*")); len(m) > 0 {
		return []Reason{{Setting: "index", Value: "split", Why: "the index is split (" + filepath.Base(m[0]) + "); git keeps both parts in step"}}
	}
	return nil
}

// conversionAttrs are the attributes under which `git add` stores other
// bytes than the working tree holds, or `git checkout` writes other bytes
// than the repository holds.
var conversionAttrs = map[string]bool{"text": true, "eol": true, "crlf": true, "filter": true, "ident": true, "working-tree-encoding": true}

// attributeReasons reads every attributes file that can apply to the scope:
// core.attributesFile, info/attributes, the .gitattributes of the top, of
// each folder on the way to the scope and of every folder inside it. A line
// that sets a conversion attribute (text, eol, crlf, filter, ident,
// working-tree-encoding), or a macro that does, is a reason.
func attributeReasons(loc Location, cfg *configSet, scope string) []Reason {
	var files []string
	if p := cfg.value("core", "", "attributesfile"); p != "" {
		files = append(files, expandHome(p))
	} else if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
		files = append(files, filepath.Join(x, "git", "attributes"))
	} else if h := os.Getenv("HOME"); h != "" {
		files = append(files, filepath.Join(h, ".config", "git", "attributes"))
	}
	files = append(files, filepath.Join(loc.CommonDir, "info", "attributes"))
	files = append(files, filepath.Join(loc.Root, ".gitattributes"))
	scope = strings.Trim(path.Clean("/"+filepath.ToSlash(scope)), "/")
	if scope != "" {
		parts := strings.Split(scope, "/")
		for i := 1; i < len(parts); i++ {
			files = append(files, filepath.Join(loc.Root, filepath.FromSlash(strings.Join(parts[:i], "/")), ".gitattributes"))
		}
		base := filepath.Join(loc.Root, filepath.FromSlash(scope))
		_ = filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() && d.Name() == ".git" {
				return filepath.SkipDir
			}
			if !d.IsDir() && d.Name() == ".gitattributes" && d.Type().IsRegular() {
				files = append(files, p)
			}
			return nil
		})
	}
	var rs []Reason
	for _, f := range files {
		rs = append(rs, attributeFileReasons(loc, f)...)
	}
	return rs
}

// attributeFileReasons reads one attributes file for conversion attributes.
func attributeFileReasons(loc Location, file string) []Reason {
	fh, err := os.Open(file)
	if err != nil {
		return nil
	}
	defer fh.Close()
	name := file
	if loc.Root != "" {
		if rel, err := filepath.Rel(loc.Root, file); err == nil && !strings.HasPrefix(rel, "..") {
			name = filepath.ToSlash(rel)
		}
	}
	var rs []Reason
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 64*1024), 4<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		fields := strings.Fields(line)
		for _, tok := range fields[1:] {
			if tok == "" || tok[0] == '-' || tok[0] == '!' {
				continue
			}
			key, _, _ := strings.Cut(tok, "=")
			if conversionAttrs[key] {
				conv := "filters"
				if key == "text" || key == "eol" || key == "crlf" {
					conv = "lines"
				}
				rs = append(rs, Reason{Setting: fmt.Sprintf("%s:%d", name, n), Value: tok,
					Why: "git converts " + fields[0] + " between the working tree and the repository", conv: conv})
				break
			}
		}
	}
	return rs
}

// gitProgram finds the git program, or says why git is needed and missing.
func gitProgram() (string, error) {
	p, err := exec.LookPath("git")
	if err != nil {
		return "", fmt.Errorf("this repository needs git's own plumbing, but no `git` program is on PATH (%w); install git", err)
	}
	return p, nil
}
