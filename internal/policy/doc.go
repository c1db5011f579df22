// Package policy holds no code: its test states the import policy of the
// module, in the manner of Go's go/build/deps_test.go.
package policy
