package progresslog

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/itr-dev/itr/internal/lazyre"
	"github.com/itr-dev/itr/state"
)

// FieldOutputs pins the outputs of a unit in the entry that makes it done
// (and in a Pinned entry): one output a line, its path from the
// repository top, its size and its git blob id as git stores it:
//
//	**Outputs:**
//	outputs/survey.md: 2874 bytes, blob 5e1c309dae7f45e0f39b1bf3ac3cd9db12e7d689
const FieldOutputs = "Outputs"

// FormatPins writes an Outputs value; "" for no pins.
func FormatPins(pins []state.OutputPin) string {
	lines := make([]string, len(pins))
	for i, p := range pins {
		lines[i] = fmt.Sprintf("%s: %d bytes, blob %s", quotePath(p.Path), p.Bytes, p.Blob)
	}
	return strings.Join(lines, "\n")
}

var pinLine = lazyre.New(`^(.+): (\d+) bytes?, blob ([0-9a-f]+)$`)

// ParsePins reads an Outputs value. The error names the first line that
// does not read as "PATH: N bytes, blob ID".
func ParsePins(v string) ([]state.OutputPin, error) {
	var out []state.OutputPin
	for _, line := range strings.Split(v, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		m := pinLine.FindStringSubmatch(line)
		if m == nil {
			return nil, fmt.Errorf("%q is not an output pin; write PATH: N bytes, blob ID, such as outputs/survey.md: 2874 bytes, blob 5e1c309dae7f45e0f39b1bf3ac3cd9db12e7d689", line)
		}
		path := m[1]
		if strings.HasPrefix(path, `"`) {
			p, err := strconv.Unquote(path)
			if err != nil {
				return nil, fmt.Errorf("%q: the path is not a quoted string: %w", line, err)
			}
			path = p
		}
		n, err := strconv.ParseInt(m[2], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q: %s is not a size in bytes", line, m[2])
		}
		if !state.ValidBlobID(m[3]) {
			return nil, fmt.Errorf("%q: %s is not a blob id (40 or 64 hex digits)", line, m[3])
		}
		out = append(out, state.OutputPin{Path: path, Bytes: n, Blob: m[3]})
	}
	return out, nil
}
