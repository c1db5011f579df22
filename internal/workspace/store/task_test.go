package store_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/state"
)

func TestLoadNewTask(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	c, files := f.initTask("user-auth")

	task, err := f.s.Load("user-auth")
	require.NoError(t, err)
	assert.Equal(t, "user-auth", task.Slug)
	assert.Equal(t, ".claude/iterative/user-auth", task.Dir)
	assert.Equal(t, gitstate.Head{Branch: "refs/heads/main", Hash: c.Hash}, task.Head)
	assert.Equal(t, files["state.json"], task.StateRaw)
	assert.Equal(t, files["progress.md"], task.ProgressRaw)
	assert.Equal(t, files["guardrails.md"], task.GuardrailsRaw)

	require.NoError(t, task.StateErr)
	require.NotNil(t, task.State)
	assert.Equal(t, "User authentication", task.State.Task)
	assert.Equal(t, "user-auth", task.State.Slug)
	assert.Equal(t, state.Development, task.State.Mode)
	assert.Equal(t, state.Phase("discover"), task.State.Phase)
	assert.Empty(t, task.State.Units)

	want := map[string]string{}
	for name, data := range files {
		want[name] = gitstate.BlobHash(data)
	}
	assert.Equal(t, want, task.HeadFiles)

	// The template's plan is still placeholders: named, but no plan.
	assert.Equal(t, store.TasksFile, task.PlanName)
	assert.Nil(t, task.Plan)
	assert.NoError(t, task.PlanErr)
	assert.Empty(t, task.Log().Entries)
}

func TestLoadPlannedTask(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.initTask("api") // another task, not read
	f.work("feat: unrelated")
	_, files := f.plannedTask("user-auth")
	// Files below the folder are not the folder's own.
	c := f.commit("add a source", put(rel("user-auth", "sources/paper.md"), "# Paper\n"), put(rel("user-auth", "brief.md"), "# Brief\n"))

	task, err := f.s.Load("user-auth")
	require.NoError(t, err)
	assert.Equal(t, c.Hash, task.Head.Hash)
	assert.Equal(t, files["state.json"], task.StateRaw)
	require.NotNil(t, task.State)
	assert.Equal(t, state.Phase("execute"), task.State.Phase)
	assert.Equal(t, []string{"T1", "T2", "T3", "T4", "T5"}, task.State.IDs())
	assert.Equal(t, state.Status("confirming"), task.State.Unit("T3").Status)
	assert.Equal(t, []string{"brief.md", "guardrails.md", "progress.md", "state.json", "tasks.md"}, sortedKeys(task.HeadFiles))

	require.NoError(t, task.PlanErr)
	require.NotNil(t, task.Plan)
	assert.Equal(t, store.TasksFile, task.PlanName)
	assert.Equal(t, []string{"T1", "T2", "T3", "T4", "T5"}, task.Plan.IDs())
	assert.Equal(t, "Session expiry", task.Plan.Units[4].Title)

	log := task.Log()
	require.Len(t, log.Entries, 4)
	assert.Equal(t, progresslog.KindIteration, log.Entries[1].Kind)
	assert.Equal(t, "T1", log.Entries[2].Unit)
	assert.Equal(t, 2, log.Entries[2].Iteration)
	assert.Same(t, log, task.Log(), "parsed once")

	// SetProgress replaces the log and parses it again on use.
	more := append(append([]byte(nil), files["progress.md"]...), "\n## T3 - Iteration 1 - 2026-01-14T12:30:00Z\n**Did:** started\n"...)
	task.SetProgress(more)
	assert.Equal(t, more, task.ProgressRaw)
	require.Len(t, task.Log().Entries, 5)
	assert.Equal(t, "T3", task.Log().Entries[4].Unit)
}

func TestLoadReadsHEADNotDisk(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	_, files := f.plannedTask("user-auth")
	f.write(rel("user-auth", "state.json"), "{ garbage")
	f.write(rel("user-auth", "progress.md"), "# Progress Log\n")

	task, err := f.s.Load("user-auth")
	require.NoError(t, err)
	assert.Equal(t, files["state.json"], task.StateRaw)
	assert.Equal(t, files["progress.md"], task.ProgressRaw)
	assert.NoError(t, task.StateErr)
}

