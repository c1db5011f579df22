package verify

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/progresslog"
)

// verifier walks a task's first-parent history once, oldest first, and
// keeps what the checks of each commit need from the ones before.
type verifier struct {
	st   *store.Store
	t    *store.Task
	slug string
	rep  *Report

	progress, guard *track
	decide          *track         // decisions.md
	prefixes        *prefixDigests // digests of the prefixes of HEAD's log
	// open lists the breaks no later commit has repaired yet, oldest
	// first; they become findings when the walk ends.
	open []*openBreak
	// walked holds the commits already checked: the first-parent line and
	// the commits of merged branches, so a branch merged twice is walked
	// once.
	walked map[string]bool
	index  int // the position of the commit being checked on the line
	// rebased is set when a version that does not extend the one before
	// was accepted without a finding (a restore, a resolution of conflict
	// markers): the walk is then not remembered (cache.go).
	rebased bool
	// progressFn, when set, is told each commit checked (Request.Progress).
	progressFn func(done, total int)
	// cut is set when the line ends at a shallow clone's boundary before
	// the task's Created commit: the walk takes that commit as given.
	cut bool
}

// logKind says which log a track follows.
type logKind int

const (
	progressLog  logKind = iota // progress.md: entries, one an itr commit
	lessonsLog                  // guardrails.md: lessons
	decisionsLog                // decisions.md: decisions
)

// track follows one log (progress.md, guardrails.md or decisions.md)
// along the line.
type track struct {
	rel      string
	guard    bool    // not progress.md: lessons or decisions, not entries
	kind     logKind // which log
	head     []byte  // the version at HEAD
	headHash string
	prev     []byte // the last version seen; nil before the first
	prevHash string
	prevAt   string // the newest commit seen that holds prev
	entries  int    // the entries of prev (progress.md only)
	// trusted says prev is a prefix of HEAD's log known from an Itr-Log
	// trailer, without reading its blob; pending is the newest such
	// version, not yet checked against its blob (progress.md only).
	trusted bool
	pending *claim
}

// claim is a version of progress.md known from a commit's Itr-Log trailer
// alone, with what checking its commit again needs should the trailer
// turn out not to describe the commit's blob.
type claim struct {
	c             gitstate.Commit
	log           []byte // what the trailer says: a prefix of HEAD's log
	hash          string // the blob the commit holds
	before        []byte // the version before it, and where it was seen
	beforeHash    string
	beforeAt      string
	beforeEntries int
	beforeTrusted bool
	entries       int  // entries counted from log
	mine          bool // an itr commit of the task, whose entries are counted
	want          int  // the entries it should leave
	event         string
	index         int // the verifier's index at its commit
}

// openBreak is a break of the append-only history (or a commit that
// history keeps and a correction must record) that no later commit has
// repaired yet.
type openBreak struct {
	file   string
	commit gitstate.Commit // the commit the finding names
	// before is the version a repair starts with (nil for a break that
	// only a correction entry resolves); after is the version the break
	// left; from says how to write before again.
	before, after []byte
	from          []segment
	// headHasBefore caches whether HEAD's log starts with before, so a
	// version known from a trailer (a prefix of HEAD's) is checked in O(1).
	headHasBefore bool
	takenOut      bool // it only took entries out: FindUndos may put them back
	lost          bool // it repaired a break but lost what was appended since
	ack           bool // resolved by a later "## Correction of <commit>" entry
	at            int  // the verifier's index when it was found
	f             *Finding
}

// segment is part of a version as git holds it: the file at rev, from the
// byte offset from.
type segment struct {
	rev  string
	from int
}

// correctionPrefix starts the heading of the entry that records a commit
// that history keeps (a rewrite on a merged branch, an itr commit that did
// not bring one entry, a merge that wrote entries): "## Correction of
// <7-hex commit>".
const correctionPrefix = "## Correction of "

