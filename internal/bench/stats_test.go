//go:build !windows

package main

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/itr-dev/itr/plan"
)

func TestMedian(t *testing.T) {
	ints := []struct {
		in   []int
		want int
	}{
		{[]int{7}, 7},
		{[]int{3, 1, 2}, 2},
		{[]int{9, 9, 1}, 9},
		{[]int{5, 1, 4, 2, 3}, 3},
		{[]int{4, 1, 3, 2}, 3},  // even: the upper of the two middle values
		{[]int{10, 20}, 20},     // even: the upper one
		{[]int{-5, -1, -3}, -3}, // negatives sort below
	}
	for _, c := range ints {
		in := slices.Clone(c.in)
		if got := median(in); got != c.want {
			t.Errorf("median(%v) = %d, want %d", c.in, got, c.want)
		}
		if !slices.Equal(in, c.in) {
			t.Errorf("median(%v) reordered its argument to %v", c.in, in)
		}
	}
	ds := []time.Duration{30 * time.Millisecond, 10 * time.Millisecond, 20 * time.Millisecond, 40 * time.Millisecond}
	if got := median(ds); got != 30*time.Millisecond {
		t.Errorf("median(%v) = %v, want 30ms", ds, got)
	}
	if got := median([]float64{2.5, 0.5, 1.5}); got != 1.5 {
		t.Errorf("median of floats = %v, want 1.5", got)
	}
	if got := median([]string{"b", "c", "a"}); got != "b" {
		t.Errorf("median of strings = %q, want b", got)
	}
	if got := median([]int64{3 << 20, 1 << 10, 2 << 20}); got != 2<<20 {
		t.Errorf("median of int64 = %d, want %d", got, 2<<20)
	}
}

