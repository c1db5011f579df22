package gitstate

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/itr-dev/itr/gitstate/internal/gitsyntax"
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
	out, err := gitsyntax.SetSection(data, name, sub, keys)
	if err != nil {
		return false, err
	}
	if bytes.Equal(out, data) {
		return false, nil
	}
	if _, err := lock.Write(out); err != nil {
		return false, fmt.Errorf("write %s: %w", lock.lock, err)
	}
	return true, lock.commit()
}
