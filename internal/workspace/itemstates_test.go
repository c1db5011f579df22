package workspace

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/reconcile"
	"github.com/itr-dev/itr/state"
)

const papersMD = `# Review - Tasks

**Item states:** candidate, included, level-3
**Settle items before done:** yes

## Tasks

- [ ] **T1**: Read the papers
  - Items: 3
  - Counter: findings in outputs/findings.md matching ^- 
  - Metric: words >= 100
- [ ] **T2**: Write
`

// TestCheckpointItemStatesValuesMetrics: a checkpoint records items in the
// plan's states, values per item and metrics in its one entry; the bad
// requests are refused with the field or the rule and change nothing; the
// settle rule reads the counter's file as the checkpoint sees it; the
// fold of the log gives the same state.json.
func TestCheckpointItemStatesValuesMetrics(t *testing.T) {
	engines(t, func(t *testing.T, e gitstate.Engine) {
		r := newRepo(t)
		r.engine = e
		r.initPlan(papersMD)
		r.write(demoDir+"/outputs/findings.md", "- one\n")

		r.checkpoint(CheckpointRequest{Unit: "T1", Did: "paper 1", Items: []string{"1=level-3"}, Values: []string{"score=4", "finding=Entity consolidation required"}, Metrics: []string{"words=40"}})
		log := r.read(demoDir + "/progress.md")
		assert.Contains(t, log, "**Items:** 1=level-3\n**Values:** 1:score=\"4\", 1:finding=\"Entity consolidation required\"\n**Metrics:** words=40\n")

		// Refused, each naming what and the fix; nothing changes.
		before := r.snap()
		for _, tc := range []struct {
			req   CheckpointRequest
			field string
			code  reconcile.Code
		}{
			{CheckpointRequest{Unit: "T1", Did: "x", Items: []string{"2-3=included"}, Values: []string{"score=2"}}, "value", ""},
			{CheckpointRequest{Unit: "T1", Did: "x", Values: []string{"score=2"}}, "value", ""},
			{CheckpointRequest{Unit: "T1", Did: "x", Values: []string{"1-2:score=2"}}, "value", ""},
			{CheckpointRequest{Unit: "T1", Did: "x", Metrics: []string{"words=lots"}}, "metric", ""},
			{CheckpointRequest{Unit: "T1", Did: "x", Items: []string{"2=done"}}, "", reconcile.UnknownItemState},
			{CheckpointRequest{Unit: "T1", Did: "x", Values: []string{"7:score=2"}}, "", reconcile.UnknownItem},
			{CheckpointRequest{Unit: "T1", Did: "x", Signal: true}, "", reconcile.ItemsUnsettled},
			{CheckpointRequest{Unit: "T1", Did: "x", Signal: true, Items: []string{"2-3=level-3"}}, "", reconcile.CounterDisagrees},
		} {
			_, err := r.open().Checkpoint(withSlug(tc.req))
			var fe *FieldError
			var ref *reconcile.Refusal
			switch {
			case tc.field != "":
				require.True(t, errors.As(err, &fe), "%v: %v", tc.req, err)
				assert.Equal(t, tc.field, fe.Field)
			default:
				require.True(t, errors.As(err, &ref), "%v: %v", tc.req, err)
				assert.Equal(t, tc.code, ref.Code, "%v", err)
			}
			r.unchanged(before)
		}

		// The file holds the findings, the words are short: the metric holds it.
		r.write(demoDir+"/outputs/findings.md", "- one\n- two\n- three\n")
		_, err := r.open().Checkpoint(withSlug(CheckpointRequest{Unit: "T1", Did: "x", Signal: true, Items: []string{"2-3=level-3"}}))
		var ref *reconcile.Refusal
		require.True(t, errors.As(err, &ref), "%v", err)
		assert.Equal(t, reconcile.MetricShort, ref.Code)
		out := r.checkpoint(CheckpointRequest{Unit: "T1", Did: "all read", Signal: true, Items: []string{"2-3=level-3"}, Metrics: []string{"words=120"}})
		assert.Equal(t, state.Confirming, out.After.Units["T1"].Status)

		// A move back is recorded in the entry and warned of.
		r.checkpoint(CheckpointRequest{Unit: "T1", Did: "confirm", Signal: true})
		out = r.checkpoint(CheckpointRequest{Unit: "T1", Did: "paper 3 again", Items: []string{"3=candidate"}})
		assert.Contains(t, out.Warnings, "T1: item moved back: 3 level-3 → candidate (recorded in the entry)")
		assert.Contains(t, r.read(demoDir+"/progress.md"), "**Items:** 3=candidate\n**Moved back:** 3 level-3 → candidate\n")

		s, err := state.Decode([]byte(r.show("HEAD", demoDir+"/state.json")))
		require.NoError(t, err)
		u := s.Units["T1"]
		assert.Equal(t, map[string][]string{"candidate": {"3"}, "level-3": {"1-2"}}, u.Items.States)
		assert.Equal(t, "Entity consolidation required", u.Items.Value("1", "finding"))
		assert.Equal(t, map[string]string{"words": "120"}, u.Metrics)

		// Reconcile finds nothing to change: the fold of the log is the view.
		reconcileNoOpNoting(r)
		r.checkGit()
	})
}

func withSlug(req CheckpointRequest) CheckpointRequest {
	req.Slug = demo
	return req
}
