package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// ConfigFile is the optional settings file at the repository top.
const ConfigFile = ".itr.yaml"

// Config is the content of .itr.yaml:
//
//	root: .claude/iterative     # where tasks live
//	mode: development           # the default mode of itr init
//	identity:                   # who itr's commits are by, instead of git's identity
//	  name: Build Agent
//	  email: agent@example.com
//	run_hooks: true             # itr's commits run the repository's commit hooks
//	uncommitted_work: refuse    # --signal/--verified with uncommitted work: warn (default) or refuse
//	verify_timeout: 10m         # how long a verification run may take (default 10m)
//	stale_after: 1h             # a started unit with no checkpoint this long is stale (default 1h)
//	check_in_every: 10          # prime asks for a note every N iterations (default: the plan's, else never)
//	claims_remote: origin       # the remote claims go through (default: the branch's; none: this repository only)
//	progress_token_limit: 20000 # status and prime warn when progress.md since its last Summary passes this many tokens (4 characters each)
//	index: true                 # keep <root>/INDEX.md, the table of every task, in step (default false)
type Config struct {
	Root     string   `yaml:"root"`
	Mode     string   `yaml:"mode"`
	Identity Identity `yaml:"identity"`
	// RunHooks runs the repository's pre-commit, prepare-commit-msg,
	// commit-msg and post-commit hooks around itr's commits, as `git
	// commit` runs them; by default itr's commits run none, as `git
	// commit-tree` runs none.
	RunHooks bool `yaml:"run_hooks"`
	// UncommittedWork is what a checkpoint that declares work done
	// (--signal, --verified, MCP finish) does while work files outside
	// the task folder are not committed: "warn" (the default, "") names
	// them; "refuse" records nothing.
	UncommittedWork string `yaml:"uncommitted_work"`
	// VerifyTimeout is how long a verification run (checkpoint --verify)
	// may take before it is stopped and recorded as timed out; 0 is the
	// default, DefaultVerifyTimeout.
	VerifyTimeout time.Duration `yaml:"verify_timeout"`
	// StaleAfter is how long a started unit may go without a checkpoint
	// before status and prime call it stale; 0 is DefaultStaleAfter.
	StaleAfter time.Duration `yaml:"stale_after"`
	// CheckInEvery asks, every N iterations, for a note (itr note) before
	// going on; 0 leaves it to the plan's "Check in every" line.
	CheckInEvery int `yaml:"check_in_every"`
	// ClaimsRemote is the remote claims go through, so agents in every
	// clone see them: "" is the branch's remote (or the only one, or
	// origin); "none" keeps claims in this repository's worktrees.
	ClaimsRemote string `yaml:"claims_remote"`
	// ProgressTokenLimit is the size of progress.md, in tokens of
	// progresslog.CharsPerToken characters, past which status and prime
	// ask for a summary (itr summarize); measured from the last Summary
	// entry on. 0 is DefaultProgressTokenLimit.
	ProgressTokenLimit int `yaml:"progress_token_limit"`
	// Index keeps <root>/INDEX.md, a table of every task (seed 000's
	// master table), in step: each itr commit rewrites the row of the task
	// it changes.
	Index bool `yaml:"index"`
}

// DefaultProgressTokenLimit is the size of progress.md (since its last
// Summary entry) that status and prime warn about, unless .itr.yaml says:
// a log an agent can still read in one go (seed 001's 25,000-token read
// limit, with room to spare).
const DefaultProgressTokenLimit = 20000

// TokenLimit is the size of progress.md, in tokens, past which status and
// prime ask for a summary.
func (c Config) TokenLimit() int {
	if c.ProgressTokenLimit > 0 {
		return c.ProgressTokenLimit
	}
	return DefaultProgressTokenLimit
}

// DefaultStaleAfter is when a started unit with no checkpoint is stale,
// unless .itr.yaml says (seed 004: under an hour reads as a pause).
const DefaultStaleAfter = time.Hour

// Stale is the time after which a started unit is stale.
func (c Config) Stale() time.Duration {
	if c.StaleAfter > 0 {
		return c.StaleAfter
	}
	return DefaultStaleAfter
}

// DefaultVerifyTimeout is how long a verification run may take when
// .itr.yaml does not say.
const DefaultVerifyTimeout = 10 * time.Minute

// Timeout is the verification runs' time limit.
func (c Config) Timeout() time.Duration {
	if c.VerifyTimeout > 0 {
		return c.VerifyTimeout
	}
	return DefaultVerifyTimeout
}

// Identity overrides the author and committer of itr's commits.
type Identity struct {
	Name  string `yaml:"name"`
	Email string `yaml:"email"`
}

