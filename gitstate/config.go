package gitstate

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// maxIncludeDepth is git's limit on nested include.path / includeIf.
const maxIncludeDepth = 10

// configEntry is one "section.subsection.key = value" in reading order.
// Section and key are lower case; the subsection keeps its case.
type configEntry struct {
	section, subsection, key, value string
}

// configSet is the ordered union of config files; later entries win.
type configSet struct {
	entries []configEntry
}

// configContext is what includeIf conditions are evaluated against.
type configContext struct {
	gitDir string     // absolute git dir ("" when unknown: no gitdir: match)
	branch string     // short branch name ("" when detached or unknown)
	files  *procCache // reads each file once per process (nil: every time)
}

// value returns the last value of the key, or "".
func (c *configSet) value(section, subsection, key string) string {
	v, _ := c.lookup(section, subsection, key)
	return v
}

// lookup returns the last value of the key and whether it is set.
func (c *configSet) lookup(section, subsection, key string) (string, bool) {
	for i := len(c.entries) - 1; i >= 0; i-- {
		e := c.entries[i]
		if e.section == section && e.subsection == subsection && e.key == key {
			return e.value, true
		}
	}
	return "", false
}

// readFile parses one config file, following include.path and includeIf
// in place, as git does. A missing file is skipped unless required.
func (c *configSet) readFile(path string, ctx configContext, depth int, required bool) error {
	if depth > maxIncludeDepth {
		return fmt.Errorf("%s: include depth exceeds %d; look for an include cycle", path, maxIncludeDepth)
	}
	data, err := ctx.files.readFile(path)
	if err != nil {
		if !required && (os.IsNotExist(err) || os.IsPermission(err) || isDirErr(path)) {
			return nil // git skips config files it cannot read
		}
		return fmt.Errorf("read git config %s: %w", path, err)
	}
	err = parseConfig(data, func(section, subsection, key, value string) error {
		switch {
		case section == "include" && subsection == "" && key == "path":
			return c.include(path, value, ctx, depth)
		case section == "includeif":
			if key == "path" && includeIfMatches(subsection, path, ctx) {
				return c.include(path, value, ctx, depth)
			}
			return nil
		}
		c.entries = append(c.entries, configEntry{section: section, subsection: subsection, key: key, value: value})
		return nil
	})
	var perr *configSyntaxError
	if errors.As(err, &perr) {
		return fmt.Errorf("parse git config %s: %w; fix the file with `git config --edit --file %s`", path, err, path)
	}
	return err
}

// include reads an included file; relative paths are relative to the
// including file.
func (c *configSet) include(from, target string, ctx configContext, depth int) error {
	if target == "" {
		return nil
	}
	p := expandHome(target)
	if !filepath.IsAbs(p) {
		p = filepath.Join(filepath.Dir(from), p)
	}
	return c.readFile(p, ctx, depth+1, false)
}

// expandHome expands a leading "~/" with $HOME.
func expandHome(p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		return filepath.Join(os.Getenv("HOME"), rest)
	}
	return p
}

// includeIfMatches evaluates an includeIf condition ("gitdir:", "gitdir/i:",
// "onbranch:"); unknown conditions never match, as in git.
func includeIfMatches(cond, from string, ctx configContext) bool {
	switch {
	case strings.HasPrefix(cond, "gitdir:"):
		return gitdirMatches(strings.TrimPrefix(cond, "gitdir:"), from, ctx.gitDir, false)
	case strings.HasPrefix(cond, "gitdir/i:"):
		return gitdirMatches(strings.TrimPrefix(cond, "gitdir/i:"), from, ctx.gitDir, true)
	case strings.HasPrefix(cond, "onbranch:"):
		if ctx.branch == "" {
			return false
		}
		pat := strings.TrimPrefix(cond, "onbranch:")
		if strings.HasSuffix(pat, "/") {
			pat += "**"
		}
		return wildmatch(pat, ctx.branch, false)
	}
	return false
}

// gitdirMatches implements git's includeIf "gitdir:" pattern rules.
func gitdirMatches(pat, from, gitDir string, fold bool) bool {
	if gitDir == "" || pat == "" {
		return false
	}
	switch {
	case strings.HasPrefix(pat, "~/"):
		pat = filepath.ToSlash(expandHome(pat))
	case strings.HasPrefix(pat, "./"):
		pat = filepath.ToSlash(filepath.Dir(from)) + pat[1:]
	}
	if !strings.HasPrefix(pat, "/") {
		pat = "**/" + pat
	}
	if strings.HasSuffix(pat, "/") {
		pat += "**"
	}
	candidates := []string{filepath.ToSlash(gitDir)}
	if real, err := filepath.EvalSymlinks(gitDir); err == nil && real != gitDir {
		candidates = append(candidates, filepath.ToSlash(real))
	}
	for _, text := range candidates {
		if wildmatch(pat, text, fold) {
			return true
		}
	}
	return false
}

