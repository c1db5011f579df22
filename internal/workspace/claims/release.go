package claims

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/internal/workspace/store"
)

// Release gives a unit's claim up; only its holder may, unless force. A
// unit its holder releases done keeps a finished claim, with no lease.
func (r *Room) Release(slug, unit, agent string, force bool) (*store.Claim, error) {
	if agent = strings.TrimSpace(agent); agent == "" {
		agent = r.st.AgentName()
	}
	slug, err := r.st.Select(slug)
	if err != nil {
		return nil, err
	}
	remote, n, err := r.via()
	if err != nil {
		return nil, err
	}
	for attempt := 0; ; attempt++ {
		claims, err := r.st.Claims(slug)
		if err != nil {
			return nil, err
		}
		c, held := claims[unit]
		switch {
		case !held && remote != "" && attempt == 0:
			if err := fetch(n, remote, slug); err != nil {
				return nil, err
			}
			continue
		case !held:
			return nil, fmt.Errorf("%s is not claimed; there is nothing to release", unit)
		case c.Finished != "" && !force:
			return nil, fmt.Errorf("%s was finished by %s at %s: its claim stays so that no clone starts it again, until the task is archived (take a reopened unit with `itr claim %s --steal`)", unit, c.Agent, c.Finished, unit)
		case c.Agent != agent && !force:
			return nil, fmt.Errorf("%s is held by %s, not by %s; only its holder releases it (or `itr release %s --force`)", unit, c.Agent, agent, unit)
		}
		next := ""
		if c.Finished == "" && c.Agent == agent && r.unitDone(slug, unit) {
			// A unit released done keeps a finished claim, so that clones
			// that have not synced its entries do not start it again.
			f := c
			f.Finished, f.Until = r.st.Now().Format(time.RFC3339), ""
			if next, err = r.st.Repo.WriteBlob(f.Encode()); err != nil {
				return nil, fmt.Errorf("write the finished claim of %s: %w", unit, err)
			}
			c = f
		}
		err = r.move(n, remote, slug, unit, next, c.ID)
		if errors.Is(err, gitstate.ErrRefChanged) && attempt+1 < Attempts {
			if ferr := fetch(n, remote, slug); ferr != nil {
				return nil, ferr
			}
			continue
		}
		if err != nil {
			return nil, r.lostRace(slug, unit, err)
		}
		return &c, nil
	}
}

// unitDone reports whether the unit is done in this clone's state.
func (r *Room) unitDone(slug, unit string) bool {
	t, err := r.st.LoadLight(slug)
	if err != nil || t.State == nil {
		return false
	}
	u := t.State.Units[unit]
	return u != nil && u.Status.Finished()
}

// Renew renews the lease of the agent's own claim on unit, which a
// checkpoint of the holder does. In this repository the lease is renewed
// every time; on a claims remote only once less than half of it is left,
// so most checkpoints cost no network. A remote that cannot be reached
// leaves a warning, returned (the lease still runs); a claim another agent
// took meanwhile is an error, which refuses the checkpoint.
func (r *Room) Renew(slug, unit string) (string, error) {
	claims, err := r.st.Claims(slug)
	if err != nil || len(claims) == 0 {
		return "", err
	}
	c, held := claims[unit]
	if !held || c.Agent != r.st.AgentName() {
		return "", nil
	}
	now := r.st.Now()
	lease, err := time.ParseDuration(c.For)
	if err != nil || lease <= 0 {
		lease = DefaultLease
	}
	remote, n, err := r.via()
	if err != nil {
		return "could not renew the claim of " + unit + ": " + err.Error(), nil
	}
	if until, perr := time.Parse(time.RFC3339, c.Until); remote != "" && perr == nil && until.Sub(now) > lease/2 {
		return "", nil
	}
	renewed := c
	renewed.Until = now.Add(lease).Format(time.RFC3339)
	id, err := r.st.Repo.WriteBlob(renewed.Encode())
	if err != nil {
		return "", err
	}
	err = r.move(n, remote, slug, unit, id, c.ID)
	switch {
	case err == nil:
		return "", nil
	case errors.Is(err, gitstate.ErrRefChanged):
		if ferr := fetch(n, remote, slug); ferr != nil {
			return "could not renew the claim of " + unit + ": " + ferr.Error(), nil
		}
		return "", r.lostRace(slug, unit, err)
	case remote != "":
		return fmt.Sprintf("could not renew the claim of %s on %s (it holds until %s): %v", unit, remote, c.Until, err), nil
	}
	return "", err
}
