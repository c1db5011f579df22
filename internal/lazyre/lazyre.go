// Package lazyre holds regular expressions compiled on first use. A
// package-level regexp.MustCompile runs in every process that links the
// package, whether or not it ever matches anything: for a short command
// such as `itr checkpoint` the patterns of the parsers and printers it
// never calls were a measurable part of its start (issue #33). A Regexp
// here costs nothing until a method is called; then it compiles once,
// safely from any goroutine, and panics on a bad pattern as MustCompile
// does (the patterns are constants, checked by the packages' tests).
package lazyre

import (
	"regexp"
	"sync"
)

// Regexp is a regular expression compiled on its first use.
type Regexp struct {
	get func() *regexp.Regexp
}

// New returns the expression src, compiled when first used.
func New(src string) *Regexp {
	return &Regexp{get: sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(src) })}
}

// Of returns the expression build makes, called once, when first used.
func Of(build func() *regexp.Regexp) *Regexp {
	return &Regexp{get: sync.OnceValue(build)}
}

// Get returns the compiled expression.
func (r *Regexp) Get() *regexp.Regexp { return r.get() }

// MatchString is regexp.Regexp.MatchString.
func (r *Regexp) MatchString(s string) bool { return r.get().MatchString(s) }

// FindString is regexp.Regexp.FindString.
func (r *Regexp) FindString(s string) string { return r.get().FindString(s) }

// FindStringSubmatch is regexp.Regexp.FindStringSubmatch.
func (r *Regexp) FindStringSubmatch(s string) []string { return r.get().FindStringSubmatch(s) }

// FindStringSubmatchIndex is regexp.Regexp.FindStringSubmatchIndex.
func (r *Regexp) FindStringSubmatchIndex(s string) []int {
	return r.get().FindStringSubmatchIndex(s)
}

// FindAllStringSubmatchIndex is regexp.Regexp.FindAllStringSubmatchIndex.
func (r *Regexp) FindAllStringSubmatchIndex(s string, n int) [][]int {
	return r.get().FindAllStringSubmatchIndex(s, n)
}

// ReplaceAllString is regexp.Regexp.ReplaceAllString.
func (r *Regexp) ReplaceAllString(src, repl string) string {
	return r.get().ReplaceAllString(src, repl)
}

// ReplaceAllStringFunc is regexp.Regexp.ReplaceAllStringFunc.
func (r *Regexp) ReplaceAllStringFunc(src string, repl func(string) string) string {
	return r.get().ReplaceAllStringFunc(src, repl)
}
