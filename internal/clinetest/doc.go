// Package clinetest holds the test of what itr setup cline writes against
// the real Cline CLI from npm: a headless task in a repository with an itr
// task, the model API pointed at a local stand-in for Anthropic's Messages
// API, shows which of itr's files Cline reads (the rule, the skill) and
// that it runs the TaskStart hook. It has no code of its own.
package clinetest