func TestLoadDetachedHead(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	old, _ := f.initTask("user-auth")
	f.plannedTask("user-auth")
	require.NoError(t, f.fake.SetHead(old.Hash))

	task, err := f.s.Load("user-auth")
	require.NoError(t, err)
	assert.Equal(t, gitstate.Head{Hash: old.Hash, Detached: true}, task.Head)
	assert.Equal(t, state.Phase("discover"), task.State.Phase)
}

func TestLoadStateProblems(t *testing.T) {
	t.Parallel()
	progress := plannedFiles(t)["progress.md"]
	tests := []struct {
		name     string
		state    []byte // nil: no state.json committed
		stateErr string
		errType  bool // a *state.DecodeError
		conflict bool
	}{
		{name: "missing", stateErr: ".claude/iterative/user-auth/state.json is missing from the last commit; run `itr reconcile` to rebuild it"},
		{name: "truncated", state: []byte("{\n  \"task\": \"x\",\n  \"phase\": "), errType: true,
			stateErr: ".claude/iterative/user-auth/state.json: line "},
		{name: "bad status", state: []byte(`{"task": "x", "slug": "user-auth", "mode": "development", "phase": "execute", "tasks": {"T1": {"status": "finished"}}}`),
			errType: true, stateErr: `.claude/iterative/user-auth/state.json: tasks.T1.status: "finished"`},
		{name: "conflict markers", state: []byte("{\n<<<<<<< HEAD\n  \"phase\": \"plan\"\n=======\n  \"phase\": \"execute\"\n>>>>>>> b\n}\n"),
			errType: true, conflict: true, stateErr: ".claude/iterative/user-auth/state.json: line 2, column 1: git conflict marker"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			changes := []gitstate.FileChange{{Path: rel("user-auth", "progress.md"), Data: progress}}
			if tt.state != nil {
				changes = append(changes, gitstate.FileChange{Path: rel("user-auth", "state.json"), Data: tt.state})
			}
			f.commit(itrMsg("user-auth", store.EventIteration), changes...)

			task, err := f.s.Load("user-auth")
			require.NoError(t, err, "a broken state.json is for reconcile to fix, not a load error")
			assert.Nil(t, task.State)
			assert.Equal(t, tt.state, task.StateRaw)
			assert.Equal(t, progress, task.ProgressRaw)
			assert.Nil(t, task.GuardrailsRaw)
			require.Error(t, task.StateErr)
			assert.Contains(t, task.StateErr.Error(), tt.stateErr)
			var de *state.DecodeError
			assert.Equal(t, tt.errType, errors.As(task.StateErr, &de), "a *state.DecodeError")
			assert.Equal(t, tt.conflict, errors.Is(task.StateErr, state.ErrConflict))
		})
	}
}

func TestLoadErrors(t *testing.T) {
	t.Parallel()
	files := plannedFiles(t)
	tests := []struct {
		name   string
		setup  func(f *fixture) *store.Store
		err    string
		is     error
		noTask bool
	}{
		{name: "unborn HEAD", setup: func(f *fixture) *store.Store { return f.s },
			err: "task \"user-auth\": the repository has no commits yet; start it with `itr init`"},
		{name: "Head fails", is: errBoom, setup: func(f *fixture) *store.Store {
			f.plannedTask("user-auth")
			f.fake.Fail("Head", errBoom)
			return f.s
		}},
		{name: "FolderHashes fails", is: errBoom, setup: func(f *fixture) *store.Store {
			f.plannedTask("user-auth")
			f.fake.Fail("FolderHashes", errBoom)
			return f.s
		}},
		{name: "reading state.json fails", is: errBoom, setup: func(f *fixture) *store.Store {
			f.plannedTask("user-auth")
			return f.wrap(map[string]error{gitstate.BlobHash(files["state.json"]): errBoom}, nil)
		}},
		{name: "reading progress.md fails", is: errBoom, setup: func(f *fixture) *store.Store {
			f.plannedTask("user-auth")
			return f.wrap(map[string]error{gitstate.BlobHash(files["progress.md"]): errBoom}, nil)
		}},
		{name: "reading guardrails.md fails", is: errBoom, setup: func(f *fixture) *store.Store {
			f.plannedTask("user-auth")
			return f.wrap(map[string]error{gitstate.BlobHash(files["guardrails.md"]): errBoom}, nil)
		}},
		{name: "unknown slug", noTask: true, setup: func(f *fixture) *store.Store {
			f.plannedTask("api")
			return f.s
		}, err: `task "user-auth" not found under .claude/iterative (active: [api])`},
		{name: "only other files committed", noTask: true, setup: func(f *fixture) *store.Store {
			f.commit("brief", put(rel("user-auth", "brief.md"), "# Brief\n"), put(rel("user-auth", "guardrails.md"), "# Guardrails\n"))
			return f.s
		}, err: `task "user-auth" not found under .claude/iterative; the folder exists but was never committed by itr: start it with ` + "`itr init`"},
		{name: "archived", noTask: true, setup: func(f *fixture) *store.Store {
			f.plannedTask("user-auth")
			f.archive("user-auth", "2026-01-14")
			return f.s
		}, err: "task \"user-auth\" not found under .claude/iterative; it is archived as refs/tags/itr/archive/user-auth/2026-01-14: bring it back with `itr restore user-auth`"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			s := tt.setup(f)
			task, err := s.Load("user-auth")
			require.Error(t, err)
			assert.Nil(t, task)
			if tt.is != nil {
				assert.ErrorIs(t, err, tt.is)
			}
			if tt.err != "" {
				assert.Equal(t, tt.err, err.Error())
			}
			assert.Equal(t, tt.noTask, errors.Is(err, store.ErrNoTask), "errors.Is ErrNoTask")
		})
	}
}

