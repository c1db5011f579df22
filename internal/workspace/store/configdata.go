package store

import (
	"fmt"

	"gopkg.in/yaml.v3"
)

// ParseConfig reads the text of a .itr.yaml that is not on disk, such as
// one a push brings to a server (name says where it is, for errors); the
// rules and the errors are LoadConfig's.
func ParseConfig(name string, data []byte) (Config, error) {
	var c Config
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return c, fmt.Errorf("%s: %w", name, syntaxError(err))
	}
	if len(doc.Content) == 0 {
		return c, nil
	}
	top := doc.Content[0]
	if top.Kind != yaml.MappingNode {
		return c, fmt.Errorf("%s:%d: expected keys such as `root: .claude/iterative`", name, top.Line)
	}
	if err := c.decode(top); err != nil {
		return c, fmt.Errorf("%s: %w", name, err)
	}
	return c, nil
}
