//go:build tools

// Package tools pins the module's dependencies until code imports them.
package tools

import (
	_ "github.com/go-git/go-git/v5"
	_ "github.com/rogpeppe/go-internal/testscript"
	_ "github.com/sergi/go-diff/diffmatchpatch"
	_ "github.com/spf13/cobra"
	_ "github.com/stretchr/testify/require"
	_ "gopkg.in/yaml.v3"
)
