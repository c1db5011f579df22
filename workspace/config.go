package workspace

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

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
type Config struct {
	Root     string   `yaml:"root"`
	Mode     string   `yaml:"mode"`
	Identity Identity `yaml:"identity"`
}

// Identity overrides the author and committer of itr's commits.
type Identity struct {
	Name  string `yaml:"name"`
	Email string `yaml:"email"`
}

// LoadConfig reads .itr.yaml from the repository top; a missing file is
// the zero Config. Unknown keys and bad values are errors naming the line.
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
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil && !errors.Is(err, io.EOF) {
		return c, fmt.Errorf("%s: %w (keys: root, mode, identity.name, identity.email)", ConfigFile, err)
	}
	if c.Mode != "" && c.Mode != "development" && c.Mode != "knowledge" {
		return c, fmt.Errorf("%s: mode %q is not development or knowledge", ConfigFile, c.Mode)
	}
	if (c.Identity.Name == "") != (c.Identity.Email == "") {
		return c, fmt.Errorf("%s: identity needs both name and email", ConfigFile)
	}
	return c, nil
}