func TestNoSuchTask(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		setup func(f *fixture)
		want  string
	}{
		{name: "nothing anywhere", setup: func(*fixture) {},
			want: `task "ghost" not found under .claude/iterative`},
		{name: "other tasks active", setup: func(f *fixture) {
			f.initTask("user-auth")
			f.initTask("api")
		}, want: `task "ghost" not found under .claude/iterative (active: [api user-auth])`},
		{name: "folder on disk only", setup: func(f *fixture) {
			f.initTask("user-auth")
			f.write(rel("ghost", "state.json"), "{}")
		}, want: "task \"ghost\" not found under .claude/iterative (active: [ghost user-auth]); the folder exists but was never committed by itr: start it with `itr init`"},
		{name: "archived", setup: func(f *fixture) {
			f.initTask("ghost")
			f.archive("ghost", "2026-01-09")
			f.initTask("user-auth")
		}, want: "task \"ghost\" not found under .claude/iterative (active: [user-auth]); it is archived as refs/tags/itr/archive/ghost/2026-01-09: bring it back with `itr restore ghost`"},
		{name: "folder beats archive", setup: func(f *fixture) {
			f.initTask("ghost")
			f.archive("ghost", "2026-01-09")
			f.write(rel("ghost", "tasks.md"), "# plan\n")
		}, want: "task \"ghost\" not found under .claude/iterative; the folder exists but was never committed by itr: start it with `itr init`"},
		{name: "archived, deliverables left in place", setup: func(f *fixture) {
			f.initTask("ghost")
			f.archive("ghost", "2026-01-09")
			f.write(rel("ghost", "outputs/memo.md"), "memo")
			f.write(rel("ghost", "sources/a.md"), "a")
		}, want: "task \"ghost\" not found under .claude/iterative; it is archived as refs/tags/itr/archive/ghost/2026-01-09 and its folder holds only what the archive left in place (outputs/, sources/): bring it back with `itr restore ghost`"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			tt.setup(f)
			err := f.s.NoSuchTask("ghost")
			require.Error(t, err)
			assert.Equal(t, tt.want, err.Error())
			assert.ErrorIs(t, err, store.ErrNoTask)
			assert.NotErrorIs(t, err, fs.ErrNotExist)
		})
	}
}

// knowledgePlan is a plan.md of knowledge mode with real units.
const knowledgePlan = `# Caching study - Phases

## Phases

- [ ] **R1**: Survey the literature
  - Output: ` + "`outputs/survey.md`" + `
  - Max iterations: 3
- [ ] **R2**: Compare the designs
  - Depends: R1
`

