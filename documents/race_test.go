//go:build race

package documents_test

// raceEnabled: the race detector multiplies memory and time, so the
// measuring tests skip under it.
const raceEnabled = true
