package progresslog

// Union merges two versions of progress.md that grew from a common base,
// as a merge, a rebase or a cherry-pick of itr's log needs: the result is
// ours byte for byte, then every entry only theirs has, appended in
// theirs' order. Every entry of both sides is kept exactly once (entries
// are compared by their rendered form), the result is an append-only
// extension of ours, and the same inputs always give the same bytes. base
// is used only to report entries one side removed, which Union keeps.
func Union(base, ours, theirs []byte) (merged []byte, added int, err error) {
	ol, tl := Parse(ours), Parse(theirs)
	seen := map[string]bool{}
	for _, e := range ol.Entries {
		seen[entryKey(e)] = true
	}
	merged = ours
	if ol.Conflicted || len(ours) == 0 {
		// A side that is itself conflicted (or missing) is rebuilt from its
		// entries so the result holds no markers.
		merged = nil
		seen = map[string]bool{}
		for _, e := range ol.Entries {
			if k := entryKey(e); !seen[k] {
				seen[k] = true
				if merged, err = appendEntry(merged, e); err != nil {
					return nil, 0, err
				}
			}
		}
	}
	extra := tl.Entries
	if base != nil {
		// Entries the base had that ours lost (a rewrite on our side) are
		// kept too: nothing anyone wrote is dropped by a merge.
		extra = append(append([]Entry(nil), Parse(base).Entries...), extra...)
	}
	for _, e := range extra {
		k := entryKey(e)
		if seen[k] {
			continue
		}
		seen[k] = true
		if merged, err = appendEntry(merged, e); err != nil {
			return nil, 0, err
		}
		added++
	}
	return merged, added, nil
}

func appendEntry(old []byte, e Entry) ([]byte, error) {
	e.Side, e.Line = Both, 0
	return Append(old, e)
}

// entryKey identifies an entry by its canonical rendering.
func entryKey(e Entry) string {
	e.Side, e.Line = Both, 0
	b, err := RenderEntry(e, "\n")
	if err != nil {
		return e.Heading
	}
	return string(b)
}