func TestLoadPlanWith(t *testing.T) {
	t.Parallel()
	files := plannedFiles(t)
	placeholder := newTaskFiles(t, "user-auth", "development")[2]
	require.Equal(t, "tasks.md", placeholder.Name)
	knowledgePlaceholder := newTaskFiles(t, "user-auth", "knowledge")[2]
	require.Equal(t, "plan.md", knowledgePlaceholder.Name)

	tests := []struct {
		name     string
		files    map[string][]byte // by name in the task folder
		readErr  map[string]error
		planName string
		ids      []string // nil: no plan
		planErr  string
		errIs    error
	}{
		{name: "no plan file"},
		{name: "template tasks.md", files: map[string][]byte{"tasks.md": placeholder.Data}, planName: "tasks.md"},
		{name: "template plan.md", files: map[string][]byte{"plan.md": knowledgePlaceholder.Data}, planName: "plan.md"},
		{name: "real tasks.md", files: map[string][]byte{"tasks.md": files["tasks.md"]}, planName: "tasks.md",
			ids: []string{"T1", "T2", "T3", "T4", "T5"}},
		{name: "real plan.md", files: map[string][]byte{"plan.md": []byte(knowledgePlan)}, planName: "plan.md",
			ids: []string{"R1", "R2"}},
		{name: "tasks.md first", files: map[string][]byte{"tasks.md": files["tasks.md"], "plan.md": []byte(knowledgePlan)},
			planName: "tasks.md", ids: []string{"T1", "T2", "T3", "T4", "T5"}},
		{name: "placeholder tasks.md hides a real plan.md", files: map[string][]byte{"tasks.md": placeholder.Data, "plan.md": []byte(knowledgePlan)},
			planName: "tasks.md"},
		{name: "unknown dependency", planName: "tasks.md",
			files:   map[string][]byte{"tasks.md": []byte("# T\n\n## Tasks\n\n- [ ] **T1**: a\n- [ ] **T2**: b\n  - Depends: T9\n")},
			planErr: ".claude/iterative/user-auth/tasks.md:7: unit T2 depends on T9, which is not defined; add a unit T9 or remove the dependency"},
		{name: "cycle in plan.md", planName: "plan.md",
			files:   map[string][]byte{"plan.md": []byte("## Phases\n- [ ] **R1**: a\n  - Depends: R2\n- [ ] **R2**: b\n  - Depends: R1\n")},
			planErr: ".claude/iterative/user-auth/plan.md:3: dependency cycle R1 → R2 → R1; remove one of these dependencies"},
		{name: "git's not-found is a missing file", planName: "plan.md", ids: []string{"R1", "R2"},
			files:   map[string][]byte{"plan.md": []byte(knowledgePlan)},
			readErr: map[string]error{"tasks.md": gitstate.ErrNotFound}},
		{name: "read fails", planName: "tasks.md", errIs: errBoom,
			files:   map[string][]byte{"plan.md": []byte(knowledgePlan)},
			readErr: map[string]error{"tasks.md": errBoom}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			var asked []string
			read := func(p string) ([]byte, error) {
				asked = append(asked, p)
				name := filepath.Base(p)
				require.Equal(t, rel("user-auth", name), p)
				if err := tt.readErr[name]; err != nil {
					return nil, err
				}
				if data, ok := tt.files[name]; ok {
					return data, nil
				}
				return nil, fs.ErrNotExist
			}
			task := &store.Task{Slug: "user-auth", Dir: f.s.TaskDir("user-auth")}
			f.s.LoadPlanWith(task, read)
			assert.NotEmpty(t, asked)
			assert.Equal(t, tt.planName, task.PlanName)
			switch {
			case tt.errIs != nil:
				assert.ErrorIs(t, task.PlanErr, tt.errIs)
			case tt.planErr != "":
				require.Error(t, task.PlanErr)
				assert.Equal(t, tt.planErr, task.PlanErr.Error())
			default:
				assert.NoError(t, task.PlanErr)
			}
			if tt.ids == nil {
				assert.Nil(t, task.Plan)
				return
			}
			require.NotNil(t, task.Plan)
			assert.Equal(t, tt.ids, task.Plan.IDs())
			assert.Equal(t, rel("user-auth", tt.planName), task.Plan.File)
		})
	}
}

