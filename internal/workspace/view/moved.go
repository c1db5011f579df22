package view

import (
	"fmt"

	"github.com/itr-dev/itr/state"
)

func ProgressOf(s *state.State) (done, total int, unfinished []string) {
	unfinished = []string{}
	for _, id := range s.IDs() {
		total++
		if u := s.Units[id]; u.Status == state.Done {
			done++
		} else {
			unfinished = append(unfinished, fmt.Sprintf("%s (%s)", id, u.Status))
		}
	}
	return done, total, unfinished
}