// history checks every commit of the task's line, oldest first.
func (v *verifier) history() error {
	// A walk remembered from an earlier verify (cache.go) ends the list
	// at its commit: only the commits since are checked.
	cached := v.loadCache()
	commits, found, err := v.lineCommits(cached)
	if err != nil {
		return err
	}
	base := v.startWalk(cached, found, commits)
	removed := false // the task folder was removed (archived) since the last version
	for i, c := range commits {
		v.index = base + i
		if i == 0 && v.cut {
			err = v.given(c)
		} else {
			removed, err = v.checkCommit(c, removed)
		}
		if err != nil {
			return err
		}
		if v.progressFn != nil {
			v.progressFn(i+1, len(commits))
		}
	}
	v.index = base + len(commits)
	if err := v.confirm(); err != nil {
		return err
	}
	head := ""
	if len(commits) > 0 {
		head = commits[len(commits)-1].Hash
	} else if found {
		head = cached.commit
	}
	v.saveCache(head, removed)
	return nil
}

// lineCommits lists the task's history on the first-parent line, oldest
// first: every commit since the task's Created commit, so commits made
// with plain git (a revert, a hand edit) are checked too. When the line
// reaches the commit of the remembered walk cached, the list starts after
// it and found is true.
func (v *verifier) lineCommits(cached *walkCache) (commits []gitstate.Commit, found bool, err error) {
	err = v.st.Repo.History("HEAD", func(c gitstate.Commit) bool {
		if cached != nil && c.Hash == cached.commit {
			found = true
			return false
		}
		commits = append(commits, c)
		s, _ := c.Trailer(store.TrailerTask)
		ev, _ := c.Trailer(store.TrailerEvent)
		return !(s == v.slug && ev == store.EventCreated)
	})
	if err != nil {
		return nil, false, err
	}
	if n := len(commits); !found && n > 0 && commits[n-1].Shallow {
		s, _ := commits[n-1].Trailer(store.TrailerTask)
		ev, _ := commits[n-1].Trailer(store.TrailerEvent)
		if s != v.slug || ev != store.EventCreated {
			v.cut = true
			v.rep.Shallow = &Shallow{Boundary: commits[n-1].Hash, Commits: n - 1}
		}
	}
	slices.Reverse(commits)
	return commits, found, nil
}

// given takes commit c, the boundary of a shallow clone, as given: the
// versions of the logs it holds are the base the commits after it extend,
// and nothing is checked of it (how it came about is in the history the
// clone does not hold), so the cut causes no finding and no correction. A
// walk that starts from a cut is not remembered (cache.go): a deepened
// clone checks its whole history again.
func (v *verifier) given(c gitstate.Commit) error {
	v.rebased = true
	if s, _ := c.Trailer(store.TrailerTask); s == v.slug && len(c.Parents) < 2 {
		v.rep.Commits++
	}
	hashes, err := v.st.Repo.FolderHashes(c.Hash, v.st.TaskDir(v.slug))
	if err != nil {
		return err
	}
	ev, _ := c.Trailer(store.TrailerEvent)
	_, err = v.followLogs(c, hashes, false, true, ev)
	return err
}

// startWalk sets the walk's state before commits are checked: the
// remembered walk's when it was found, else a fresh one. It marks the
// commits walked and returns the index of the first one on the line.
func (v *verifier) startWalk(cached *walkCache, found bool, commits []gitstate.Commit) int {
	base := 0
	if found {
		v.resume(cached)
		base = v.index
	} else {
		v.walked = make(map[string]bool, len(commits))
	}
	for _, c := range commits {
		v.walked[c.Hash] = true
	}
	return base
}

// checkCommit checks commit c of the line: a merge's branch, then the
// versions of the logs it holds and, for an itr commit of the task, the
// entries it brought. removed says the task folder was removed (archived)
// by a commit since the last version of the log; checkCommit returns
// whether it still is.
func (v *verifier) checkCommit(c gitstate.Commit, removed bool) (bool, error) {
	if len(c.Parents) >= 2 {
		if err := v.merge(c); err != nil {
			return removed, err
		}
	}
	s, _ := c.Trailer(store.TrailerTask)
	ev, _ := c.Trailer(store.TrailerEvent)
	mine := s == v.slug && len(c.Parents) < 2
	if mine {
		v.rep.Commits++
	}
	hashes, err := v.st.Repo.FolderHashes(c.Hash, v.st.TaskDir(v.slug))
	if err != nil {
		return removed, err
	}
	p := v.progress
	if hashes[store.ProgressFile] == "" && p.prev != nil {
		// The task was archived (its folder removed) here. (A pending
		// claim is checked when the log comes back, or at the end.)
		return true, nil
	}
	// A restore brings back an archived log (perhaps an older one than
	// this line last had) plus one Restored entry: a new base.
	restore := mine && ev == store.EventRestored && (removed || p.prev == nil)
	v.rebased = v.rebased || restore
	before, err := v.followLogs(c, hashes, mine, restore, ev)
	if err != nil {
		return false, err
	}
	if restore {
		v.leftBehind(c)
	}
	if mine {
		v.checkCount(c, ev, before, restore)
	}
	return false, nil
}

