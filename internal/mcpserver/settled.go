package mcpserver

import "github.com/itr-dev/itr/reconcile"

// kindReason reads "needs-human: the reason", or the reason alone.
func kindReason(kind, reason string) string {
	if kind == "" {
		return reason
	}
	return kind + ": " + reason
}

// blockWords reads a block's reason with its kind and when it clears.
func blockWords(r *reconcile.Refusal) string {
	t := kindReason(r.ReasonKind, r.Reason)
	if r.ClearWhen != "" {
		t += "; clear when: " + r.ClearWhen
	}
	return t
}
