package gitstate

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// SetConfigSection makes the repository's config hold exactly the given
// keys in section [name "sub"], written through config.lock as git does.
// Every other line of the file, comments included, stays as it was; an
// existing section of that name is replaced in place. It reports whether
// the file changed. Values must not hold newlines.
func (r *Repo) SetConfigSection(name, sub string, keys [][2]string) (bool, error) {
	return r.editConfigSection(name, sub, keys)
}

// RemoveConfigSection removes section [name "sub"] from the repository's
// config; it reports whether it was there.
func (r *Repo) RemoveConfigSection(name, sub string) (bool, error) {
	return r.editConfigSection(name, sub, nil)
}

// ConfigSection returns the keys of [name "sub"] in the repository's own
// config file, in order, or nil when the section is absent.
func (r *Repo) ConfigSection(name, sub string) ([][2]string, error) {
	path := filepath.Join(r.commonDir, "config")
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	// Values as git reads them: quotes, escapes and comments resolved.
	var out [][2]string
	err = parseConfig(data, func(section, subsection, key, value string) error {
		if section == strings.ToLower(name) && subsection == sub {
			out = append(out, [2]string{key, value})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

func (r *Repo) editConfigSection(name, sub string, keys [][2]string) (bool, error) {
	for _, kv := range keys {
		if strings.ContainsAny(kv[0]+kv[1], "\n\r") {
			return false, fmt.Errorf("config %s.%s.%s: a value cannot hold a newline", name, sub, kv[0])
		}
	}
	path := filepath.Join(r.commonDir, "config")
	lock, err := r.acquireLock(path)
	if err != nil {
		return false, err
	}
	defer lock.rollback()
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return false, fmt.Errorf("read %s: %w", path, err)
	}
	var section bytes.Buffer
	if keys != nil {
		fmt.Fprintf(&section, "[%s %q]\n", name, sub)
		for _, kv := range keys {
			fmt.Fprintf(&section, "\t%s = %s\n", kv[0], quoteConfig(kv[1]))
		}
	}
	var out []byte
	start, end := findSection(data, name, sub)
	if start >= 0 {
		out = append(append(append([]byte{}, data[:start]...), section.Bytes()...), data[end:]...)
	} else {
		out = append([]byte{}, data...)
		if len(out) > 0 && !bytes.HasSuffix(out, []byte("\n")) {
			out = append(out, '\n')
		}
		out = append(out, section.Bytes()...)
	}
	if bytes.Equal(out, data) {
		return false, nil
	}
	if _, err := lock.Write(out); err != nil {
		return false, fmt.Errorf("write %s: %w", lock.lock, err)
	}
	return true, lock.commit()
}

// findSection returns the byte range of section [name "sub"]: from its
// header line to the next section header or the end of the file.
func findSection(data []byte, name, sub string) (int, int) {
	start := -1
	off := 0
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		t := strings.TrimSpace(string(line))
		if strings.HasPrefix(t, "[") {
			if start >= 0 {
				return start, off
			}
			if sectionMatches(t, name, sub) {
				start = off
			}
		}
		off += len(line)
	}
	if start >= 0 {
		return start, len(data)
	}
	return -1, -1
}

func sectionMatches(header, name, sub string) bool {
	h := strings.TrimSuffix(strings.TrimPrefix(header, "["), "]")
	n, s, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(n, name) {
		return false
	}
	return strings.Trim(strings.TrimSpace(s), `"`) == sub
}

// quoteConfig quotes a value that git would otherwise read differently.
func quoteConfig(v string) string {
	if v == "" || strings.ContainsAny(v, "#;\"\\") || strings.TrimSpace(v) != v {
		return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(v) + `"`
	}
	return v
}
