package reportdemo

// CheckoutSlug is the slug of the larger demo task BuildCheckout makes.
const CheckoutSlug = "checkout"

// CheckoutUnits are the checkout demo's units, in plan order: twelve
// units in six layers, with long titles, dependencies that skip layers,
// a failed unit and its replacement, a unit blocked on a decision.
var CheckoutUnits = []string{"T1", "T2", "T3", "T4", "T5", "T6", "T7", "T8", "T9", "T10", "T11", "T12"}

const checkoutBrief = `# Checkout service

## Outcome Needed
Customers pay for their cart in one step; orders are confirmed by email,
large orders are checked for fraud, and the path holds 200 requests a
second before launch.

## Done When
- the checkout path passes its load test and the launch checklist is signed
`

const checkoutTasks = `# Checkout service - Tasks

## Tasks

- [ ] **T1**: Domain model for carts, orders and line items
  - Max iterations: 6
- [ ] **T2**: Payment provider sandbox account and API keys
  - Max iterations: 3
- [ ] **T3**: Cart API with optimistic locking
  - Depends: T1
  - Max iterations: 5
- [ ] **T4**: Payment client with retries and idempotency keys
  - Depends: T2
  - Max iterations: 5
- [ ] **T5**: Checkout flow joining the cart and the payment
  - Depends: T3, T4
  - Max iterations: 6
- [ ] **T6**: Invoices with the old PDF generator
  - Depends: T1
  - Max iterations: 3
- [ ] **T7**: HTML invoices instead of the PDF generator
  - Depends: T1
  - Replaces: T6
  - Max iterations: 4
- [ ] **T8**: Order confirmation emails with the invoice attached
  - Depends: T5, T7
  - Max iterations: 4
- [ ] **T9**: Fraud checks on orders above the review threshold
  - Depends: T5
  - Max iterations: 4
- [ ] **T10**: Load test of the checkout path at 200 requests a second
  - Depends: T3, T8, T9
  - Max iterations: 3
- [ ] **T11**: Refunds in the admin dashboard
  - Depends: T8
  - Max iterations: 4
- [ ] **T12**: Launch checklist and on-call runbook
  - Depends: T2, T10, T11
  - Max iterations: 2
`

// BuildCheckout makes the checkout demo task in a new repository under
// base with the itr binary itr: the report's screenshots at 1,280 and
// 1,920 pixels and the browser test that measures the graph use it.
func BuildCheckout(itr, base string) (*Repo, error) {
	r, err := newRepo(itr, base)
	if err != nil {
		return nil, err
	}
	r.Slug = CheckoutSlug
	steps := []struct {
		ok   []int
		args []string
	}{
		{nil, []string{"git", "init", "-q"}},
		{nil, []string{"git", "commit", "-q", "--allow-empty", "-m", "initial commit"}},
		{nil, []string{"itr", "init", "Checkout service", "--slug", CheckoutSlug}},
		{nil, []string{"write", "brief.md", checkoutBrief}},
		{nil, []string{"write", "tasks.md", checkoutTasks}},
		{nil, []string{"itr", "plan"}},
		{nil, []string{"itr", "checkpoint", "T1", "--did", "Carts, orders and line items with money as integer cents", "--signal", "--verify", "--", "true"}},
		{nil, []string{"itr", "checkpoint", "T1", "--did", "Confirmation: the model round-trips through the store", "--signal"}},
		{nil, []string{"itr", "checkpoint", "T1", "--did", "Reviewed", "--verified-by", "Ana (code review)"}},
		{nil, []string{"itr", "checkpoint", "T2", "--did", "Sandbox account and keys in the vault", "--signal", "--verify", "--", "true"}},
		{nil, []string{"itr", "checkpoint", "T2", "--did", "Confirmation: a test charge went through", "--signal"}},
		{nil, []string{"itr", "checkpoint", "T2", "--did", "Checked by ops", "--verified-by", "Sam (ops)"}},
		{nil, []string{"itr", "checkpoint", "T3", "--did", "Cart endpoints with version checks", "--signal", "--verify", "--", "true"}},
		{nil, []string{"itr", "checkpoint", "T3", "--did", "Confirmation: concurrent updates conflict as they should", "--signal"}},
		{nil, []string{"itr", "checkpoint", "T3", "--did", "Reviewed", "--verified-by", "Ana (code review)"}},
		{nil, []string{"itr", "checkpoint", "T6", "--did", "Tried the PDF generator on the new model"}},
		{nil, []string{"itr", "fail", "T6", "--reason", "the PDF library is unmaintained and fails on Unicode names", "--kind", "needs-human"}},
		{nil, []string{"itr", "decide", "--title", "Invoice format", "--choice", "HTML invoices, printed to PDF by the mail service", "--why", "no unmaintained PDF library to carry", "--unit", "T6"}},
		{nil, []string{"itr", "checkpoint", "T7", "--did", "Invoice template and totals", "--remaining", "attachments"}},
		{nil, []string{"itr", "checkpoint", "T4", "--did", "Client with retries and idempotency keys", "--remaining", "timeouts"}},
		{[]int{3}, []string{"itr", "checkpoint", "T4", "--did", "Timeouts on every call", "--signal", "--verify", "--", "sh", "-c", "echo 'FAIL: TestRetryAfterTimeout (0.31s)'; echo '    client_test.go:88: got 2 attempts, want 3'; exit 1"}},
		{nil, []string{"itr", "block", "T9", "--reason", "which review threshold: 500 or 1,000 euros", "--kind", "decision"}},
		{nil, []string{"itr", "guardrail", "--name", "Money is integer cents", "--when", "adding a price or a total", "--problem", "float rounding lost a cent on refunds", "--solution", "use the Money type, never float64"}},
		{nil, []string{"itr", "note", "The payment sandbox resets every Sunday night"}},
	}
	for _, s := range steps {
		if err := r.step(s.args, s.ok); err != nil {
			return nil, err
		}
	}
	return r, nil
}