// followLogs checks the versions of progress.md, guardrails.md and
// decisions.md that commit c holds (hashes: the blobs of the task
// folder) against the ones before. It returns how many entries
// progress.md held before c.
func (v *verifier) followLogs(c gitstate.Commit, hashes map[string]string, mine, restore bool, event string) (int, error) {
	p := v.progress
	logHash := hashes[store.ProgressFile]
	before := p.entries
	if logHash != p.prevHash {
		var err error
		if before, err = v.progressAt(c, logHash, mine, restore, event); err != nil {
			return 0, err
		}
	}
	if logHash != "" {
		p.prevAt = c.Hash
	}
	if err := v.follow(v.guard, c, hashes[store.GuardrailsFile], restore); err != nil {
		return 0, err
	}
	if err := v.follow(v.decide, c, hashes[store.DecisionsFile], restore); err != nil {
		return 0, err
	}
	return before, nil
}

// follow checks the version of a lessons or decisions log (blob hash)
// that commit c holds against the one before, when it changed.
func (v *verifier) follow(tr *track, c gitstate.Commit, hash string, restore bool) error {
	if hash != tr.prevHash {
		now, err := v.st.Blob(hash)
		if err != nil {
			return err
		}
		v.step(tr, c, now, restore)
		tr.prev, tr.prevHash = now, hash
	}
	if hash != "" {
		tr.prevAt = c.Hash
	}
	return nil
}

// checkCount checks that an itr commit c of the task (event ev) left the
// entries it should on a log of before entries: one more, none more for
// a lesson or a decision, the ones it adopted for a reconcile, any number
// for a restore.
func (v *verifier) checkCount(c gitstate.Commit, ev string, before int, restore bool) {
	n, want := v.progress.entries, wantOf(ev, before)
	if ev == store.EventReconciled && n > want {
		want = n // a reconcile commits the entries it adopted with its own
	}
	if restore {
		want = n
	}
	if n != want {
		v.miscounted(c, ev, before, n)
	}
}

// progressAt checks the version of progress.md (blob hash) that commit c
// holds. The commit's Itr-Log trailer gives the length and SHA-256 of the
// log it committed; when that is a prefix of HEAD's log (hashed once,
// incrementally), the version is known without reading its blob, and an
// append of a prefix needs no comparison: the cost stays linear in the
// log. Such a version is a claim, checked against its blob hash when the
// run of trusted versions ends (the next version is read, or the walk
// ends) or before it is taken as a repair: an itr commit amended with git
// keeps its trailer, not its log.
func (v *verifier) progressAt(c gitstate.Commit, hash string, mine, restore bool, event string) (int, error) {
	p := v.progress
	var now []byte
	trusted := false
	if mine && !restore {
		if l, d, ok := logTrailer(c); ok && l <= len(p.head) && l >= len(p.prev) && v.prefixes.digest(l) == d {
			now, trusted = p.head[:l], true
			if v.closes(p, now) && v.st.Repo.BlobID(now) != hash {
				trusted = false
			}
		}
	}
	if !trusted || (p.trusted && p.entries+countHeadings(now[len(p.prev):]) != wantOf(event, p.entries)) {
		// The run of trusted versions ends here, or its last claim would
		// make this commit bring more or fewer than one entry (that claim
		// may be an itr commit amended to append): check that claim.
		if err := v.confirm(); err != nil {
			return 0, err
		}
	}
	if !trusted {
		var err error
		if head, ok := v.fromHead(p, hash); ok {
			now = head
		} else if now, err = v.st.Blob(hash); err != nil {
			return 0, err
		}
	}
	cl := &claim{c: c, log: now, hash: hash, mine: mine, want: wantOf(event, p.entries), event: event, index: v.index,
		before: p.prev, beforeHash: p.prevHash, beforeAt: p.prevAt, beforeEntries: p.entries, beforeTrusted: p.trusted}
	n := 0
	if trusted && p.trusted {
		// Both are prefixes of HEAD's log: an append, known without a
		// comparison.
		n = p.entries + countHeadings(now[len(p.prev):])
		v.acknowledge(p, c, now[len(p.prev):])
	} else {
		v.step(p, c, now, restore)
		n = countEntries(p.prev, p.entries, now)
	}
	cl.entries = n
	p.pending = nil
	if trusted {
		p.pending = cl
	}
	p.prev, p.prevHash, p.entries, p.trusted = now, hash, n, trusted
	return cl.beforeEntries, nil
}

