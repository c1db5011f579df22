// Package claudeplugin holds the tests of the Claude Code plugin at the
// repository's top (.claude-plugin/, whose plugin.json carries the hook
// and the MCP server, and skills/): its manifests against the real Claude Code's own validator, and
// a session of the real client, against a local stand-in for the Messages
// API, that loads the plugin and carries its SessionStart hook's context,
// its skill and its MCP server's tools to the model. It has no code of its
// own.
package claudeplugin
