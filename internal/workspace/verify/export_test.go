package verify

// Resumes is how many walks of the history started from a remembered one.
func Resumes() int64 { return resumes.Load() }

// FoldSkips is how many fold checks were not redone for the same bytes.
func FoldSkips() int64 { return foldSkips.Load() }
