package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/itr-dev/itr/internal/lazyre"
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
//	entry_field_limit: 64KiB    # the most bytes one field of a request (--did, a reason, a decision's why) may hold (default 64KiB)
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
	// EntryFieldLimit is the most bytes one text field of a request (a
	// did, a reason, a decision's why, a guardrail's lesson) may hold, so
	// that progress.md, the commit messages and every agent's reading of
	// them stay of a size people and agents read; 0 is
	// DefaultEntryFieldLimit.
	EntryFieldLimit int `yaml:"entry_field_limit"`
}

// DefaultEntryFieldLimit is the most bytes one field of a request may
// hold unless .itr.yaml says: far above a paragraph of notes, far below
// what would make progress.md unreadable in one go.
const DefaultEntryFieldLimit = 64 << 10

// FieldLimit is the most bytes one text field of a request may hold.
func (c Config) FieldLimit() int {
	if c.EntryFieldLimit > 0 {
		return c.EntryFieldLimit
	}
	return DefaultEntryFieldLimit
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
		return c, syntaxError(err)
	}
	if len(doc.Content) == 0 {
		return c, nil // empty file
	}
	top0 := doc.Content[0]
	if top0.Kind != yaml.MappingNode {
		return c, fmt.Errorf("%s:%d: expected keys such as `root: .claude/iterative`", ConfigFile, top0.Line)
	}
	err = c.decode(top0)
	return c, err
}

// syntaxError names the file, and the line when the YAML error gives one,
// in the error of a file that is not YAML.
func syntaxError(err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		return fmt.Errorf("%s:%s: %s", ConfigFile, m[1], strings.TrimSpace(m[2]))
	}
	return fmt.Errorf("%s: %s", ConfigFile, msg)
}

// decode sets c from the top mapping of .itr.yaml, key by key, stopping
// at the first key that is unknown, set twice or has a bad value; the
// keys before it stay set.
func (c *Config) decode(m *yaml.Node) error {
	seen := map[string]int{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if err := setOnce(seen, k); err != nil {
			return err
		}
		set, ok := configKeys[k.Value]
		if !ok {
			return configError(k, "unknown key %q (keys: root, mode, identity.name, identity.email, run_hooks, uncommitted_work, verify_timeout, stale_after, check_in_every, claims_remote, progress_token_limit, index, entry_field_limit)", k.Value)
		}
		if err := set(c, k, v); err != nil {
			return err
		}
	}
	return nil
}

// configKeys sets the field of each key of .itr.yaml from its value node,
// or says what is wrong with the value.
var configKeys = map[string]func(c *Config, k, v *yaml.Node) error{
	"root": func(c *Config, k, v *yaml.Node) (err error) {
		c.Root, err = configScalar(k, v)
		return err
	},
	"mode": func(c *Config, k, v *yaml.Node) (err error) {
		if c.Mode, err = configScalar(k, v); err != nil {
			return err
		}
		if c.Mode != "development" && c.Mode != "knowledge" {
			return configError(v, "mode %q is not development or knowledge", c.Mode)
		}
		return nil
	},
	"identity": func(c *Config, k, v *yaml.Node) error {
		return c.Identity.decode(k, v)
	},
	"run_hooks": func(c *Config, _, v *yaml.Node) error {
		if !isOneOf(v, "true", "false") {
			return configError(v, "run_hooks is true or false")
		}
		c.RunHooks = v.Value == "true"
		return nil
	},
	"uncommitted_work": func(c *Config, _, v *yaml.Node) error {
		if !isOneOf(v, "warn", "refuse") {
			return configError(v, "uncommitted_work is warn or refuse")
		}
		c.UncommittedWork = v.Value
		return nil
	},
	"verify_timeout": func(c *Config, _, v *yaml.Node) error {
		d, ok := positiveDuration(v)
		if !ok {
			return configError(v, "verify_timeout %q is not a duration such as 10m or 90s", v.Value)
		}
		c.VerifyTimeout = d
		return nil
	},
	"stale_after": func(c *Config, _, v *yaml.Node) error {
		d, ok := positiveDuration(v)
		if !ok {
			return configError(v, "stale_after %q is not a duration such as 1h or 30m", v.Value)
		}
		c.StaleAfter = d
		return nil
	},
	"check_in_every": func(c *Config, _, v *yaml.Node) error {
		n, ok := positiveInt(v)
		if !ok {
			return configError(v, "check_in_every %q is not a positive whole number of iterations", v.Value)
		}
		c.CheckInEvery = n
		return nil
	},
	"claims_remote": func(c *Config, _, v *yaml.Node) error {
		if !isRemoteName(v) {
			return configError(v, "claims_remote %q is not a remote's name (such as origin) or none", v.Value)
		}
		c.ClaimsRemote = v.Value
		return nil
	},
	"index": func(c *Config, _, v *yaml.Node) error {
		if !isOneOf(v, "true", "false") {
			return configError(v, "index is true (keep <root>/INDEX.md in step) or false, not %q", v.Value)
		}
		c.Index = v.Value == "true"
		return nil
	},
	"entry_field_limit": func(c *Config, _, v *yaml.Node) error {
		n, ok := byteSize(v)
		if !ok {
			return configError(v, "entry_field_limit %q is not a size in bytes above zero (such as 65536, 64KiB or 1MiB)", v.Value)
		}
		c.EntryFieldLimit = n
		return nil
	},
	"progress_token_limit": func(c *Config, _, v *yaml.Node) error {
		n, ok := positiveInt(v)
		if !ok {
			return configError(v, "progress_token_limit %q is not a positive whole number of tokens (such as 20000)", v.Value)
		}
		c.ProgressTokenLimit = n
		return nil
	},
}