// wantOf is how many entries the log should hold after an itr commit of
// event on a log of before entries: one more, none more for a lesson or a
// decision.
func wantOf(event string, before int) int {
	if event == store.EventGuardrail || event == store.EventDecision {
		return before
	}
	return before + 1
}

// countEntries counts the entries of now, only those appended when it
// extends prev (whose entries are known): linear in the log, not its
// square.
func countEntries(prev []byte, entries int, now []byte) int {
	if prev != nil && bytes.HasPrefix(now, prev) {
		return entries + countHeadings(now[len(prev):])
	}
	return len(progresslog.Parse(now).Entries)
}

// confirm checks the pending claim of progress.md against the blob its
// commit holds (by hashing the claimed bytes; HEAD's own blob hash is
// known). When they differ the commit was changed after itr wrote it: it
// is checked again as read from its blob.
func (v *verifier) confirm() error {
	p := v.progress
	cl := p.pending
	p.pending = nil
	if cl == nil || (len(cl.log) == len(p.head) && cl.hash == p.headHash) || v.st.Repo.BlobID(cl.log) == cl.hash {
		return nil
	}
	real, err := v.st.Blob(cl.hash)
	if err != nil {
		return err
	}
	at, index := p.prevAt, v.index
	p.prev, p.prevHash, p.prevAt, p.entries, p.trusted = cl.before, cl.beforeHash, cl.beforeAt, cl.beforeEntries, cl.beforeTrusted
	v.index = cl.index
	v.step(p, cl.c, real, false)
	n := countEntries(cl.before, cl.beforeEntries, real)
	if cl.mine && n != cl.want && cl.entries == cl.want {
		v.miscounted(cl.c, cl.event, cl.beforeEntries, n)
	}
	p.prev, p.prevHash, p.prevAt, p.entries, p.trusted = real, cl.hash, at, n, false
	v.index = index
	return nil
}

// miscounted reports an itr commit that did not add exactly one entry. The
// commit stays in the history: a correction entry records it.
func (v *verifier) miscounted(c gitstate.Commit, event string, before, n int) {
	v.opened(&openBreak{file: v.progress.rel, commit: c, ack: true, f: &Finding{File: v.progress.rel, Commit: c.Hash,
		Problem: fmt.Sprintf("the %s commit %s took the log from %d to %d entries; each itr commit adds exactly one entry", event, store.Short(c.Hash), before, n),
		Fix: "entries written without itr have no commit of their own (before a checkpoint, itr reconcile adopts them); this commit stays in the history, so record it: " +
			correctionFix(v.progress.rel, c, "This commit did not bring exactly one entry; the entries stand as written.")}})
}

// opened keeps a new break open.
func (v *verifier) opened(b *openBreak) {
	b.at = v.index
	if b.before != nil {
		tr := v.trackOf(b.file)
		b.headHasBefore = bytes.HasPrefix(tr.head, b.before)
	}
	v.open = append(v.open, b)
}

// closes reports whether now, a prefix of HEAD's version, starts again
// with the version before an open break of the file.
func (v *verifier) closes(tr *track, now []byte) bool {
	for _, b := range v.open {
		if b.file == tr.rel && b.before != nil && b.headHasBefore && len(now) >= len(b.before) {
			return true
		}
	}
	return false
}

