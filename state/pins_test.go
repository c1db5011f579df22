package state

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const pinned = `{
  "schema_version": 1,
  "task": "Survey",
  "slug": "survey",
  "mode": "knowledge",
  "phase": "execute",
  "phases": {
    "R1": {
      "status": "done",
      "iterations_used": 3,
      "outputs": [
        {"path":"outputs/survey.md","bytes":3047,"blob":"23995d357b9956133c308eea9e95d927e4b4e922"}
      ]
    }
  }
}
`

func TestPinsDecodeEncode(t *testing.T) {
	s, err := Decode([]byte(pinned))
	require.NoError(t, err)
	assert.Equal(t, []OutputPin{{Path: "outputs/survey.md", Bytes: 3047, Blob: "23995d357b9956133c308eea9e95d927e4b4e922"}}, s.Units["R1"].Outputs)
	assert.Equal(t, pinned, string(s.Encode()), "byte for byte")
	c := s.Clone()
	c.Units["R1"].Outputs[0].Bytes = 1
	assert.Equal(t, int64(3047), s.Units["R1"].Outputs[0].Bytes, "a clone is deep")
}

func TestPinsDecodeBad(t *testing.T) {
	for _, tc := range []struct{ outputs, path string }{
		{`{}`, "phases.R1.outputs"},
		{`[{"path":"","bytes":1,"blob":"23995d357b9956133c308eea9e95d927e4b4e922"}]`, "phases.R1.outputs[0].path"},
		{`[{"path":"a","bytes":-1,"blob":"23995d357b9956133c308eea9e95d927e4b4e922"}]`, "phases.R1.outputs[0].bytes"},
		{`[{"path":"a","bytes":1,"blob":"xyz"}]`, "phases.R1.outputs[0].blob"},
		{`[{"path":"a","bytes":1,"blob":"23995d357b9956133c308eea9e95d927e4b4e922","x":1}]`, "phases.R1.outputs"},
	} {
		doc := `{"schema_version":1,"task":"x","slug":"x","mode":"knowledge","phase":"execute","phases":{"R1":{"status":"done","outputs":` + tc.outputs + `}}}`
		_, err := Decode([]byte(doc))
		require.Error(t, err, tc.outputs)
		var de *DecodeError
		require.ErrorAs(t, err, &de)
		assert.Equal(t, tc.path, de.Path, tc.outputs)
	}
}