// decode sets id from the identity mapping (key k, value v): name and
// email, both or neither.
func (id *Identity) decode(k, v *yaml.Node) error {
	if v.Kind != yaml.MappingNode {
		return configError(v, "identity holds name and email")
	}
	seen := map[string]int{}
	for j := 0; j+1 < len(v.Content); j += 2 {
		ik, iv := v.Content[j], v.Content[j+1]
		if err := setOnce(seen, ik); err != nil {
			return err
		}
		var err error
		switch ik.Value {
		case "name":
			id.Name, err = configScalar(ik, iv)
		case "email":
			id.Email, err = configScalar(ik, iv)
		default:
			err = configError(ik, "unknown key %q under identity (keys: name, email)", ik.Value)
		}
		if err != nil {
			return err
		}
	}
	if (id.Name == "") != (id.Email == "") {
		return configError(k, "identity needs both name and email")
	}
	return nil
}

// configError is an error about node n of .itr.yaml, naming the file and
// the node's line.
func configError(n *yaml.Node, format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", ConfigFile, n.Line, fmt.Sprintf(format, args...))
}

// configScalar is the value v of key k, which must be a single value.
func configScalar(k, v *yaml.Node) (string, error) {
	if v.Kind != yaml.ScalarNode {
		return "", configError(v, "%s must be a single value", k.Value)
	}
	return v.Value, nil
}

// setOnce records the line of key k in seen, or says where k was set
// before.
func setOnce(seen map[string]int, k *yaml.Node) error {
	if first, ok := seen[k.Value]; ok {
		return configError(k, "%s is set twice (first on line %d); keep one", k.Value, first)
	}
	seen[k.Value] = k.Line
	return nil
}

// isOneOf reports whether v is a single value that is one of values.
func isOneOf(v *yaml.Node, values ...string) bool {
	return v.Kind == yaml.ScalarNode && slices.Contains(values, v.Value)
}

// positiveDuration reads v as a duration above zero, such as 10m.
func positiveDuration(v *yaml.Node) (time.Duration, bool) {
	d, err := time.ParseDuration(v.Value)
	return d, v.Kind == yaml.ScalarNode && err == nil && d > 0
}

// byteSize reads v as a size in bytes above zero: a whole number, or one
// followed by KiB or MiB (of 1024 and 1024*1024 bytes), up to 1 GiB.
func byteSize(v *yaml.Node) (int, bool) {
	text, unit := v.Value, 1
	for suffix, n := range map[string]int{"KiB": 1 << 10, "MiB": 1 << 20} {
		if t, ok := strings.CutSuffix(v.Value, suffix); ok {
			text, unit = strings.TrimSpace(t), n
		}
	}
	n, err := strconv.Atoi(text)
	if v.Kind != yaml.ScalarNode || err != nil || n <= 0 || n > (1<<30)/unit {
		return 0, false
	}
	return n * unit, true
}

// positiveInt reads v as a whole number above zero.
func positiveInt(v *yaml.Node) (int, bool) {
	n, err := strconv.Atoi(v.Value)
	return n, v.Kind == yaml.ScalarNode && err == nil && n > 0
}

// isRemoteName reports whether v can be the name of a git remote: one
// non-empty word without slashes or colons that does not start with "-".
func isRemoteName(v *yaml.Node) bool {
	return v.Kind == yaml.ScalarNode && v.Value != "" && !strings.ContainsAny(v.Value, " \t\n/:\\") && !strings.HasPrefix(v.Value, "-")
}

var yamlLine = lazyre.New(`^line (\d+): (.*)$`)