// step checks the version now of a log, at commit c, against the one
// before it: the breaks it repairs, the break it makes.
func (v *verifier) step(tr *track, c gitstate.Commit, now []byte, restore bool) {
	closed := v.repairs(tr, now, c)
	if tr.prev == nil || restore {
		return
	}
	var viol *progresslog.Violation
	switch tr.kind {
	case lessonsLog:
		viol = progresslog.IsGuardrailsAppendOnly(tr.prev, now)
	case decisionsLog:
		viol = progresslog.IsDecisionsAppendOnly(tr.prev, now)
	default:
		viol = progresslog.IsAppendOnly(tr.prev, now)
	}
	if viol != nil {
		v.broke(tr, c, now, viol, closed)
		return
	}
	v.acknowledge(tr, c, now[len(tr.prev):])
}

// repairs closes the open breaks of the file that now repairs: it starts
// again with the version before the break (then appends). It returns them.
// A break found later on top of the version a repaired break left (its
// before starts with that version) is then on top of the version before
// the repaired one: its versions are rebased on that, and it may be
// repaired by now too (a rewrite rewritten again, both put back at once).
func (v *verifier) repairs(tr *track, now []byte, c gitstate.Commit) []*openBreak {
	var closed []*openBreak
	for {
		i := slices.IndexFunc(v.open, func(b *openBreak) bool {
			return b.file == tr.rel && b.before != nil && bytes.HasPrefix(now, b.before)
		})
		if i < 0 {
			return closed
		}
		hit := v.open[i]
		v.open = slices.Delete(v.open, i, i+1)
		hit.f.Problem += fmt.Sprintf("; put back by commit %s (%q)", store.Short(c.Hash), c.Subject)
		hit.f.Fix = ""
		v.rep.Repaired = append(v.rep.Repaired, *hit.f)
		closed = append(closed, hit)
		for _, b := range v.open {
			if b.file != tr.rel || b.before == nil || b.at < hit.at || len(b.from) != 1 || !bytes.HasPrefix(b.before, hit.after) {
				continue
			}
			rebase := func(data []byte) []byte { return append(bytes.Clone(hit.before), data[len(hit.after):]...) }
			if bytes.HasPrefix(b.after, hit.after) {
				b.after = rebase(b.after)
			}
			b.before = rebase(b.before)
			b.from = append(slices.Clone(hit.from), segment{b.from[0].rev, b.from[0].from + len(hit.after)})
			b.headHasBefore = bytes.HasPrefix(tr.head, b.before)
		}
	}
}

// leftBehind closes the open breaks of the logs that a restore (commit c)
// left behind: the log it brought back from an archive does not hold what
// the break left, which is then no longer the task's.
func (v *verifier) leftBehind(c gitstate.Commit) {
	kept := v.open[:0]
	for _, b := range v.open {
		tr := v.trackOf(b.file)
		if b.before != nil && !bytes.HasPrefix(tr.prev, b.after) {
			b.f.Problem += fmt.Sprintf("; left behind by the restore in commit %s (%q)", store.Short(c.Hash), c.Subject)
			b.f.Fix = ""
			v.rep.Repaired = append(v.rep.Repaired, *b.f)
			continue
		}
		kept = append(kept, b)
	}
	v.open = kept
}

// acknowledge closes the open breaks that an entry appended at c (tail is
// what c appended) records: "## Correction of <commit>".
func (v *verifier) acknowledge(tr *track, c gitstate.Commit, tail []byte) {
	if tr.guard || len(tail) == 0 {
		return
	}
	kept := v.open[:0]
	for _, b := range v.open {
		if b.ack && b.at < v.index && hasCorrection(tail, store.Short(b.commit.Hash)) {
			b.f.Problem += fmt.Sprintf("; recorded by commit %s (%q)", store.Short(c.Hash), c.Subject)
			b.f.Fix = ""
			v.rep.Repaired = append(v.rep.Repaired, *b.f)
			continue
		}
		kept = append(kept, b)
	}
	v.open = kept
}

// hasCorrection reports whether text holds the heading of a correction of
// the commit short.
func hasCorrection(text []byte, short string) bool {
	heading := []byte(correctionPrefix + short)
	for len(text) > 0 {
		line := text
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = nil
		}
		if bytes.HasPrefix(bytes.TrimRight(line, "\r \t"), heading) {
			return true
		}
	}
	return false
}

