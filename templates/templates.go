// Package templates holds the embedded files of a new task, in the shapes
// of the seed: brief.md, tasks.md (development) or plan.md (knowledge),
// context.md, progress.md, guardrails.md and state.json.
package templates

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"sync"
	"text/template"
)

//go:embed files/*.tmpl
var files embed.FS

// all parses the templates on first use, so commands that never start a
// task do not pay for it at start-up.
var all = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("").Funcs(template.FuncMap{
		"json": func(v any) (string, error) {
			var b bytes.Buffer
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(v); err != nil {
				return "", err
			}
			return string(bytes.TrimRight(b.Bytes(), "\n")), nil
		},
	}).ParseFS(files, "files/*.tmpl"))
})

// Data fills the templates.
type Data struct {
	Name    string // the task's name, e.g. "User authentication"
	Slug    string // its folder name
	Created string // RFC 3339 time in UTC
	Mode    string // "development" or "knowledge"
	Domain  string // optional: feature, bug, research, ...
}

// DomainOr returns the domain, or placeholder when none was given.
func (d Data) DomainOr(placeholder string) string {
	if d.Domain != "" {
		return d.Domain
	}
	return placeholder
}

// File is one rendered file of a new task.
type File struct {
	Name string // relative to the task folder
	Data []byte
}

// Task renders every file of a new task in the mode d.Mode, in the order
// they are listed in the seed.
func Task(d Data) ([]File, error) {
	var names []string
	switch d.Mode {
	case "development":
		names = []string{"state.json:state-development.json", "brief.md", "tasks.md", "context.md", "progress.md", "guardrails.md"}
	case "knowledge":
		names = []string{"state.json:state-knowledge.json", "brief.md", "plan.md", "context.md", "progress.md", "guardrails.md"}
	default:
		return nil, fmt.Errorf("mode %q is not development or knowledge", d.Mode)
	}
	out := make([]File, 0, len(names))
	for _, n := range names {
		name, tmpl := n, n
		if i := bytes.IndexByte([]byte(n), ':'); i >= 0 {
			name, tmpl = n[:i], n[i+1:]
		}
		data, err := Render(tmpl, d)
		if err != nil {
			return nil, err
		}
		out = append(out, File{Name: name, Data: data})
	}
	return out, nil
}

// Render renders one template by its file name without ".tmpl", such as
// "brief.md" or "state-knowledge.json".
func Render(name string, d Data) ([]byte, error) {
	var b bytes.Buffer
	if err := all().ExecuteTemplate(&b, name+".tmpl", d); err != nil {
		return nil, fmt.Errorf("render template %s: %w", name, err)
	}
	return b.Bytes(), nil
}
