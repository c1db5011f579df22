package state

import (
	"bytes"
	"encoding/json"
)

// Pause is the task's pause, paused in state.json: the task is on hold
// since Since, for Reason, until it is resumed. The phase stays where the
// work stands.
type Pause struct {
	Since  string `json:"since"`
	Reason string `json:"reason,omitempty"`
}

func decodePause(path string, raw json.RawMessage) (*Pause, error) {
	var p Pause
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' || json.Unmarshal(raw, &p) != nil {
		return nil, typeErr(path, raw, `an object such as {"since": "2026-01-14T10:30:00Z", "reason": "waiting for review"}`)
	}
	return &p, nil
}

func (p *Pause) encode() []byte { return plainJSON(p) }