func TestLoadPlanFromWorktree(t *testing.T) {
	t.Parallel()
	files := plannedFiles(t)
	tests := []struct {
		name     string
		setup    func(f *fixture)
		planName string
		ids      []string
		planErr  string
	}{
		{name: "edited on disk, not committed", planName: "tasks.md", ids: []string{"T1", "T2", "T3", "T4", "T5"},
			setup: func(f *fixture) { f.write(rel("user-auth", "tasks.md"), string(files["tasks.md"])) }},
		{name: "deleted on disk", setup: func(f *fixture) { require.NoError(f.t, os.Remove(f.abs(rel("user-auth", "tasks.md")))) }},
		{name: "symbolic link", planName: "tasks.md",
			setup: func(f *fixture) {
				outside := filepath.Join(f.t.TempDir(), "tasks.md")
				require.NoError(f.t, os.WriteFile(outside, files["tasks.md"], 0o666))
				f.symlink(rel("user-auth", "tasks.md"), outside)
			},
			planErr: ".claude/iterative/user-auth/tasks.md is a symbolic link (to "},
		{name: "a folder", planName: "tasks.md",
			setup: func(f *fixture) {
				require.NoError(f.t, os.Remove(f.abs(rel("user-auth", "tasks.md"))))
				require.NoError(f.t, os.MkdirAll(f.abs(rel("user-auth", "tasks.md")), 0o777))
			},
			planErr: ".claude/iterative/user-auth/tasks.md is not a regular file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.initTask("user-auth")
			tt.setup(f)
			task, err := f.s.Load("user-auth")
			require.NoError(t, err)
			assert.Equal(t, tt.planName, task.PlanName)
			if tt.planErr != "" {
				require.Error(t, task.PlanErr)
				assert.Contains(t, task.PlanErr.Error(), tt.planErr)
			} else {
				assert.NoError(t, task.PlanErr)
			}
			if tt.ids == nil {
				assert.Nil(t, task.Plan)
			} else {
				require.NotNil(t, task.Plan)
				assert.Equal(t, tt.ids, task.Plan.IDs())
			}
		})
	}
}

func TestReadWorktree(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.write(rel("user-auth", "tasks.md"), "# Tasks\n")
	outside := filepath.Join(t.TempDir(), "secret.json")
	require.NoError(t, os.WriteFile(outside, []byte(`{"secret": true}`), 0o600))
	f.symlink(rel("user-auth", "state.json"), outside)
	f.symlink(rel("user-auth", "dangling.md"), filepath.Join(t.TempDir(), "gone.md"))
	require.NoError(t, os.MkdirAll(f.abs(rel("user-auth", "sources")), 0o777))

	data, err := f.s.ReadWorktree(rel("user-auth", "tasks.md"))
	require.NoError(t, err)
	assert.Equal(t, "# Tasks\n", string(data))

	_, err = f.s.ReadWorktree(rel("user-auth", "missing.md"))
	assert.ErrorIs(t, err, fs.ErrNotExist)

	data, err = f.s.ReadWorktree(rel("user-auth", "state.json"))
	require.Error(t, err)
	assert.Nil(t, data)
	assert.Equal(t, ".claude/iterative/user-auth/state.json is a symbolic link (to "+outside+
		"); itr reads and writes only regular files inside the repository: replace it with a regular file", err.Error())

	_, err = f.s.ReadWorktree(rel("user-auth", "dangling.md"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "dangling.md is a symbolic link")
	assert.NotErrorIs(t, err, fs.ErrNotExist, "a dangling link is refused, not missing")

	_, err = f.s.ReadWorktree(rel("user-auth", "sources"))
	require.Error(t, err)
	assert.Equal(t, ".claude/iterative/user-auth/sources is not a regular file", err.Error())
}

func TestCheckClean(t *testing.T) {
	t.Parallel()
	files := plannedFiles(t)
	tests := []struct {
		name       string
		guardrails bool // guardrails.md committed
		setup      func(f *fixture)
		err        string
	}{
		{name: "clean", guardrails: true, setup: func(*fixture) {}},
		{name: "other files edited", guardrails: true, setup: func(f *fixture) {
			f.write(rel("user-auth", "brief.md"), "# Edited\n")
			f.write(rel("user-auth", "tasks.md"), "# Edited\n")
			f.write(rel("user-auth", "sources/new.md"), "new\n")
		}},
		{name: "progress.md appended by hand", guardrails: true, setup: func(f *fixture) {
			f.write(rel("user-auth", "progress.md"), string(files["progress.md"])+"\n## T3 - Iteration 1 - 2026-01-14T13:00:00Z\n**Did:** by hand\n")
		}, err: ".claude/iterative/user-auth/progress.md has 1 entry appended that no commit holds (a record stopped before its commit); run `itr reconcile` to record it, or discard it with `git checkout -- .claude/iterative/user-auth/progress.md`"},
		{name: "state.json edited", guardrails: true, setup: func(f *fixture) {
			f.write(rel("user-auth", "state.json"), "{}\n")
		}, err: ".claude/iterative/user-auth/state.json has uncommitted changes; run `itr reconcile`"},
		{name: "guardrails.md edited", guardrails: true, setup: func(f *fixture) {
			f.write(rel("user-auth", "guardrails.md"), "# Guardrails\n")
		}, err: ".claude/iterative/user-auth/guardrails.md has uncommitted changes"},
		{name: "state.json deleted", guardrails: true, setup: func(f *fixture) {
			require.NoError(f.t, os.Remove(f.abs(rel("user-auth", "state.json"))))
		}, err: ".claude/iterative/user-auth/state.json was deleted from the working tree; run `itr reconcile` to restore it, or `git checkout -- .claude/iterative/user-auth/state.json`"},
		{name: "guardrails.md never committed, absent", setup: func(*fixture) {}},
		{name: "guardrails.md never committed, created", setup: func(f *fixture) {
			f.write(rel("user-auth", "guardrails.md"), "# Guardrails\n")
		}, err: ".claude/iterative/user-auth/guardrails.md has uncommitted changes"},
		{name: "state.json made a symbolic link", guardrails: true, setup: func(f *fixture) {
			outside := filepath.Join(f.t.TempDir(), "state.json")
			require.NoError(f.t, os.WriteFile(outside, files["state.json"], 0o666))
			f.symlink(rel("user-auth", "state.json"), outside)
		}, err: ".claude/iterative/user-auth/state.json is a symbolic link (to "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			names := []string{"state.json", "progress.md", "tasks.md"}
			if tt.guardrails {
				names = append(names, "guardrails.md")
			}
			var changes []gitstate.FileChange
			for _, n := range names {
				changes = append(changes, gitstate.FileChange{Path: rel("user-auth", n), Data: files[n]})
			}
			f.commit(itrMsg("user-auth", store.EventIteration), changes...)
			task, err := f.s.Load("user-auth")
			require.NoError(t, err)
			tt.setup(f)

			err = f.s.CheckClean(task)
			if tt.err == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.err)
		})
	}
}