// broke records the version now of a log, at commit c, that does not
// extend the one before (viol says where). A version that repairs open
// breaks (closed) may change back what they changed, as long as it keeps
// what was appended since.
func (v *verifier) broke(tr *track, c gitstate.Commit, now []byte, viol *progresslog.Violation, closed []*openBreak) {
	prev := tr.prev
	b := &openBreak{file: tr.rel, commit: c, before: prev, after: now, from: []segment{{tr.prevAt, 0}}}
	f := &Finding{File: tr.rel, Commit: c.Hash, Diff: viol.Diff}
	b.f = f
	if len(closed) > 0 {
		// It repairs breaks: it may change back what they changed, but not
		// what was appended since (each entry of prev that now lacks is
		// one whose title the version before a repaired break holds).
		lost := unexplained(tr.kind, prev, now, closed)
		if len(lost) == 0 {
			return
		}
		var last *openBreak // the newest repaired break prev was appended to
		for _, x := range closed {
			if bytes.HasPrefix(prev, x.after) {
				last = x
			}
		}
		if last != nil {
			// Repaired when the version before last comes back with what
			// was appended to it since.
			b.before = append(bytes.Clone(last.before), prev[len(last.after):]...)
			b.from, b.lost = append(slices.Clone(last.from), segment{tr.prevAt, len(last.after)}), true
			f.Diff = progresslog.LineDiff(string(b.before), string(now))
			what := "entr" + store.Plural(len(lost), "y", "ies")
			switch tr.kind {
			case lessonsLog:
				what = "lesson" + store.Plural(len(lost), "", "s")
			case decisionsLog:
				what = "decision" + store.Plural(len(lost), "", "s")
			}
			f.Problem = fmt.Sprintf("commit %s (%q) put back %s as it was before commit %s but took out the %d %s appended since: %s",
				store.Short(c.Hash), c.Subject, tr.rel, store.Short(last.commit.Hash), len(lost), what, strings.Join(store.FirstN(lost, 3), "; "))
			v.opened(b)
			return
		}
	}
	if resolves(tr.kind, prev, now) {
		v.rebased = true
		return
	}
	switch {
	case tr.kind == decisionsLog:
		f.Problem = fmt.Sprintf("commit %s (%q) rewrote earlier decisions: %s", store.Short(c.Hash), c.Subject, viol.Error())
		if gone := takenOut(items(decisionsLog, prev), items(decisionsLog, now)); len(gone) > 0 {
			f.Problem = fmt.Sprintf("commit %s (%q) took out %d decision%s of %s: %s", store.Short(c.Hash), c.Subject, len(gone), store.Plural(len(gone), "", "s"), tr.rel, strings.Join(store.FirstN(gone, 3), "; "))
			b.takenOut = true
		}
	case tr.guard:
		f.Problem = fmt.Sprintf("commit %s (%q) rewrote earlier guardrails: %s", store.Short(c.Hash), c.Subject, viol.Error())
		if gone := takenOut(items(lessonsLog, prev), items(lessonsLog, now)); len(gone) > 0 {
			f.Problem = fmt.Sprintf("commit %s (%q) took out %d lesson%s of %s: %s", store.Short(c.Hash), c.Subject, len(gone), store.Plural(len(gone), "", "s"), tr.rel, strings.Join(store.FirstN(gone, 3), "; "))
			b.takenOut = true
		}
	default:
		f.Problem = fmt.Sprintf("commit %s (%q) broke the append-only history: %s", store.Short(c.Hash), c.Subject, viol.Error())
		if gone := TakenOut(prev, now); len(gone) > 0 && !revertsItr(c, v.slug) {
			f.Problem = fmt.Sprintf("commit %s (%q) took out %d committed entr%s: %s", store.Short(c.Hash), c.Subject, len(gone), store.Plural(len(gone), "y", "ies"), strings.Join(store.FirstN(gone, 3), "; "))
			b.takenOut = true
		}
	}
	v.opened(b)
}

