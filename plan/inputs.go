package plan

import (
	"fmt"
	"strings"
)

// Input is one entry of a unit's Inputs sub-item: a file or folder the unit
// reads, or every output of another unit.
type Input struct {
	// Name is a file, or a folder when it ends in "/", relative to the task
	// folder (else to the repository root: the reader decides); "" for a
	// unit's outputs.
	Name string
	// Unit is the unit whose Output the entry names ("T1.output"), else "".
	Unit string
}

// String is the entry as the plan writes it: "outputs/notes.md" or
// "T1.output".
func (in Input) String() string {
	if in.Unit != "" {
		return in.Unit + ".output"
	}
	return in.Name
}

// InputRefs returns the entries of the unit's Inputs sub-item in order and
// without duplicates, nil without one, for "none" or "-", or while its
// value is template text. Entries are separated by commas or lines, and
// each may be in backquotes: "Inputs: T1.output, `sources/cases.md`".
func (u *Unit) InputRefs() []Input {
	if u.Inputs == "" || isTemplate(u.Inputs) {
		return nil
	}
	refs, _ := parseInputs(u.Inputs)
	return refs
}

// InputFile is one file or folder a unit reads, resolved: a unit's outputs
// are named one by one, with From saying which unit gives them.
type InputFile struct {
	Name string // relative to the task folder, else to the repository root
	From string // the unit whose Output names it; "" when the plan names the file itself
}

// InputFiles returns the files and folders unit id reads: its Inputs with
// each "T1.output" replaced by the outputs T1's Output names, in order and
// without duplicates. It returns nil for an unknown unit or one without
// Inputs.
func (p *Plan) InputFiles(id string) []InputFile {
	u := p.Unit(id)
	if u == nil {
		return nil
	}
	var out []InputFile
	seen := map[string]bool{}
	add := func(name, from string) {
		if !seen[name] {
			seen[name] = true
			out = append(out, InputFile{Name: name, From: from})
		}
	}
	for _, in := range u.InputRefs() {
		if in.Unit == "" {
			add(in.Name, "")
			continue
		}
		if src := p.Unit(in.Unit); src != nil {
			for _, n := range src.Outputs() {
				add(n, in.Unit)
			}
		}
	}
	return out
}

// parseInputs reads an Inputs value. bad is the first entry that is
// neither a unit's outputs ("T1.output") nor a relative path inside the
// task folder.
func parseInputs(v string) (refs []Input, bad string) {
	var toks, raws []string
	for _, tok := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == '\n' }) {
		raw := strings.TrimSpace(tok)
		if t := strings.TrimSpace(strings.Trim(raw, "`")); t != "" {
			toks, raws = append(toks, t), append(raws, raw)
		}
	}
	none := func(t string) bool { return t == "-" || strings.EqualFold(t, "none") }
	if len(toks) == 1 && none(toks[0]) {
		return nil, ""
	}
	seen := map[Input]bool{}
	for i, t := range toks {
		var in Input
		if id, ok := unitOutput(t); ok {
			in.Unit = id
		} else if none(t) || badOutput(t) != "" || strings.ContainsAny(t, "`") {
			return nil, raws[i]
		} else {
			in.Name = t
		}
		if !seen[in] {
			seen[in] = true
			refs = append(refs, in)
		}
	}
	return refs, ""
}

// unitOutput reads "T1.output" (also "T1.outputs", in any case of
// "output"), giving the unit ID.
func unitOutput(t string) (string, bool) {
	i := strings.LastIndexByte(t, '.')
	if i <= 0 {
		return "", false
	}
	suffix := strings.ToLower(t[i+1:])
	if suffix != "output" && suffix != "outputs" {
		return "", false
	}
	if id := t[:i]; ValidID(id) {
		return id, true
	}
	return "", false
}

// inputErrors checks the unit references of every Inputs sub-item: the unit
// must exist, differ from the unit itself and name an Output.
func (p *Plan) inputErrors() []*Error {
	var errs []*Error
	index := p.Index()
	for _, u := range p.Units {
		line := u.lines.at(keyInputs)
		if line == 0 {
			line = u.Line
		}
		for _, in := range u.InputRefs() {
			if in.Unit == "" {
				continue
			}
			src := index[in.Unit]
			switch {
			case in.Unit == u.ID:
				errs = append(errs, p.errorf(line, "%s: Inputs names its own output (%s); name another unit's, or the files it reads", u.ID, in))
			case src == nil:
				errs = append(errs, p.errorf(line, "%s: Inputs names %s, but there is no unit %s; add it or remove the entry", u.ID, in, in.Unit))
			case len(src.Outputs()) == 0:
				errs = append(errs, p.errorf(line, "%s: Inputs names %s, but %s has no Output; give %s an \"Output:\" line, or name the file it writes instead", u.ID, in, in.Unit, in.Unit))
			}
		}
	}
	return errs
}

// inputsError words a bad entry of an Inputs value.
func inputsError(id, bad string) string {
	return fmt.Sprintf("%s: Inputs names %q; write relative paths without \"..\" (looked up in the task folder, then from the repository root) or another unit's outputs as T1.output, separated by commas", id, bad)
}