func TestFolderChanges(t *testing.T) {
	t.Parallel()
	files := plannedFiles(t)
	dir := root + "/user-auth/"
	type change struct {
		path string
		data string // "-" for a delete
	}
	tests := []struct {
		name    string
		setup   func(f *fixture)
		written []string
		want    []change
		gone    []string // files removed from disk
		kept    []string // files still on disk
	}{
		{name: "clean", setup: func(*fixture) {}},
		{name: "edits, additions and deletions, sorted",
			setup: func(f *fixture) {
				f.write(dir+"brief.md", "# Brief, edited\n")
				f.write(dir+"sources/paper.md", "# Paper\n")
				f.write(dir+"outputs/deep/report.md", "# Report\n")
				require.NoError(f.t, os.Remove(f.abs(dir+"context.md")))
			},
			want: []change{
				{dir + "brief.md", "# Brief, edited\n"},
				{dir + "context.md", "-"},
				{dir + "outputs/deep/report.md", "# Report\n"},
				{dir + "sources/paper.md", "# Paper\n"},
			}},
		{name: "files the record writes are left out",
			setup: func(f *fixture) {
				f.write(dir+"state.json", "{}\n")
				f.write(dir+"progress.md", "# Progress Log\n")
				require.NoError(f.t, os.Remove(f.abs(dir+"guardrails.md")))
				f.write(dir+"tasks.md", "# Tasks, edited\n")
			},
			written: []string{"state.json", "progress.md", "guardrails.md"},
			want:    []change{{dir + "tasks.md", "# Tasks, edited\n"}}},
		{name: "itr's temporary files are removed",
			setup: func(f *fixture) {
				f.write(dir+"state.json.itr-4242-1.tmp", "{}")
				f.write(dir+".progress.md.itr-x8Yz", "# partial")
				f.write(dir+"sources/notes.md.itr-7-3.tmp", "partial")
				f.write(dir+"notes.tmp", "a user's file")
				f.write(dir+".itrrc", "a user's dotfile")
			},
			gone: []string{dir + "state.json.itr-4242-1.tmp", dir + ".progress.md.itr-x8Yz", dir + "sources/notes.md.itr-7-3.tmp"},
			kept: []string{dir + "notes.tmp", dir + ".itrrc", dir + "sources"},
			want: []change{{dir + ".itrrc", "a user's dotfile"}, {dir + "notes.tmp", "a user's file"}}},
		{name: "symbolic links are skipped",
			setup: func(f *fixture) {
				outside := filepath.Join(f.t.TempDir(), "out.md")
				require.NoError(f.t, os.WriteFile(outside, []byte("outside\n"), 0o666))
				f.symlink(dir+"link.md", outside)
				f.symlink(dir+"context.md", outside) // a committed file become a link: not a delete
			}},
		{name: "the folder is gone",
			setup:   func(f *fixture) { require.NoError(f.t, os.RemoveAll(f.abs(root+"/user-auth"))) },
			written: []string{"state.json"},
			want: []change{
				{dir + "brief.md", "-"}, {dir + "context.md", "-"}, {dir + "guardrails.md", "-"},
				{dir + "progress.md", "-"}, {dir + "tasks.md", "-"},
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.commit(itrMsg("user-auth", store.EventIteration),
				put(dir+"state.json", string(files["state.json"])), put(dir+"progress.md", string(files["progress.md"])),
				put(dir+"guardrails.md", string(files["guardrails.md"])), put(dir+"tasks.md", string(files["tasks.md"])),
				put(dir+"brief.md", "# Brief\n"), put(dir+"context.md", "# Context\n"),
				put("README.md", "outside the folder\n"))
			task, err := f.s.Load("user-auth")
			require.NoError(t, err)
			tt.setup(f)
			written := map[string]bool{}
			for _, n := range tt.written {
				written[dir+n] = true
			}

			got, err := f.s.FolderChanges(task, written)
			require.NoError(t, err)
			var gotC []change
			for _, c := range got {
				if c.Delete {
					assert.Nil(t, c.Data, c.Path)
					gotC = append(gotC, change{c.Path, "-"})
				} else {
					gotC = append(gotC, change{c.Path, string(c.Data)})
				}
			}
			assert.Equal(t, tt.want, gotC)
			for _, p := range tt.gone {
				assert.NoFileExists(t, f.abs(p))
			}
			for _, p := range tt.kept {
				_, err := os.Lstat(f.abs(p))
				assert.NoError(t, err, p)
			}
		})
	}
}

