package gitstate

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// NoMaintenanceEnv names the variable that, set to 1 (or true), keeps itr
// from starting git's automatic maintenance after its commits: for tests
// and benchmarks that count processes or objects.
const NoMaintenanceEnv = "ITR_NO_MAINTENANCE"

// Maintainer is a repository that can start git's automatic maintenance
// after a commit. Both engines are; the fake is not.
type Maintainer interface {
	AutoMaintenance() bool
}

// AutoMaintenance starts git's automatic maintenance on repo after a
// commit, as `git commit` does, when repo can (a Maintainer); it reports
// whether a git process was started. See (*Repo).AutoMaintenance.
func AutoMaintenance(repo Repository) bool {
	if m, ok := repo.(Maintainer); ok {
		return m.AutoMaintenance()
	}
	return false
}

// AutoMaintenance does what `git commit` does once its commit has landed
// (git 2.39's run_auto_maintenance): unless maintenance.auto is false, it
// runs `git maintenance run --auto --quiet`, which by default runs the gc
// task when gc.auto and gc.autoPackLimit say there are too many loose
// objects or packs (gc.auto=0 disables it). Unlike `git commit`, itr never
// waits for it: git starts in its own session, with stdin, stdout and
// stderr on /dev/null, and the commit returns at once.
//
// git's own decision is made here first, from the files git reads, for
// the tasks git runs by default (maintenanceDue): the config stack,
// objects/17 and the local packs. Only when git would do something, or
// when other maintenance tasks are enabled (then git decides), is git
// started; the usual commit starts no process. Where git's gc would not
// run yet but itr's loose objects take more room than the rule of
// maintenanceDue allows, git packs them (`git repack -d -l
// --geometric=2`). Nothing starts when ITR_NO_MAINTENANCE=1 or no git
// program is found. It reports whether git was started.
func (r *Repo) AutoMaintenance() bool {
	if maintenanceOff() {
		return false
	}
	cs, err := r.loadConfig(r.currentBranch())
	if err != nil {
		return false // git would refuse this config too
	}
	objects := filepath.Join(r.commonDir, "objects")
	args := maintenanceDueWith(cs, objects, func(int64) objectCounts {
		return r.countedObjects(objects, time.Now())
	})
	if args == nil {
		return false
	}
	git, err := exec.LookPath("git")
	if err != nil {
		return false
	}
	dir := r.root
	if dir == "" {
		dir = r.gitDir
	}
	return startDetached(git, dir, nil, args, r.ItrPath(maintenanceMarker))
}

// AutoMaintenance is (*Repo).AutoMaintenance on git's own plumbing, with
// the environment of its other git children. Where that environment
// changes what git reads (GIT_CONFIG_PARAMETERS, GIT_OBJECT_DIRECTORY and
// the like), git alone decides.
func (g *GitRepo) AutoMaintenance() bool {
	if maintenanceOff() {
		return false
	}
	args := autoArgs
	if !g.environmentDecides() {
		cs, err := g.files.loadConfig(g.files.currentBranch())
		if err != nil {
			return false
		}
		if args = maintenanceDue(cs, filepath.Join(g.commonDir, "objects"), g.hexLen); args == nil {
			return false
		}
	}
	return startDetached(g.git, g.dir(), g.env, args, g.files.ItrPath(maintenanceMarker))
}

// environmentDecides reports whether the environment of git's children
// changes the config or the objects git reads, so that only git can tell
// whether maintenance is due.
func (g *GitRepo) environmentDecides() bool {
	env := g.env
	if env == nil {
		env = os.Environ()
	}
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "GIT_CONFIG_PARAMETERS", "GIT_OBJECT_DIRECTORY", "GIT_DIR", "GIT_COMMON_DIR", "GIT_CONFIG":
			return true
		}
	}
	return false
}

// maintenanceOff reports whether ITR_NO_MAINTENANCE asks for no
// maintenance.
func maintenanceOff() bool {
	v := strings.ToLower(strings.TrimSpace(os.Getenv(NoMaintenanceEnv)))
	return v != "" && v != "0" && v != "false" && v != "no" && v != "off"
}

// autoArgs is what `git commit` runs after its commit (--quiet: nobody
// reads the output); packArgs is what itr runs when its own loose objects
// take too much room (see maintenanceDue).
var (
	autoArgs = []string{"maintenance", "run", "--auto", "--quiet"}
	packArgs = []string{"repack", "-d", "-l", "-q", "--geometric=2"}
)

// maintenanceMarker is itr's file in the common git directory that names
// the process of the last maintenance itr started ("<pid> <unix time>"), so
// that no second one starts while it runs: a repack takes seconds, and
// commits keep coming meanwhile.
const maintenanceMarker = "itr-maintenance"