// resolves reports whether now resolves the git conflict markers that
// prev holds: no markers left, the text before the first marker kept, and
// every entry (or lesson) of both sides there as written.
func resolves(kind logKind, prev, now []byte) bool {
	conflicted := func(data []byte) bool {
		switch kind {
		case lessonsLog:
			return progresslog.ParseGuardrails(data).Conflicted
		case decisionsLog:
			return progresslog.ParseDecisions(data).Conflicted
		}
		return progresslog.Parse(data).Conflicted
	}
	if !conflicted(prev) || conflicted(now) {
		return false
	}
	start := 0
	for !bytes.HasPrefix(prev[start:], []byte("<<<<<<<")) {
		start += bytes.IndexByte(prev[start:], '\n') + 1
	}
	return bytes.HasPrefix(now, prev[:start]) && len(missing(kind, prev, now)) == 0
}

// conflictFix is the command that resolves the git conflict markers of the
// log rel as HEAD holds it, keeping both sides, and commits the result.
func conflictFix(rel string) string {
	path := shq(rel)
	return fmt.Sprintf("keep the entries of both sides: `git show %s | sed -e '/^|||||||/,/^=======/d' -e '/^<<<<<<</d' -e '/^=======/d' -e '/^>>>>>>>/d' > %s && mv %s %s && git commit --no-verify -q -m 'resolve the conflict markers' -- %s`, then run itr reconcile",
		shq("HEAD:"+rel), shq(rel+".resolved"), shq(rel+".resolved"), path, path)
}

// item is an entry of progress.md, a lesson of guardrails.md or a
// decision of decisions.md: its key (equal exactly when written the same)
// and its title for a person.
type item struct{ key, title string }

// items lists the entries (or lessons, or decisions) of a log.
func items(kind logKind, data []byte) []item {
	var out []item
	if kind == decisionsLog {
		for _, x := range progresslog.ParseDecisions(data).Entries {
			out = append(out, item{decisionKey(x), "decision " + x.Title})
		}
		return out
	}
	if kind == lessonsLog {
		for _, g := range progresslog.ParseGuardrails(data).Entries {
			out = append(out, item{lessonKey(g), "lesson " + g.Name})
		}
		return out
	}
	for _, e := range progresslog.Parse(data).Entries {
		out = append(out, item{e.Key(), e.Title()})
	}
	return out
}

// decisionKey identifies a decision by all it says.
func decisionKey(d progresslog.Decision) string {
	k := d.Title + "\x00" + d.Choice + "\x00" + d.Why + "\x00" + d.Unit + "\x00" + d.Decided
	for _, f := range d.Extra {
		k += "\x00" + f.Name + "\x01" + f.Value
	}
	return k
}

// trackOf is the track of the log at rel.
func (v *verifier) trackOf(rel string) *track {
	switch rel {
	case v.guard.rel:
		return v.guard
	case v.decide.rel:
		return v.decide
	}
	return v.progress
}

// lessonKey identifies a lesson by all it says.
func lessonKey(g progresslog.Guardrail) string {
	k := g.Name + "\x00" + g.When + "\x00" + g.Problem + "\x00" + g.Solution + "\x00" + g.Learned
	for _, f := range g.Extra {
		k += "\x00" + f.Name + "\x01" + f.Value
	}
	return k
}

// takenOut returns the titles of old's items that new lacks, when new only
// lacks items (every item it has is one of old's); otherwise nil.
func takenOut(old, new []item) []string {
	have := make(map[string]bool, len(old))
	for _, e := range old {
		have[e.key] = true
	}
	kept := map[string]bool{}
	for _, e := range new {
		if !have[e.key] {
			return nil
		}
		kept[e.key] = true
	}
	var gone []string
	for _, e := range old {
		if !kept[e.key] {
			gone = append(gone, e.title)
		}
	}
	return gone
}

// missing returns the titles of the items of old that new does not hold
// as written.
func missing(kind logKind, old, new []byte) []string {
	have := map[string]bool{}
	for _, e := range items(kind, new) {
		have[e.key] = true
	}
	var out []string
	for _, e := range items(kind, old) {
		if !have[e.key] {
			out = append(out, e.title)
		}
	}
	return out
}