func TestFolderChangesWithoutCommit(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.write(rel("user-auth", "state.json"), "{}")
	f.write(rel("user-auth", "sources/a.md"), "a")
	task := &store.Task{Slug: "user-auth", Dir: f.s.TaskDir("user-auth")}

	got, err := f.s.FolderChanges(task, map[string]bool{rel("user-auth", "state.json"): true})
	require.NoError(t, err)
	assert.Equal(t, []gitstate.FileChange{{Path: rel("user-auth", "sources/a.md"), Data: []byte("a")}}, got)
	assert.Zero(t, f.fake.Calls("TreeFiles"), "no commit, no tree to read")
}

func TestFolderChangesErrors(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.initTask("user-auth")
	task, err := f.s.Load("user-auth")
	require.NoError(t, err)

	f.fake.Fail("TreeFiles", errBoom)
	got, err := f.s.FolderChanges(task, nil)
	assert.ErrorIs(t, err, errBoom)
	assert.Nil(t, got)
	f.fake.Fail("TreeFiles", nil)

	// A folder that cannot be listed, without relying on permissions
	// (the tests may run as root): the task folder is a file's child.
	broken := &store.Task{Slug: "user-auth", Dir: rel("user-auth", "brief.md") + "/sub"}
	got, err = f.s.FolderChanges(broken, nil)
	require.Error(t, err)
	assert.Nil(t, got)
	assert.Contains(t, err.Error(), "read the task folder .claude/iterative/user-auth/brief.md/sub: ")
	assert.NotErrorIs(t, err, fs.ErrNotExist)
}

func TestIsItrTemp(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		want bool
	}{
		{"state.json.itr-4242-1.tmp", true},
		{".progress.md.itr-x8Yz", true},
		{".guardrails.md.itr-123-4.tmp", true},
		{"state.json", false},
		{"notes.tmp", false},
		{".itrrc", false},
		{"my.itr-notes.md", false},
		{"state.json.itr.tmp", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, store.IsItrTemp(tt.name), tt.name)
	}
}

func TestPlanNameFor(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "tasks.md", store.PlanNameFor(state.Development))
	assert.Equal(t, "plan.md", store.PlanNameFor(state.Knowledge))
	assert.Equal(t, "tasks.md", store.PlanNameFor(state.Mode("")))
}