// maintenanceRunning reports whether the maintenance named by the marker
// file is still running (for at most an hour: a process id is reused in
// time).
func maintenanceRunning(marker string) bool {
	data, err := os.ReadFile(marker)
	if err != nil {
		return false
	}
	var pid, started int64
	if _, err := fmt.Sscanf(string(data), "%d %d", &pid, &started); err != nil || pid <= 0 {
		return false
	}
	if time.Since(time.Unix(started, 0)) > time.Hour {
		return false
	}
	return processRunning(int(pid))
}

// startDetached starts git with args in dir in a session of its own (a
// Ctrl-C or hang-up of itr's terminal does not stop it; on Windows a
// process group of its own without a console: detachedAttr), with no standard
// streams, and does not wait for it; a goroutine reaps it should this
// process outlive it. It starts nothing while the maintenance named by
// the marker file runs, and names the new one there. (itr's lock on the
// repository is held around it, so two itr commands do not race here.)
func startDetached(git, dir string, env, args []string, marker string) bool {
	if maintenanceRunning(marker) {
		return false
	}
	cmd := exec.Command(git, args...)
	cmd.Dir, cmd.Env = dir, env
	cmd.SysProcAttr = detachedAttr()
	if err := cmd.Start(); err != nil {
		return false
	}
	_ = os.WriteFile(marker, []byte(fmt.Sprintf("%d %d\n", cmd.Process.Pid, time.Now().Unix())), 0o644)
	go func() { _ = cmd.Wait() }()
	return true
}

// Loose objects are estimated from a sample of the fan-out folders of
// objects/ (00 to 0f: 1/16 of them, as object names are uniform): what
// they take on disk, blocks included, times 16.
const (
	looseSample = 16
	// looseFloor is the room loose objects may take before itr packs them
	// whatever the packs hold.
	looseFloor = 2 << 20
	// looseShare is the part of the packs' size loose objects may take.
	looseShare = 4
)

// maintenanceDue says what git to run after an itr commit, from the config
// cs and the objects folder (hexLen is the length of an object name, 40 or
// 64), or nil for nothing.
//
// First git 2.39's own decision for `git maintenance run --auto` after a
// commit: nothing when maintenance.auto is false (run_auto_maintenance
// starts nothing); git decides when a task other than gc is enabled;
// else the gc task runs when gc.auto is above 0 (the default 6700) and
// there are more local packs without a .keep than gc.autoPackLimit
// (default 50), or more loose objects in objects/17 than gc.auto/256
// (rounded up) — need_to_gc. A value git cannot parse leaves the decision
// to git. When git's gc is due, autoArgs.
//
// Then itr's own rule, where git's gc would run but is not due yet: git
// counts loose objects, while each itr commit writes a handful, one of
// them the whole of progress.md, so a long task's loose versions of its
// log come to many times what a pack of them takes. When the loose
// objects take more than a quarter of the packs, and more than 2 MiB,
// packArgs packs them (`git repack -d -l --geometric=2`, what gc --auto
// does with loose objects, keeping the packs few and their sizes in a
// geometric progression). gc.auto=0, maintenance.auto=false and
// maintenance.gc.enabled=false turn it off with git's own.
func maintenanceDue(cs *configSet, objects string, hexLen int) []string {
	return maintenanceDueWith(cs, objects, func(most int64) objectCounts { return countObjects(objects, hexLen, most) })
}

// objectCounts is what maintenanceDue weighs: the loose objects in
// objects/17 (counted up to the most that matters), the room the loose
// objects take (estimated from the sample), and the local packs without a
// .keep and the bytes of all packs.
type objectCounts struct {
	in17       int64
	looseBytes int64
	packs      int
	packBytes  int64
}

// countObjects counts an objects folder by listing it: the pack folder,
// objects/17 (up to most+1) and the sample of looseSample fan-out folders.
func countObjects(objects string, hexLen int, most int64) objectCounts {
	var c objectCounts
	c.packs, c.packBytes = localPacks(filepath.Join(objects, "pack"))
	n, _ := looseIn(filepath.Join(objects, "17"), hexLen-2, most+1)
	c.in17 = int64(n)
	for i := 0; i < looseSample; i++ {
		_, b := looseIn(filepath.Join(objects, fmt.Sprintf("%02x", i)), hexLen-2, -1)
		c.looseBytes += b
	}
	c.looseBytes *= 256 / looseSample
	return c
}

