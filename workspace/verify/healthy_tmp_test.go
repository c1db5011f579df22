package verify_test

import (
	"testing"
	"fmt"
)

func TestTmpHealthy(t *testing.T) {
	h := newHist(t)
	h.iteration("T1", 1, "one")
	h.iteration("T1", 2, "two")
	h.lesson("Flaky")
	rep := h.verify()
	fmt.Printf("%+v\n", rep)
	fmt.Printf("%s\n%s\n", h.log, fold(t, h.log))
	fmt.Println(h.undos())
}
