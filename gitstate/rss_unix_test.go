//go:build !windows

package gitstate

import (
	"syscall"
	"testing"
)

// reportMaxRSS reports the process's peak resident memory.
func reportMaxRSS(b *testing.B) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		b.ReportMetric(float64(ru.Maxrss)/1024, "maxrss-MiB")
	}
}
