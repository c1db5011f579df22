package gitstate

import "testing"

// reportMaxRSS reports nothing on Windows: there is no getrusage, and the
// benchmarks' memory figures are Unix ones.
func reportMaxRSS(*testing.B) {}
