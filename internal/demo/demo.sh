#!/usr/bin/env bash
# A scripted itr session in a fresh temporary git repository, printing what a
# user sees. Usage: demo.sh /path/to/itr
set -euo pipefail
ITR=${1:?usage: demo.sh /path/to/itr}
work=$(mktemp -d "${TMPDIR:-/tmp}/itr-demo.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"

# Isolate from the machine's git configuration; the demo has its own identity.
export HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" GIT_CONFIG_NOSYSTEM=1
mkdir -p "$HOME"
export GIT_AUTHOR_NAME="Demo Agent" GIT_AUTHOR_EMAIL="agent@example.com"
export GIT_COMMITTER_NAME="Demo Agent" GIT_COMMITTER_EMAIL="agent@example.com"

run() {
  printf '\n$'
  for a in "$@"; do
    case $a in *[[:space:]\'\"\`\$]*) printf " '%s'" "${a//\'/\'\\\'\'}" ;; *) printf ' %s' "$a" ;; esac
  done
  printf '\n'
  "$@"
}
itr() { "$ITR" "$@"; }
# The agents' hooks run `itr` from PATH, as after an install.
ITR=$(cd "$(dirname "$ITR")" && pwd)/$(basename "$ITR")
export PATH="$(dirname "$ITR"):$PATH"

git init -q -b main app && cd app
printf 'package app\n' > app.go && git add app.go && git commit -qm "initial commit"

run itr init "User authentication" --slug user-auth
TASK=.claude/iterative/user-auth
cat > $TASK/tasks.md <<'PLAN'
# User authentication - Tasks

**Created:** 2026-01-14T10:30:00Z

## Dependencies

T1 → T2 (sequential)
T3 (independent)

## Tasks

- [ ] **T1**: Add the User model
  - Files: `user.go`
  - Criteria: model with validation, tests pass
  - Completion: `<signal>T1_DONE</signal>`
  - Verify: `grep -q "func (u User) Valid" user.go`
  - Max iterations: 6
- [ ] **T2**: Create the auth service
  - Criteria: login and logout work
  - Inputs: `user.go`
  - Max iterations: 8
  - Depends: T1
- [ ] **T3**: Write the docs
  - Max iterations: 3
PLAN
run itr plan
run itr next

printf 'package app\n\ntype User struct{ Name string }\n' > user.go
git add user.go && git commit -qm "feat(user-auth): add User model"
run itr checkpoint T1 --did "Added the User model" --remaining "validation and tests"
# Declaring the work done with a check: the unit's Verify line runs first, and
# a check that fails keeps the unit in progress (the run is recorded; exit 3).
run itr checkpoint --did "Model done" --signal --verify || echo "(exit $?: the check did not pass; the run is recorded)"
printf 'package app\n\ntype User struct{ Name string }\n\nfunc (u User) Valid() bool { return u.Name != "" }\n' > user.go
git commit -qam "feat(user-auth): validate users"
run itr checkpoint --did "Validation and tests" --signal --verify
run itr checkpoint --did "Confirmation: re-ran the tests, all pass" --signal
# --verified needs evidence: a passing run, or who verified it.
run itr checkpoint --did "Reviewed the code" --verified || echo "(exit $?: a claim alone is refused)"
run itr checkpoint --did "Reviewed the code" --verified-by "Ana (code review)"
# An orchestrator's view: every unit that can start now, and one unit's
# context for a subagent (what it reads, what the unit before it left).
run itr decide --title "Password hashing" --choice "bcrypt, cost 12" --why "the team's standard"
run itr next --all
run itr prime --unit T2
run itr block T3 --reason "Waiting for the product team's wording"
run itr guardrail --name "Run tests before signalling" --when "declaring a unit done" --problem "a signal without tests" --solution "run go test ./... first"

run itr status
run itr log
run itr list

# Off the happy path the advice still holds: paused, itr offers only what
# clears the hold, and says who clears it.
run itr pause --reason "Waiting for the security review"
run itr next
run itr resume

# A coding agent resumes by itself: one command registers the SessionStart hook,
# and this is what the agent reads at the start of its next session.
run itr setup claude
run itr setup claude --check
run itr prime
git add .claude/settings.json && git commit -qm "chore: itr resume hook for Claude Code"

# Plain git commits keep the logs append-only too: the pre-commit hook (the
# itr-hook program) lets a commit that stages no log through at once, and
# refuses one that rewrites an earlier entry.
run itr hooks install
printf '// TODO\n' >> app.go && git add app.go
run git commit -qm "a plain commit"
sed -i 's/Added the User model/Added nothing/' $TASK/progress.md
run git commit -qam "rewrite history" || echo "(exit $?: refused; nothing was committed)"
git checkout -q HEAD -- $TASK/progress.md

# A hand edit of state.json (or a crash, or a merge): git wins.
printf '\n# someone marks T2 done by hand in state.json\n'
sed -i 's/"status": "pending", "max_iterations": 8/"status": "done", "max_iterations": 8/' $TASK/state.json
run itr reconcile --check || echo "(exit $?: state.json and the log disagree)"
run itr reconcile
run itr verify
printf '\n$ git status --porcelain   # nothing left behind\n'
git status --porcelain
printf '$ git fsck --strict\n'
git fsck --strict 2>&1 | sed 's/^/  /'
echo "(clean)"

# Pictures of the session: the plan as a graph in the terminal, and, kept
# after the demo's repository is gone, the graph as Mermaid and Graphviz
# text and the whole task as one self-contained HTML page.
out="${ITR_DEMO_OUT:-${TMPDIR:-/tmp}/itr-demo-output}"
mkdir -p "$out"
run itr graph
itr graph --format mermaid --out "$out/plan.mmd" >/dev/null
itr graph --format dot --out "$out/plan.dot" >/dev/null
run itr report --out "$out/report.html"
printf '\nThe report of this session: %s (open it in a browser)\n' "$out/report.html"
printf 'The plan as a graph: %s (Mermaid: GitHub renders it) and %s (Graphviz: dot -Tsvg)\n' "$out/plan.mmd" "$out/plan.dot"
