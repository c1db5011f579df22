// Package docscheck holds the tests that keep itr's documentation true to
// itself and to the code, as part of `make test`: every relative link and
// image in README.md and docs/ (the guide in docs/guide and the generated
// reference in docs/cli) names a file that exists, and a heading of it when
// the link has an #anchor; the MCP tools the server registers are the
// tools of the guide's tool table and of `itr mcp --help`, and every count
// of them the documentation states is their number; and every top-level
// command of itr has its line in the README's command list.
//
// The package has no code of its own: it is its tests.
package docscheck