func TestMedianRatio(t *testing.T) {
	s := time.Second
	cases := []struct {
		name string
		a, b []time.Duration
		want float64
	}{
		{"one round", []time.Duration{3 * s}, []time.Duration{2 * s}, 1.5},
		// ratios 2, 3, 1: the middle one is 2
		{"odd", []time.Duration{2 * s, 9 * s, 3 * s}, []time.Duration{s, 3 * s, 3 * s}, 2},
		// ratios 1, 0.5, 0.25, 0.125: the upper middle one is 0.5
		{"even", []time.Duration{s, s, s, s}, []time.Duration{s, 2 * s, 4 * s, 8 * s}, 0.5},
		// the median of the ratios (0.5), not the ratio of the medians (4/2)
		{"per round", []time.Duration{s, 10 * s, 100 * s, 4 * s, 4 * s}, []time.Duration{2 * s, 20 * s, 200 * s, s, s}, 0.5},
	}
	for _, c := range cases {
		if got := medianRatio(c.a, c.b); got != c.want {
			t.Errorf("%s: medianRatio = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestGGStatsMedians(t *testing.T) {
	msec := time.Millisecond
	cases := []struct {
		s        ggStats
		wantTime time.Duration
		wantB    uint64
	}{
		{ggStats{}, 0, 0},
		{ggStats{err: errors.New("x")}, 0, 0},
		{ggStats{times: []time.Duration{5 * msec}, bytes: []uint64{7}}, 5 * msec, 7},
		{ggStats{times: []time.Duration{3 * msec, msec, 2 * msec}, bytes: []uint64{9, 1, 5}}, 2 * msec, 5},
		{ggStats{times: []time.Duration{4 * msec, msec, 3 * msec, 2 * msec}, bytes: []uint64{4, 1, 3, 2}}, 3 * msec, 3},
		{ggStats{times: []time.Duration{msec, 2 * msec}}, 2 * msec, 0}, // no bytes measured
	}
	for _, c := range cases {
		times, bytes := slices.Clone(c.s.times), slices.Clone(c.s.bytes)
		if got := c.s.med(); got != c.wantTime {
			t.Errorf("%+v.med() = %v, want %v", c.s, got, c.wantTime)
		}
		if got := c.s.medBytes(); got != c.wantB {
			t.Errorf("%+v.medBytes() = %d, want %d", c.s, got, c.wantB)
		}
		if !slices.Equal(times, c.s.times) || !slices.Equal(bytes, c.s.bytes) {
			t.Errorf("the medians reordered the measurements: %v %v", c.s.times, c.s.bytes)
		}
	}
}

func TestDurationFormats(t *testing.T) {
	us, msec := time.Microsecond, time.Millisecond
	cases := []struct {
		d               time.Duration
		wantMs, wantMsp string
		wantMsf         float64
	}{
		{0, "0.0 ms", "0.00 ms", 0},
		{999, "0.0 ms", "0.00 ms", 0.000999}, // below a microsecond: ms and msp truncate it
		{500 * us, "0.5 ms", "0.50 ms", 0.5},
		{1500 * us, "1.5 ms", "1.50 ms", 1.5},
		{1_234_567, "1.2 ms", "1.23 ms", 1.234567},
		{1_960 * us, "2.0 ms", "1.96 ms", 1.96},
		{12_340 * us, "12.3 ms", "12.34 ms", 12.34},
		{42 * msec, "42.0 ms", "42.00 ms", 42},
		{2 * time.Second, "2000.0 ms", "2000.00 ms", 2000},
	}
	for _, c := range cases {
		if got := ms(c.d); got != c.wantMs {
			t.Errorf("ms(%v) = %q, want %q", c.d, got, c.wantMs)
		}
		if got := msp(c.d); got != c.wantMsp {
			t.Errorf("msp(%v) = %q, want %q", c.d, got, c.wantMsp)
		}
		if got := msf(c.d); got != c.wantMsf {
			t.Errorf("msf(%v) = %v, want %v", c.d, got, c.wantMsf)
		}
	}
}

func TestSizeFormats(t *testing.T) {
	mibs := []struct {
		kib  int64
		want string
	}{
		{0, "0.0 MiB"},
		{100, "0.1 MiB"}, // 0.098 MiB
		{1024, "1.0 MiB"},
		{1536, "1.5 MiB"},
		{300 * 1024, "300.0 MiB"},
	}
	for _, c := range mibs {
		if got := mib(c.kib); got != c.want {
			t.Errorf("mib(%d) = %q, want %q", c.kib, got, c.want)
		}
	}
	kibs := []struct {
		kib  int64
		want string
	}{
		{0, "0 KiB"},
		{4, "4 KiB"},
		{10*1024 - 1, "10239 KiB"}, // the last size in KiB
		{10 * 1024, "10.0 MiB"},    // from 10 MiB on, MiB
		{20*1024 + 512, "20.5 MiB"},
	}
	for _, c := range kibs {
		if got := kib(c.kib); got != c.want {
			t.Errorf("kib(%d) = %q, want %q", c.kib, got, c.want)
		}
	}
	sizes := []struct {
		b    uint64
		want string
	}{
		{0, "0 B"},
		{1, "1 B"},
		{1023, "1023 B"},
		{1024, "1.0 KiB"},
		{1536, "1.5 KiB"},
		{100 * 1024, "100.0 KiB"},
		{1 << 20, "1.0 MiB"},
		{5<<20 + 1<<19, "5.5 MiB"},
		{1 << 30, "1024.0 MiB"},
	}
	for _, c := range sizes {
		if got := ggSize(c.b); got != c.want {
			t.Errorf("ggSize(%d) = %q, want %q", c.b, got, c.want)
		}
	}
}

func TestGGTime(t *testing.T) {
	us, msec := time.Microsecond, time.Millisecond
	boom := errors.New("boom")
	cases := []struct {
		s    ggStats
		want string
	}{
		{ggStats{err: boom}, "failed"},
		// failed after some runs: the median of those it made
		{ggStats{err: boom, times: []time.Duration{2 * msec}}, "2.00 ms"},
		{ggStats{}, "0 µs"},
		{ggStats{times: []time.Duration{1400}}, "1 µs"},
		{ggStats{times: []time.Duration{250 * us}}, "250 µs"},
		{ggStats{times: []time.Duration{999 * us}}, "999 µs"},
		{ggStats{times: []time.Duration{msec}}, "1.00 ms"},
		{ggStats{times: []time.Duration{12_340 * us}}, "12.34 ms"},
		{ggStats{times: []time.Duration{3 * msec, msec, 2 * msec}}, "2.00 ms"},
		{ggStats{times: []time.Duration{msec, 4 * msec}}, "4.00 ms"},
		{ggStats{times: []time.Duration{100 * us, 900 * us, 300 * us}}, "300 µs"},
	}
	for _, c := range cases {
		if got := ggTime(c.s); got != c.want {
			t.Errorf("ggTime(%v, err %v) = %q, want %q", c.s.times, c.s.err, got, c.want)
		}
	}
}

func TestGGBytes(t *testing.T) {
	cases := []struct {
		s    ggStats
		want string
	}{
		{ggStats{}, "—"},
		{ggStats{times: []time.Duration{time.Millisecond}}, "—"},
		{ggStats{bytes: []uint64{0}}, "0 B"},
		{ggStats{bytes: []uint64{100, 300, 200}}, "200 B"},
		{ggStats{bytes: []uint64{1, 1 << 20, 2 << 20, 3 << 20}}, "2.0 MiB"},
		{ggStats{bytes: []uint64{1024, 4096, 2048}}, "2.0 KiB"},
	}
	for _, c := range cases {
		if got := ggBytes(c.s); got != c.want {
			t.Errorf("ggBytes(%v) = %q, want %q", c.s.bytes, got, c.want)
		}
	}
}

func TestFirstLine(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", ""},
		{"one", "one"},
		{"one\ntwo\n", "one"},
		{"\n  fatal: not a git repository\nhint: x\n", "fatal: not a git repository"},
		{"   \n\n\t", ""},
		{"only line\n", "only line"},
	}
	for _, c := range cases {
		if got := firstLine(c.in); got != c.want {
			t.Errorf("firstLine(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestNativeTarget(t *testing.T) {
	cases := []struct {
		name string
		want float64
	}{
		{"LARGE", nativeTargetLarge},
		{"SMALL", nativeTargetSmall},
		{"", nativeTargetSmall},
		{"large", nativeTargetSmall}, // the sizes are named in capitals
	}
	for _, c := range cases {
		if got := nativeTarget(c.name); got != c.want {
			t.Errorf("nativeTarget(%q) = %v, want %v", c.name, got, c.want)
		}
	}
	// The figures the bench's documentation gives.
	if nativeTargetLarge != 0.2 || nativeTargetSmall != 0.5 || gitEngineTarget != 1.0 {
		t.Errorf("targets %v %v %v, want 0.2 0.5 1.0", nativeTargetLarge, nativeTargetSmall, gitEngineTarget)
	}
}

func TestGGPath(t *testing.T) {
	small := repoSize{"SMALL", 99, 10, 50}
	large := repoSize{"LARGE", 99980, 960, 2000}
	cases := []struct {
		size repoSize
		i    int
		want string
	}{
		{small, 0, "pkg00/sub000/file000000.txt"},
		{small, 13, "pkg03/sub003/file000013.txt"},
		{small, 98, "pkg08/sub008/file000098.txt"},
		{large, 45, "pkg15/sub045/file000045.txt"},    // folder 45, 45 mod 30 = 15
		{large, 960, "pkg00/sub000/file000960.txt"},   // folders wrap at 960
		{large, 99979, "pkg19/sub139/file099979.txt"}, // 99979 mod 960 = 139, 139 mod 30 = 19
	}
	for _, c := range cases {
		if got := ggPath(c.size, c.i); got != c.want {
			t.Errorf("ggPath(%s, %d) = %q, want %q", c.size.name, c.i, got, c.want)
		}
	}
}

func TestGGFiles(t *testing.T) {
	want := [][2]string{{"gogit-bench/a.txt", "a 3\n"}, {"gogit-bench/b.txt", "b 3\n"}}
	if got := ggFiles(3); !slices.Equal(got, want) {
		t.Errorf("ggFiles(3) = %q, want %q", got, want)
	}
	if a, b := ggFiles(0), ggFiles(1); a[0][1] == b[0][1] || a[1][1] == b[1][1] {
		t.Errorf("two rounds write the same contents: %q %q", a, b)
	}
}

func TestGGNotes(t *testing.T) {
	ok := ggStats{}
	gsBad := ggStats{err: errors.New("boom")}
	ggBad := ggStats{err: errors.New("bad tree")}
	cases := []struct {
		gs, gg ggStats
		ok     string
		want   []string
	}{
		{ok, ok, "both equal git", []string{"both equal git"}},
		{ok, ok, "", nil},
		{gsBad, ok, "both equal git", []string{"gitstate FAILED: boom"}},
		{ok, ggBad, "both equal git", []string{"go-git FAILED: bad tree"}},
		{gsBad, ggBad, "", []string{"gitstate FAILED: boom", "go-git FAILED: bad tree"}},
	}
	for _, c := range cases {
		if got := ggNotes(c.gs, c.gg, c.ok); !slices.Equal(got, c.want) {
			t.Errorf("ggNotes(%v, %v, %q) = %q, want %q", c.gs.err, c.gg.err, c.ok, got, c.want)
		}
	}
}

func TestGGCompare(t *testing.T) {
	var order []string
	op := func(name string, failOn int) func() error {
		n := 0
		return func() error {
			n++
			order = append(order, name)
			if n == failOn {
				return errors.New(name + " failed")
			}
			return nil
		}
	}
	gs, gg := ggCompare(3, op("gs", 0), op("gg", 0))
	// The first engine of each round swaps: gs gg, gg gs, gs gg.
	if want := []string{"gs", "gg", "gg", "gs", "gs", "gg"}; !slices.Equal(order, want) {
		t.Errorf("order %v, want %v", order, want)
	}
	for _, s := range []ggStats{gs, gg} {
		if s.err != nil || len(s.times) != 3 || len(s.bytes) != 3 {
			t.Errorf("stats %+v, want 3 times, 3 byte counts and no error", s)
		}
		for _, d := range s.times {
			if d <= 0 {
				t.Errorf("a measured time is %v, want it positive", d)
			}
		}
	}

	// An engine's first failure ends its runs; the other carries on.
	order = nil
	gs, gg = ggCompare(4, op("gs", 2), op("gg", 0))
	if want := []string{"gs", "gg", "gg", "gs", "gg", "gg"}; !slices.Equal(order, want) {
		t.Errorf("order %v, want %v", order, want)
	}
	if gs.err == nil || gs.err.Error() != "gs failed" || len(gs.times) != 1 {
		t.Errorf("gitstate stats %+v, want one time and the error of its second run", gs)
	}
	if gg.err != nil || len(gg.times) != 4 {
		t.Errorf("go-git stats %+v, want 4 times", gg)
	}
	if got := ggTime(gs); strings.HasSuffix(got, "failed") {
		t.Errorf("ggTime of an engine that failed after one run = %q, want its time", got)
	}
}

// sink keeps what TestGGMeasure allocates reachable.
var sink []byte

func TestGGMeasure(t *testing.T) {
	d, b, err := ggMeasure(func() error {
		sink = make([]byte, 1<<20)
		return nil
	})
	if err != nil || d <= 0 {
		t.Errorf("ggMeasure = %v, %v; want a positive time and no error", d, err)
	}
	if b < 1<<20 {
		t.Errorf("ggMeasure counted %d bytes allocated, want at least the %d the operation made", b, 1<<20)
	}
	want := errors.New("op failed")
	if _, _, err := ggMeasure(func() error { return want }); !errors.Is(err, want) {
		t.Errorf("ggMeasure returned %v, want the operation's error", err)
	}
}

func TestUnitsPlan(t *testing.T) {
	want3 := "# Demo - Tasks\n\n## Tasks\n\n" +
		"- [ ] **T1**: unit 1\n  - Max iterations: 5\n" +
		"- [ ] **T2**: unit 2\n  - Max iterations: 5\n  - Depends: T1\n" +
		"- [ ] **T3**: unit 3\n  - Max iterations: 5\n  - Depends: T2\n"
	if got := string(unitsPlan(3)); got != want3 {
		t.Errorf("unitsPlan(3) =\n%s\nwant\n%s", got, want3)
	}
	// What itr's own parser makes of it: a chain, T1 ready first.
	for _, n := range []int{1, 2, 7} {
		p, err := plan.Parse("tasks.md", unitsPlan(n))
		if err != nil {
			t.Fatalf("unitsPlan(%d) does not parse: %v", n, err)
		}
		if len(p.Units) != n {
			t.Fatalf("unitsPlan(%d) has %d units", n, len(p.Units))
		}
		var order []string
		for i, u := range p.Units {
			id := "T" + strconv.Itoa(i+1)
			order = append(order, id)
			if u.ID != id || u.MaxIterations != 5 || u.Done {
				t.Errorf("unitsPlan(%d) unit %d: %s, max %d, done %v", n, i, u.ID, u.MaxIterations, u.Done)
			}
			wantDeps := []string(nil)
			if i > 0 {
				wantDeps = []string{"T" + strconv.Itoa(i)}
			}
			if !slices.Equal(p.Deps(id), wantDeps) {
				t.Errorf("unitsPlan(%d): %s depends on %v, want %v", n, id, p.Deps(id), wantDeps)
			}
		}
		if got := p.Order(); !slices.Equal(got, order) {
			t.Errorf("unitsPlan(%d) runs in order %v, want %v", n, got, order)
		}
		if got := p.Ready(func(string) bool { return false }); !slices.Equal(got, []string{"T1"}) {
			t.Errorf("unitsPlan(%d): ready at the start %v, want [T1]", n, got)
		}
	}
	if p, err := plan.Parse("tasks.md", unitsPlan(0)); err != nil || len(p.Units) != 0 {
		t.Errorf("unitsPlan(0) parses to %v units, %v; want an empty plan", p, err)
	}
}

func TestBenchPlansParse(t *testing.T) {
	p, err := plan.Parse("tasks.md", []byte(benchPlan))
	if err != nil || len(p.Units) != 1 || p.Units[0].ID != "T1" {
		t.Fatalf("benchPlan parses to %+v, %v; want the one unit T1", p, err)
	}
	p, err = plan.Parse("tasks.md", []byte(mergePlan))
	if err != nil || len(p.Units) != 2 {
		t.Fatalf("mergePlan parses to %+v, %v; want two units", p, err)
	}
	for _, u := range p.Units {
		if u.MaxIterations != 1000000 || len(p.Deps(u.ID)) != 0 {
			t.Errorf("mergePlan unit %s: max %d, deps %v; want 1000000 and none", u.ID, u.MaxIterations, p.Deps(u.ID))
		}
	}
}

func TestAtoi(t *testing.T) {
	for s, want := range map[string]int{"0": 0, "42": 42, "-7": -7, "2000": 2000} {
		if got := atoi(s); got != want {
			t.Errorf("atoi(%q) = %d, want %d", s, got, want)
		}
	}
}

func TestLineEnding(t *testing.T) {
	dir := t.TempDir()
	cases := []struct{ content, want string }{
		{"", "\n"},
		{"no newline", "\n"},
		{"a\nb\n", "\n"},
		{"a\r\nb\r\n", "\r\n"},
		{"a\nb\r\n", "\r\n"}, // one CRLF is enough
		{"a\rb\r", "\n"},     // a lone CR is not CRLF
	}
	for i, c := range cases {
		p := filepath.Join(dir, strconv.Itoa(i))
		if err := os.WriteFile(p, []byte(c.content), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := lineEnding(p); got != c.want {
			t.Errorf("lineEnding of %q = %q, want %q", c.content, got, c.want)
		}
	}
}

func TestAppendToAndAppendFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "work.txt")
	appendTo(p, "round 1\n") // creates it
	appendTo(p, "round 2\n")
	appendFile(p, "round 3\n") // appends to a file that is there
	got, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if want := "round 1\nround 2\nround 3\n"; string(got) != want {
		t.Errorf("the file holds %q, want %q", got, want)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm()&0o600 != 0o600 {
		t.Errorf("appendTo made the file with mode %v, want it readable and writable by its owner", fi.Mode())
	}
}

func TestLoadAverage(t *testing.T) {
	first := func() string {
		b, err := os.ReadFile("/proc/loadavg")
		if err != nil {
			return "?"
		}
		return strings.Fields(string(b))[0]
	}
	before := first()
	got := loadAverage()
	after := first()
	// The 1-minute figure, the first field (it may move on between reads).
	if got != before && got != after {
		t.Errorf("loadAverage() = %q, /proc/loadavg starts with %q", got, before)
	}
	if _, err := strconv.ParseFloat(got, 64); err != nil && got != "?" {
		t.Errorf("loadAverage() = %q, neither a number nor ?", got)
	}
}

func TestIsolatedEnv(t *testing.T) {
	t.Setenv("GIT_DIR", "/nowhere/.git")
	t.Setenv("GIT_AUTHOR_NAME", "Someone Else")
	t.Setenv("ITR_ENGINE", "git")
	t.Setenv("HOME", "/home/not-this-one")
	t.Setenv("XDG_CONFIG_HOME", "/home/not-this-one/.config")
	t.Setenv("BENCH_TEST_KEPT", "kept")
	root := t.TempDir()
	t.Chdir(root)

	env := isolatedEnv("rel")
	home := filepath.Join(root, "rel", "home")
	if fi, err := os.Stat(home); err != nil || !fi.IsDir() {
		t.Fatalf("isolatedEnv did not make its HOME %s: %v", home, err)
	}
	want := map[string]string{
		"HOME":                home,
		"XDG_CONFIG_HOME":     filepath.Join(home, ".config"),
		"GIT_CONFIG_NOSYSTEM": "1",
		"GIT_AUTHOR_NAME":     "Bench",
		"GIT_AUTHOR_EMAIL":    "bench@example.com",
		"GIT_COMMITTER_NAME":  "Bench",
		"GIT_COMMITTER_EMAIL": "bench@example.com",
		"BENCH_TEST_KEPT":     "kept",
	}
	seen := map[string]int{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		seen[k]++
		if w, ok := want[k]; ok && v != w {
			t.Errorf("%s=%q, want %q", k, v, w)
		}
	}
	for k := range want {
		if seen[k] != 1 {
			t.Errorf("%s appears %d times, want once", k, seen[k])
		}
	}
	for _, k := range []string{"GIT_DIR", "ITR_ENGINE"} {
		if seen[k] != 0 {
			t.Errorf("%s from the caller's environment leaks into the bench's", k)
		}
	}
	if _, ok := envValue(env, "PATH"); !ok && os.Getenv("PATH") != "" {
		t.Error("PATH is not passed on")
	}
}