// wildmatch matches text against a git wildmatch pattern with WM_PATHNAME:
// "*" and "?" stop at "/", "**" between slashes crosses folders.
func wildmatch(pat, text string, fold bool) bool {
	if fold {
		pat, text = strings.ToLower(pat), strings.ToLower(text)
	}
	return wm(pat, text, true)
}

// wm is wildmatch's matcher: atSegStart tells whether t starts a path
// segment (where "**/" may match folders).
func wm(p, t string, atSegStart bool) bool {
	for len(p) > 0 {
		c := p[0]
		switch c {
		case '*':
			return wmStar(p, t, atSegStart)
		case '?':
			if len(t) == 0 || t[0] == '/' {
				return false
			}
			p, t = p[1:], t[1:]
		case '[':
			end := strings.IndexByte(p[1:], ']')
			if end < 0 || len(t) == 0 || t[0] == '/' {
				if len(t) == 0 || t[0] != '[' {
					return false
				}
				p, t = p[1:], t[1:]
				continue
			}
			if !wmClass(p[1:1+end], t[0]) {
				return false
			}
			p, t = p[2+end:], t[1:]
		case '\\':
			if len(p) > 1 {
				p = p[1:]
			}
			fallthrough
		default:
			if len(t) == 0 || t[0] != p[0] {
				return false
			}
			atSegStart = p[0] == '/'
			p, t = p[1:], t[1:]
			continue
		}
		atSegStart = false
	}
	return len(t) == 0
}

// wmStar matches t against a pattern p that starts with "*": "**" as a
// whole segment matches any folders, other stars anything within one
// segment.
func wmStar(p, t string, atSegStart bool) bool {
	if strings.HasPrefix(p, "**") && atSegStart && (len(p) == 2 || p[2] == '/') {
		return wmFolders(p, t)
	}
	for len(p) > 0 && p[0] == '*' {
		p = p[1:]
	}
	for i := 0; i <= len(t); i++ {
		if wm(p, t[i:], false) {
			return true
		}
		if i < len(t) && t[i] == '/' {
			return false
		}
	}
	return false
}

// wmFolders matches t against a pattern p that starts with the segment
// "**": the rest of p must match t from its start or after one of its
// slashes; "**" alone matches everything.
func wmFolders(p, t string) bool {
	if len(p) == 2 {
		return true
	}
	rest := p[3:]
	for i := 0; ; {
		if wm(rest, t[i:], true) {
			return true
		}
		j := strings.IndexByte(t[i:], '/')
		if j < 0 {
			return false
		}
		i += j + 1
	}
}

// wmClass reports whether the bracket class (what is between "[" and "]")
// matches c: ranges "a-z", negated by a leading "!" or "^".
func wmClass(class string, c byte) bool {
	neg := false
	if len(class) > 0 && (class[0] == '!' || class[0] == '^') {
		neg, class = true, class[1:]
	}
	hit := false
	for i := 0; i < len(class); i++ {
		if i+2 < len(class) && class[i+1] == '-' {
			if class[i] <= c && c <= class[i+2] {
				hit = true
			}
			i += 2
		} else if class[i] == c {
			hit = true
		}
	}
	return hit != neg
}

// loadConfig reads the whole config stack as git does: system, global,
// repository, worktree, then GIT_CONFIG_COUNT pairs.
func (r *Repo) loadConfig(branch string) (*configSet, error) {
	cs := &configSet{}
	ctx := configContext{gitDir: r.gitDir, branch: strings.TrimPrefix(branch, "refs/heads/"), files: r.cache}
	if !isTrue(os.Getenv("GIT_CONFIG_NOSYSTEM")) {
		sys := "/etc/gitconfig"
		if v, ok := os.LookupEnv("GIT_CONFIG_SYSTEM"); ok {
			sys = v
		}
		if err := cs.readFile(sys, ctx, 0, false); err != nil {
			return nil, err
		}
	}
	if v, ok := os.LookupEnv("GIT_CONFIG_GLOBAL"); ok {
		if err := cs.readFile(v, ctx, 0, false); err != nil {
			return nil, err
		}
	} else {
		home := os.Getenv("HOME")
		xdg := os.Getenv("XDG_CONFIG_HOME")
		if xdg != "" {
			xdg = filepath.Join(xdg, "git", "config")
		} else if home != "" {
			xdg = filepath.Join(home, ".config", "git", "config")
		}
		if xdg != "" {
			if err := cs.readFile(xdg, ctx, 0, false); err != nil {
				return nil, err
			}
		}
		if home != "" {
			if err := cs.readFile(filepath.Join(home, ".gitconfig"), ctx, 0, false); err != nil {
				return nil, err
			}
		}
	}
	if err := cs.readFile(filepath.Join(r.commonDir, "config"), ctx, 0, false); err != nil {
		return nil, err
	}
	if r.wtConfig {
		if err := cs.readFile(filepath.Join(r.gitDir, "config.worktree"), ctx, 0, false); err != nil {
			return nil, err
		}
	}
	if n := os.Getenv("GIT_CONFIG_COUNT"); n != "" {
		count, err := strconv.Atoi(n)
		if err != nil || count < 0 {
			return nil, fmt.Errorf("GIT_CONFIG_COUNT=%q is not a number; unset it or set it to the number of GIT_CONFIG_KEY_n variables", n)
		}
		for i := 0; i < count; i++ {
			key, ok := os.LookupEnv("GIT_CONFIG_KEY_" + strconv.Itoa(i))
			if !ok {
				return nil, fmt.Errorf("GIT_CONFIG_KEY_%d is missing while GIT_CONFIG_COUNT=%d; set it or lower the count", i, count)
			}
			val, ok := os.LookupEnv("GIT_CONFIG_VALUE_" + strconv.Itoa(i))
			if !ok {
				return nil, fmt.Errorf("GIT_CONFIG_VALUE_%d is missing while GIT_CONFIG_COUNT=%d; set it or lower the count", i, count)
			}
			if e, ok := splitConfigKey(key); ok {
				e.value = val
				cs.entries = append(cs.entries, e)
			}
		}
	}
	return cs, nil
}