// LoadConfig reads .itr.yaml from the repository top; a missing file is
// the zero Config. Syntax errors, unknown keys and bad values are errors
// that name the file and the line: `.itr.yaml:3: unknown key "colour"`.
func LoadConfig(top string) (Config, error) {
	var c Config
	p := filepath.Join(top, ConfigFile)
	data, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, fmt.Errorf("read %s: %w", ConfigFile, err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		if m := yamlLine.FindStringSubmatch(msg); m != nil {
			return c, fmt.Errorf("%s:%s: %s", ConfigFile, m[1], strings.TrimSpace(m[2]))
		}
		return c, fmt.Errorf("%s: %s", ConfigFile, msg)
	}
	if len(doc.Content) == 0 {
		return c, nil // empty file
	}
	top0 := doc.Content[0]
	if top0.Kind != yaml.MappingNode {
		return c, fmt.Errorf("%s:%d: expected keys such as `root: .claude/iterative`", ConfigFile, top0.Line)
	}
	bad := func(n *yaml.Node, format string, args ...any) error {
		return fmt.Errorf("%s:%d: %s", ConfigFile, n.Line, fmt.Sprintf(format, args...))
	}
	str := func(k, v *yaml.Node) (string, error) {
		if v.Kind != yaml.ScalarNode {
			return "", bad(v, "%s must be a single value", k.Value)
		}
		return v.Value, nil
	}
	twice := func(seen map[string]int, k *yaml.Node) error {
		if first, ok := seen[k.Value]; ok {
			return bad(k, "%s is set twice (first on line %d); keep one", k.Value, first)
		}
		seen[k.Value] = k.Line
		return nil
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(top0.Content); i += 2 {
		k, v := top0.Content[i], top0.Content[i+1]
		if err := twice(seen, k); err != nil {
			return c, err
		}
		switch k.Value {
		case "root":
			if c.Root, err = str(k, v); err != nil {
				return c, err
			}
		case "mode":
			if c.Mode, err = str(k, v); err != nil {
				return c, err
			}
			if c.Mode != "development" && c.Mode != "knowledge" {
				return c, bad(v, "mode %q is not development or knowledge", c.Mode)
			}
		case "identity":
			if v.Kind != yaml.MappingNode {
				return c, bad(v, "identity holds name and email")
			}
			inner := map[string]int{}
			for j := 0; j+1 < len(v.Content); j += 2 {
				ik, iv := v.Content[j], v.Content[j+1]
				if err := twice(inner, ik); err != nil {
					return c, err
				}
				switch ik.Value {
				case "name":
					if c.Identity.Name, err = str(ik, iv); err != nil {
						return c, err
					}
				case "email":
					if c.Identity.Email, err = str(ik, iv); err != nil {
						return c, err
					}
				default:
					return c, bad(ik, "unknown key %q under identity (keys: name, email)", ik.Value)
				}
			}
			if (c.Identity.Name == "") != (c.Identity.Email == "") {
				return c, bad(k, "identity needs both name and email")
			}
		case "run_hooks":
			if v.Kind != yaml.ScalarNode || (v.Value != "true" && v.Value != "false") {
				return c, bad(v, "run_hooks is true or false")
			}
			c.RunHooks = v.Value == "true"
		case "uncommitted_work":
			if v.Kind != yaml.ScalarNode || (v.Value != "warn" && v.Value != "refuse") {
				return c, bad(v, "uncommitted_work is warn or refuse")
			}
			c.UncommittedWork = v.Value
		case "verify_timeout":
			d, err := time.ParseDuration(v.Value)
			if v.Kind != yaml.ScalarNode || err != nil || d <= 0 {
				return c, bad(v, "verify_timeout %q is not a duration such as 10m or 90s", v.Value)
			}
			c.VerifyTimeout = d
		case "stale_after":
			d, err := time.ParseDuration(v.Value)
			if v.Kind != yaml.ScalarNode || err != nil || d <= 0 {
				return c, bad(v, "stale_after %q is not a duration such as 1h or 30m", v.Value)
			}
			c.StaleAfter = d
		case "check_in_every":
			n, err := strconv.Atoi(v.Value)
			if v.Kind != yaml.ScalarNode || err != nil || n <= 0 {
				return c, bad(v, "check_in_every %q is not a positive whole number of iterations", v.Value)
			}
			c.CheckInEvery = n
		case "claims_remote":
			if v.Kind != yaml.ScalarNode || v.Value == "" || strings.ContainsAny(v.Value, " \t\n/:\\") || strings.HasPrefix(v.Value, "-") {
				return c, bad(v, "claims_remote %q is not a remote's name (such as origin) or none", v.Value)
			}
			c.ClaimsRemote = v.Value
		case "index":
			if v.Kind != yaml.ScalarNode || (v.Value != "true" && v.Value != "false") {
				return c, bad(v, "index is true (keep <root>/INDEX.md in step) or false, not %q", v.Value)
			}
			c.Index = v.Value == "true"
		case "progress_token_limit":
			n, err := strconv.Atoi(v.Value)
			if v.Kind != yaml.ScalarNode || err != nil || n <= 0 {
				return c, bad(v, "progress_token_limit %q is not a positive whole number of tokens (such as 20000)", v.Value)
			}
			c.ProgressTokenLimit = n
		default:
			return c, bad(k, "unknown key %q (keys: root, mode, identity.name, identity.email, run_hooks, uncommitted_work, verify_timeout, stale_after, check_in_every, claims_remote, progress_token_limit, index)", k.Value)
		}
	}
	return c, nil
}

var yamlLine = regexp.MustCompile(`^line (\d+): (.*)$`)
