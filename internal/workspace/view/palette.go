package view

// PaletteEntry is how one class of units is shown everywhere itr draws
// it: the fill and border of its box in the report's SVG, in DOT and in
// Mermaid; the border's pattern and a mark in the box, so that a class is
// told apart without colour too (blocked has a double border and "!",
// failed a heavy border and "×", waiting a dashed one, skipped a dotted
// one); its marker and words in the terminal's graph; and Term, the
// terminal colour of its status word (cmd/itr/color.go's statusColors
// agree with it: a test there checks).
type PaletteEntry struct {
	Class  string
	Fill   string // box fill, #rrggbb
	Stroke string // box border, #rrggbb
	// Dash is the border's SVG dash pattern ("" solid); DotStyle the
	// same in DOT's words ("dashed", "dotted", "").
	Dash, DotStyle string
	Double         bool   // a second, inner border (DOT: peripheries=2)
	Heavy          bool   // a thicker border
	Mark           string // drawn before the unit's ID in a box, "" none
	Marker         string // the terminal graph's marker, "[x]"
	Words          string // what a legend calls the class
	Term           string // the terminal colour of the status word: green, blue, cyan, purple, red or dim
}

// Palette is the one palette of itr's pictures, in GraphClasses' order:
// after Okabe and Ito (safe for the common colour-vision deficiencies),
// each hue the one the terminal gives the same status (done green,
// in progress blue, confirming cyan, verifying purple, blocked, timeout
// and failed red family, pending grey).
var Palette = []PaletteEntry{
	{Class: ClassDone, Fill: "#cdebdc", Stroke: "#007a5a", Marker: "[x]", Words: "done", Term: "green"},
	{Class: ClassInProgress, Fill: "#cce3f5", Stroke: "#0072b2", Marker: "[>]", Words: "in progress", Term: "blue"},
	{Class: ClassConfirming, Fill: "#d5ede9", Stroke: "#2f8f80", Marker: "[c]", Words: ClassConfirming, Term: "cyan"},
	{Class: ClassVerifying, Fill: "#f2d9e8", Stroke: "#a8558a", Marker: "[v]", Words: ClassVerifying, Term: "purple"},
	{Class: ClassBlocked, Fill: "#fbe3cf", Stroke: "#c25400", Double: true, Mark: "!", Marker: "[!]", Words: "blocked", Term: "red"},
	{Class: ClassTimeout, Fill: "#fbe7c2", Stroke: "#b77f00", Marker: "[t]", Words: "timeout", Term: "red"},
	{Class: ClassReady, Fill: "#ffffff", Stroke: "#222222", Marker: "[ ]", Words: "ready", Term: "dim"},
	{Class: ClassWaiting, Fill: "#eeeeee", Stroke: "#777777", Dash: "6 4", DotStyle: "dashed", Marker: "[.]", Words: "waiting", Term: "dim"},
	{Class: ClassFailed, Fill: "#f4c7c7", Stroke: "#a3142a", Heavy: true, Mark: "×", Marker: "[F]", Words: "failed", Term: "red"},
	{Class: ClassSkipped, Fill: "#ffffff", Stroke: "#999999", Dash: "2 3", DotStyle: "dotted", Marker: "[-]", Words: "skipped", Term: "dim"},
}

// paletteIndex finds a class's entry in Palette.
var paletteIndex = func() map[string]int {
	m := make(map[string]int, len(Palette))
	for i, p := range Palette {
		m[p.Class] = i
	}
	return m
}()

// PaletteOf is the entry of a class; an unknown class is drawn as waiting.
func PaletteOf(class string) PaletteEntry {
	if i, ok := paletteIndex[class]; ok {
		return Palette[i]
	}
	return Palette[paletteIndex[ClassWaiting]]
}

// known reports whether class has an entry of its own in Palette.
func known(class string) bool {
	_, ok := paletteIndex[class]
	return ok
}
