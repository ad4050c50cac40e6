package hashing

import "time"

// SetRacyWindow sets how recent a stat may be for a listing to be saved,
// for the tests; it returns the function restoring the old value.
func SetRacyWindow(d time.Duration) func() {
	old := racyWindow
	racyWindow = d
	return func() { racyWindow = old }
}
