// Package skills carries the skills itr ships: the folders beside this file
// are the Claude Code plugin's skills (skills/<name>/SKILL.md with its
// references/), and FS embeds them so that itr setup writes the same bytes
// for other agents.
package skills

import "embed"

// Loop is the name of the skill that teaches the iterative loop: its
// folder, and the name in its SKILL.md front matter.
const Loop = "itr-loop"

// FS holds every skill's files, under the skill's folder name.
//
//go:embed itr-loop
var FS embed.FS
