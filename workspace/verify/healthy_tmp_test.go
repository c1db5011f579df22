package verify_test

import (
	"testing"
	"fmt"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/reconcile"
)

func TestTmpHealthy(t *testing.T) {
	for _, s := range []string{
		"# Progress Log\n\n## Task - Created - 2026-01-14T10:02:00Z\n**Name:** Demo\n\n## T1 - Iteration 0 - 2026-01-14T10:04:00Z\n**Did:** x\n",
		"# Progress Log\n\n## Task - Created - 2026-01-14T10:02:00Z\n**Name:** Demo\n\n## T1 - Unblocked - 2026-01-14T10:04:00Z\n",
		"# Progress Log\n\n## Task - Created - 2026-01-14T10:02:00Z\n**Name:** Demo\n\n## T1 - Iteration 1 - sometime\n**Did:** x\n",
		"# Progress Log\n\n## Task - Created - 2026-01-14T10:02:00Z\n**Name:** Demo\n\n## T1 - Blocked - 2026-01-14T10:04:00Z\n**Reason:** x\n\n## T1 - Iteration 1 - 2026-01-14T10:05:00Z\n**Did:** x\n",
	} {
		l := progresslog.Parse([]byte(s))
		fmt.Printf("parse problems %+v\n", l.Problems)
		_, p := reconcile.Fold(reconcile.Input{Slug: "demo", Entries: l.Entries})
		fmt.Printf("fold problems %+v\n", p)
	}
}