// maintenanceDueWith is maintenanceDue with the objects counted by count
// (given the most loose objects in objects/17 that matters).
func maintenanceDueWith(cs *configSet, objects string, count func(most int64) objectCounts) []string {
	if v, ok := cs.lookup("maintenance", "", "auto"); ok {
		on, valid := gitBool(v)
		if !valid {
			return autoArgs
		}
		if !on {
			return nil
		}
	}
	gcTask := true
	for _, e := range cs.entries {
		if e.section != "maintenance" || e.subsection == "" || e.key != "enabled" {
			continue
		}
		on, valid := gitBool(cs.value("maintenance", e.subsection, "enabled"))
		if !valid {
			return autoArgs
		}
		if e.subsection == "gc" {
			gcTask = on
		} else if on {
			return autoArgs // another task: its own condition, git's to judge
		}
	}
	if !gcTask {
		return nil
	}
	threshold, packLimit := int64(6700), int64(50)
	if v, ok := cs.lookup("gc", "", "auto"); ok {
		n, valid := gitInt(v)
		if !valid {
			return autoArgs
		}
		threshold = n
	}
	if threshold <= 0 {
		return nil
	}
	if v, ok := cs.lookup("gc", "", "autopacklimit"); ok {
		n, valid := gitInt(v)
		if !valid {
			return autoArgs
		}
		packLimit = n
	}
	most := (threshold + 255) / 256
	c := count(most)
	if packLimit > 0 && int64(c.packs) > packLimit {
		return autoArgs
	}
	if c.in17 > most {
		return autoArgs
	}
	if c.looseBytes > looseFloor && c.looseBytes > c.packBytes/looseShare && !gitMaintaining(objects) {
		return packArgs
	}
	return nil
}

// gitMaintaining reports whether git's own maintenance runs on the objects
// folder: a git maintenance holds objects/maintenance.lock, a git gc holds
// gc.pid beside objects/ (git trusts one younger than 12 hours; an hour
// here).
func gitMaintaining(objects string) bool {
	if _, err := os.Stat(filepath.Join(objects, "maintenance.lock")); err == nil {
		return true
	}
	fi, err := os.Stat(filepath.Join(filepath.Dir(objects), "gc.pid"))
	return err == nil && time.Since(fi.ModTime()) < time.Hour
}

// localPacks counts the packs of a pack folder as git's too_many_packs
// does (an index with its pack, without a .keep), and the bytes of all
// its packs.
func localPacks(dir string) (int, int64) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return 0, 0
	}
	have := make(map[string]os.DirEntry, len(ents))
	for _, e := range ents {
		have[e.Name()] = e
	}
	n, size := 0, int64(0)
	for name, e := range have {
		base, ok := strings.CutSuffix(name, ".pack")
		if !ok || !strings.HasPrefix(base, "pack-") || have[base+".idx"] == nil {
			continue
		}
		if have[base+".keep"] == nil {
			n++
		}
		if fi, err := e.Info(); err == nil {
			size += fi.Size()
		}
	}
	return n, size
}

// looseIn counts the loose objects of one fan-out folder (names of
// nameLen hex digits), stopping at most (below 1: counting all, with the
// bytes they take on disk, blocks included).
func looseIn(dir string, nameLen int, most int64) (int, int64) {
	f, err := os.Open(dir)
	if err != nil {
		return 0, 0
	}
	defer f.Close()
	names, _ := f.Readdirnames(-1)
	n, size := 0, int64(0)
	for _, name := range names {
		if len(name) != nameLen || strings.Trim(name, "0123456789abcdef") != "" {
			continue
		}
		n++
		if most > 0 {
			if int64(n) >= most {
				break
			}
			continue
		}
		if fi, err := os.Lstat(filepath.Join(dir, name)); err == nil {
			size += diskSize(fi)
		}
	}
	return n, size
}

// gitBool parses a git boolean: true, yes, on, false, no, off, the empty
// value (false) or an integer (true unless 0).
func gitBool(v string) (on, valid bool) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true", "yes", "on":
		return true, true
	case "false", "no", "off", "":
		return false, true
	}
	n, ok := gitInt(v)
	return n != 0, ok
}

// gitInt parses a git integer with an optional k, m or g suffix.
func gitInt(v string) (int64, bool) {
	v = strings.TrimSpace(v)
	mult := int64(1)
	if v != "" {
		switch v[len(v)-1] {
		case 'k', 'K':
			mult = 1 << 10
		case 'm', 'M':
			mult = 1 << 20
		case 'g', 'G':
			mult = 1 << 30
		}
		if mult > 1 {
			v = v[:len(v)-1]
		}
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, false
	}
	return n * mult, true
}
