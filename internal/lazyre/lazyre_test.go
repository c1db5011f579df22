package lazyre

import (
	"regexp"
	"sync"
	"testing"
)

func TestLazyMatchesCompiled(t *testing.T) {
	const src = `^(\w+): (\d+)$`
	lazy, eager := New(src), regexp.MustCompile(src)
	for _, s := range []string{"a: 1", "bb: 22 ", "", "x: y"} {
		if got, want := lazy.MatchString(s), eager.MatchString(s); got != want {
			t.Errorf("MatchString(%q) = %v, want %v", s, got, want)
		}
		if got, want := lazy.FindStringSubmatch(s), eager.FindStringSubmatch(s); len(got) != len(want) {
			t.Errorf("FindStringSubmatch(%q) = %q, want %q", s, got, want)
		}
		if got, want := lazy.ReplaceAllString(s, "-"), eager.ReplaceAllString(s, "-"); got != want {
			t.Errorf("ReplaceAllString(%q) = %q, want %q", s, got, want)
		}
	}
	if first, again := lazy.Get(), lazy.Get(); first != again {
		t.Error("Get compiled twice")
	}
}

func TestOfBuildsOnceAcrossGoroutines(t *testing.T) {
	calls := 0
	r := Of(func() *regexp.Regexp { calls++; return regexp.MustCompile(`x+`) })
	if calls != 0 {
		t.Fatal("Of built the expression before its first use")
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() { defer wg.Done(); _ = r.FindString("axxb") }()
	}
	wg.Wait()
	if calls != 1 {
		t.Errorf("built %d times, want 1", calls)
	}
}