// unexplained returns the titles of the items of prev that now does not
// hold as written and that no repaired break had changed (their titles
// are not in the version before any of closed).
func unexplained(kind logKind, prev, now []byte, closed []*openBreak) []string {
	restored := map[string]bool{}
	for _, b := range closed {
		for _, e := range items(kind, b.before) {
			restored[e.title] = true
		}
	}
	var out []string
	for _, t := range missing(kind, prev, now) {
		if !restored[t] {
			out = append(out, t)
		}
	}
	return out
}

// findings turns the breaks still open into findings, each with the fix
// that repairs it as HEAD is now. The undos are looked for only to offer
// `itr reconcile` where it repairs a break; when they cannot be found (a
// log FindUndos cannot write again), the fix that writes the version
// before the break again is offered, which always applies.
func (v *verifier) findings() {
	var undos []*Undo
	looked := false
	for i, b := range v.open {
		if !b.ack {
			if !looked {
				undos, _ = FindUndos(v.st, v.t)
				looked = true
			}
			b.f.Fix = v.fix(b, v.open[i+1:], undos)
		}
		v.rep.Findings = append(v.rep.Findings, *b.f)
	}
}

// fix is the command that repairs break b as HEAD is now: `itr reconcile`
// when what it commits repairs b (FindUndos names b's commit and puts back
// the version before it); else the version before b written again with
// what was appended since b, and committed. later are the breaks found
// after b.
func (v *verifier) fix(b *openBreak, later []*openBreak, undos []*Undo) string {
	for _, u := range undos {
		if u.File == b.file && u.By.Hash == b.commit.Hash && bytes.HasPrefix(u.Restored, b.before) {
			return "run `itr reconcile`: it puts them back from git's history (so does the next checkpoint); reverting the commit would also undo its other changes"
		}
	}
	head := v.trackOf(b.file).head
	what := "entries are never rewritten: put the log back as it was before the commit, with what was appended since, and commit"
	switch {
	case b.takenOut:
		what = "put them back: the log as it was before the commit, with what was appended since, committed"
	case b.lost:
		what = "append again what was appended since, after the version the commit put back, and commit"
	}
	if !bytes.HasPrefix(head, b.after) {
		// A later break changed what b left: repairing that one first
		// brings back a log that starts with it.
		for _, l := range later {
			if l.file == b.file && !l.ack {
				return fmt.Sprintf("a later commit (%s) changed %s again: repair that one first, then run itr verify again for this one", store.Short(l.commit.Hash), b.file)
			}
		}
	}
	rev := func(s segment) string {
		if len(b.commit.Parents) > 0 && s.rev == b.commit.Parents[0] {
			return store.Short(b.commit.Hash) + "^"
		}
		return store.Short(s.rev)
	}
	path := shq(b.file)
	cmd := fmt.Sprintf("git checkout %s -- %s", rev(b.from[0]), path)
	for _, s := range b.from[1:] {
		cmd += fmt.Sprintf(" && git show %s | tail -c +%d >> %s", shq(rev(s)+":"+b.file), s.from+1, path)
	}
	if len(head) > len(b.after) && bytes.HasPrefix(head, b.after) {
		cmd += fmt.Sprintf(" && git show %s | tail -c +%d >> %s", shq("HEAD:"+b.file), len(b.after)+1, path)
	}
	name := b.file[strings.LastIndex(b.file, "/")+1:]
	cmd += fmt.Sprintf(" && git commit --no-verify -q -m 'restore %s as before %s' -- %s", name, store.Short(b.commit.Hash), path)
	return what + ": `" + cmd + "` (--no-verify: itr's pre-commit hook refuses any change of earlier entries, this one too)"
}

// shq quotes s for sh, unless it is made of characters sh takes as they
// are (a task's path under the default root is).
func shq(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._/:^-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// correctionFix is the command that appends to the log rel an entry that
// records commit c ("## Correction of <c>", then text) and commits it.
func correctionFix(rel string, c gitstate.Commit, text string) string {
	s := store.Short(c.Hash)
	return fmt.Sprintf("`printf '\\n%s%s\\n%s\\n' >> %s && git commit -q -m 'correction of %s' -- %s`", correctionPrefix, s, text, shq(rel), s, shq(rel))
}
