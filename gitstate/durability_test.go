package gitstate

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestDurabilityFollowsGitConfig(t *testing.T) {
	cases := []struct {
		fsync, objectFiles string
		want               durability
	}{
		{"", "", durability{}},
		{"", "true", durability{objects: true}},
		{"committed", "", durability{objects: true, refs: true}},
		{"added", "", durability{objects: true, refs: true, index: true}},
		{"all,-index", "", durability{objects: true, refs: true}},
		{"loose-object, reference", "", durability{objects: true, refs: true}},
		{"index", "true", durability{index: true}},
		{"all,none", "", durability{}},
		{"pack,commit-graph", "", durability{}},
	}
	for _, c := range cases {
		cs := &configSet{}
		if c.fsync != "" {
			cs.entries = append(cs.entries, configEntry{section: "core", key: "fsync", value: c.fsync})
		}
		if c.objectFiles != "" {
			cs.entries = append(cs.entries, configEntry{section: "core", key: "fsyncobjectfiles", value: c.objectFiles})
		}
		assert.Equal(t, c.want, durabilityOf(cs), "core.fsync=%q core.fsyncObjectFiles=%q", c.fsync, c.objectFiles)
	}
}
