package store

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/itr-dev/itr/progresslog"
)

// Who is who this command acts for, as the entries it appends record it:
// the agent (AgentName), and the model and session when known.
func (s *Store) Who() progresslog.Who {
	return progresslog.Who{Agent: s.AgentName(), Model: strings.TrimSpace(s.Model), Session: strings.TrimSpace(s.Session)}
}

// Attribute adds to an entry this command appends who made it (the
// fields it does not name already).
func (s *Store) Attribute(e *progresslog.Entry) {
	progresslog.Attribute(e, s.Who())
}

// maxWho bounds an agent's, model's or session's name.
const maxWho = 200

// CheckWho says what is wrong with a name given for the agent, the model
// or the session (what, such as "agent") and how to fix it, "" when
// nothing is: one line of printable text, at most 200 characters, as an
// entry's field holds it.
func CheckWho(what, v string) (problem, fix string) {
	if len(v) > maxWho {
		return fmt.Sprintf("is %d characters long", len(v)), fmt.Sprintf("give the %s's name in at most %d", what, maxWho)
	}
	for _, r := range v {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return fmt.Sprintf("%q holds a control character or a line break", v), fmt.Sprintf("give the %s's name on one line of text", what)
		}
	}
	return "", ""
}