// splitConfigKey splits "section.sub.section.key" into its parts.
func splitConfigKey(k string) (configEntry, bool) {
	first := strings.IndexByte(k, '.')
	last := strings.LastIndexByte(k, '.')
	if first <= 0 || last == len(k)-1 {
		return configEntry{}, false
	}
	e := configEntry{section: strings.ToLower(k[:first]), key: strings.ToLower(k[last+1:])}
	if first != last {
		e.subsection = k[first+1 : last]
	}
	return e, true
}

// noIdentityError is the error returned when git would not know who commits.
func noIdentityError(which string) error {
	return fmt.Errorf("%w: no git identity (%s): set it with git config --global user.name \"Your Name\" and git config --global user.email you@example.com (or GIT_AUTHOR_NAME/GIT_AUTHOR_EMAIL)", ErrNoIdentity, which)
}

// Author returns the author identity as `git var GIT_AUTHOR_IDENT` resolves
// it, at time now. It returns an error wrapping ErrNoIdentity when the name or
// the email is not configured.
func (r *Repo) Author(now time.Time) (Signature, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	cs, err := r.loadConfig(r.currentBranch())
	if err != nil {
		return Signature{}, err
	}
	return identity(cs, "author", now)
}

// Committer returns the committer identity as `git var GIT_COMMITTER_IDENT`
// resolves it, at time now. It returns an error wrapping ErrNoIdentity when
// the name or the email is not configured.
func (r *Repo) Committer(now time.Time) (Signature, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	cs, err := r.loadConfig(r.currentBranch())
	if err != nil {
		return Signature{}, err
	}
	return identity(cs, "committer", now)
}

// identity resolves "author" or "committer" with git's precedence.
func identity(cs *configSet, role string, now time.Time) (Signature, error) {
	env := strings.ToUpper(role)
	name, ok := os.LookupEnv("GIT_" + env + "_NAME")
	if !ok {
		if name, ok = cs.lookup(role, "", "name"); !ok {
			name, ok = cs.lookup("user", "", "name")
		}
	}
	name = stripCrud(name)
	if !ok || name == "" {
		return Signature{}, noIdentityError(role + " name")
	}
	email, ok := os.LookupEnv("GIT_" + env + "_EMAIL")
	if !ok {
		if email, ok = cs.lookup(role, "", "email"); !ok {
			if email, ok = cs.lookup("user", "", "email"); !ok {
				email, ok = os.LookupEnv("EMAIL")
			}
		}
	}
	email = stripCrud(email)
	if !ok {
		return Signature{}, noIdentityError(role + " email")
	}
	if now.IsZero() {
		now = time.Now()
	}
	return Signature{Name: name, Email: email, When: now}, nil
}

// crud reports the characters git strips from both ends of a name or email.
func crud(c byte) bool {
	return c <= 32 || c == '.' || c == ',' || c == ':' || c == ';' || c == '<' || c == '>' || c == '"' || c == '\\' || c == '\''
}

// stripCrud does what git's strbuf_addstr_without_crud does: trim crud from
// both ends and drop '<', '>' and newlines inside.
func stripCrud(s string) string {
	for len(s) > 0 && crud(s[0]) {
		s = s[1:]
	}
	for len(s) > 0 && crud(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	if !strings.ContainsAny(s, "<>\n") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '<' || s[i] == '>' || s[i] == '\n' {
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// configFor is the configuration stack as seen on branch, under the
// repository's lock.
func (r *Repo) configFor(branch string) (*configSet, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.loadConfig(branch)
}
