package connlimit

// FileLimit is how many files the process may hold open (OpenFileLimit);
// 0 when unknown or unlimited.
func FileLimit() int {
	n, ok := OpenFileLimit()
	if !ok || n > 1<<30 {
		return 0
	}
	return int(n)
}
