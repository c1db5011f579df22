package plan

import (
	"fmt"
	"strings"
)

// MetaApproval asks for a person's approval of the plan before any unit
// work ("**Approval:** required", seed 003's "User approval" between
// planning and research). "none" (also "no", "not required") says the
// plan needs none, as does a plan without the line.
const MetaApproval = "Approval"

// approvalValue reads an Approval value: required is true for "required"
// (also "yes"), false for "none", "no" or "not required"; ok is false for
// anything else.
func approvalValue(v string) (required, ok bool) {
	switch strings.ToLower(strings.TrimSpace(strings.Trim(v, "`*_ "))) {
	case "required", "yes":
		return true, true
	case "none", "no", "not required", "optional":
		return false, true
	}
	return false, false
}

// ApprovalRequired reports whether the plan's header asks for approval
// before unit work ("**Approval:** required"); false for a nil plan, a
// plan without the line, or a value that does not read (the parse
// reported it).
func (p *Plan) ApprovalRequired() bool {
	if p == nil {
		return false
	}
	for _, f := range p.Meta {
		if strings.EqualFold(f.Key, MetaApproval) {
			req, _ := approvalValue(f.Value)
			return req
		}
	}
	return false
}

// checkApproval words a header Approval value that does not read, "" for
// a good one (or template text).
func checkApproval(f Field) string {
	if !strings.EqualFold(f.Key, MetaApproval) || isTemplate(f.Value) {
		return ""
	}
	if _, ok := approvalValue(f.Value); !ok {
		return fmt.Sprintf("%s %q is not a value itr reads; write \"**%s:** required\" (no unit work before `itr approve --by WHO`) or \"**%s:** none\", or delete the line", MetaApproval, f.Value, MetaApproval, MetaApproval)
	}
	return ""
}
