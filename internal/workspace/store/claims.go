package store

import (
	"encoding/json"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strings"
	"time"
)

// ClaimRefPrefix is where the claims of units live: one ref a claimed
// unit, refs/itr/claims/<slug>/<unit>, holding a blob with the claim as
// JSON. A ref is moved only by compare-and-swap (gitstate's UpdateRef), so
// two agents racing for a unit in worktrees of one repository end with
// exactly one holder.
const ClaimRefPrefix = "refs/itr/claims/"

// Claim is an agent's hold on a unit until its lease ends.
type Claim struct {
	Unit  string `json:"unit"`
	Agent string `json:"agent"`
	Since string `json:"since"` // when the agent took it (RFC 3339)
	Until string `json:"until"` // when the lease ends unless renewed
	For   string `json:"for"`   // the lease each renewal gives, as a Go duration ("2h0m0s")
	// StolenFrom names the agent whose expired lease this claim took.
	StolenFrom string `json:"stolen_from,omitempty"`
	// Finished is set when the holder released the unit done: the claim
	// stays, with no lease, so that agents in clones that have not synced
	// the unit's entries yet do not start it again. It goes with the
	// task's archive (or `itr claim UNIT --steal`, for a unit reopened).
	Finished string `json:"finished,omitempty"`
	// ID is the blob the ref holds (the compare-and-swap's old value).
	ID string `json:"-"`
}

// ClaimRef is the ref of a unit's claim.
func ClaimRef(slug, unit string) string { return ClaimRefPrefix + slug + "/" + unit }

// Expired reports whether the lease ended before now (a finished claim
// has no lease and never expires).
func (c Claim) Expired(now time.Time) bool {
	if c.Finished != "" {
		return false
	}
	until, err := time.Parse(time.RFC3339, c.Until)
	return err != nil || !now.Before(until)
}

// Encode is the claim as the blob stores it.
func (c Claim) Encode() []byte {
	data, _ := json.Marshal(c) // a Claim always encodes
	return append(data, '\n')
}

// Claims reads the claims of a task's units, by unit. A ref whose blob
// is not a claim is reported as held by "unknown" until it is released,
// so a damaged ref never frees a unit by accident.
func (s *Store) Claims(slug string) (map[string]Claim, error) {
	refs, err := s.Repo.RawRefs(ClaimRefPrefix + slug + "/")
	if err != nil {
		return nil, fmt.Errorf("read the claims of %s: %w", slug, err)
	}
	out := make(map[string]Claim, len(refs))
	for name, id := range refs {
		unit := name[strings.LastIndexByte(name, '/')+1:]
		c := Claim{Unit: unit, Agent: "unknown", ID: id}
		if data, err := s.Repo.ReadBlob(id); err == nil {
			var read Claim
			if json.Unmarshal(data, &read) == nil && read.Agent != "" {
				c = read
				c.Unit, c.ID = unit, id
			}
		}
		out[unit] = c
	}
	return out, nil
}

// AgentName is the agent this command acts for: Agent (--agent,
// ITR_AGENT), else user@host:worktree, stable across the sessions of one
// checkout.
func (s *Store) AgentName() string {
	if a := strings.TrimSpace(s.Agent); a != "" {
		return a
	}
	name := "agent"
	if u, err := user.Current(); err == nil && u.Username != "" {
		name = u.Username
	}
	host, _ := os.Hostname()
	if host == "" {
		host = "localhost"
	}
	return name + "@" + host + ":" + filepath.Base(s.Repo.Root())
}

// HeldByOthers are the claims of agents other than agent whose lease runs
// at now, and finished claims, worded for the rule book: unit → Holding.
func HeldByOthers(claims map[string]Claim, agent string, now time.Time) map[string]string {
	var held map[string]string
	for unit, c := range claims {
		// A claim whose blob could not be read (no Until) holds until it
		// is released: a damaged ref never frees a unit by accident.
		if c.Agent == agent || (c.Until != "" && c.Expired(now)) {
			continue
		}
		if held == nil {
			held = map[string]string{}
		}
		held[unit] = c.Holding()
	}
	return held
}

// Holding words who holds the claim and how long: "bob until <time>
// (since <time>)", or for a finished claim "bob, who finished it at
// <time> (itr sync brings its entries)".
func (c Claim) Holding() string {
	if c.Finished != "" {
		return c.Agent + ", who finished it at " + c.Finished + " (itr sync brings its entries)"
	}
	return c.Agent + " until " + c.Until + " (since " + c.Since + ")"
}
