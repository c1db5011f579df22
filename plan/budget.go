package plan

import (
	"strconv"
	"strings"
)

// Weight reads the unit's Estimate: a positive number of points ("3",
// kind "pts") or a time in hours ("2h", "1.5d" as 8-hour days, "45m";
// kind "h"). ok is false without an Estimate or when it is not one.
func (u *Unit) Weight() (value float64, kind string, ok bool) {
	v := strings.ToLower(strings.TrimSpace(u.Estimate))
	if v == "" || isTemplate(v) {
		return 0, "", false
	}
	kind, scale := "pts", 1.0
	for _, suf := range []struct {
		s     string
		scale float64
	}{{"points", 1}, {"pts", 1}, {"pt", 1}, {"h", 1}, {"d", 8}, {"m", 1.0 / 60}} {
		if strings.HasSuffix(v, suf.s) {
			v = strings.TrimSpace(strings.TrimSuffix(v, suf.s))
			if !strings.HasPrefix(suf.s, "p") {
				kind = "h"
			}
			scale = suf.scale
			break
		}
	}
	n, err := strconv.ParseFloat(v, 64)
	if err != nil || n <= 0 || n > 1e6 {
		return 0, "", false
	}
	return n * scale, kind, true
}

// The header lines of a plan that set limits of the whole task.
const (
	// MetaMaxTotal caps the iterations of the whole task
	// ("**Max total iterations:** 60").
	MetaMaxTotal = "Max total iterations"
	// MetaCheckIn asks for a check-in every N iterations
	// ("**Check in every:** 5").
	MetaCheckIn = "Check in every"
)

// MetaCount reads a header line holding a positive whole number; ok is
// false when the plan lacks it or it is not one.
func (p *Plan) MetaCount(key string) (n int, ok bool) {
	if p == nil {
		return 0, false
	}
	for _, f := range p.Meta {
		if strings.EqualFold(f.Key, key) {
			return positive(strings.TrimSpace(f.Value))
		}
	}
	return 0, false
}

// MetaLine is the line of the header line key ("**Max total
// iterations:** 60") in the plan's file, 0 when the plan lacks it or was
// not parsed from a file.
func (p *Plan) MetaLine(key string) int {
	if p == nil {
		return 0
	}
	for i, f := range p.Meta {
		if strings.EqualFold(f.Key, key) && i < len(p.metaLines) {
			return p.metaLines[i]
		}
	}
	return 0
}
