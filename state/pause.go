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

// Approval is the plan's approval, approval in state.json: who approved
// the plan (itr approve --by WHO), when, and what they said. A plan whose
// header says "**Approval:** required" takes no unit work until it has
// one.
type Approval struct {
	By   string `json:"by"`
	At   string `json:"at"`
	Note string `json:"note,omitempty"`
}

func decodeApproval(path string, raw json.RawMessage) (*Approval, error) {
	var a Approval
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' || json.Unmarshal(raw, &a) != nil {
		return nil, typeErr(path, raw, `an object such as {"by": "maria", "at": "2026-01-14T10:30:00Z"}`)
	}
	return &a, nil
}

func (a *Approval) encode() []byte { return plainJSON(a) }
