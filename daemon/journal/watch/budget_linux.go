package watch

// descriptorBudget is 0: an inotify watch is no open descriptor, so the
// journal keeps no budget (its bound is maxJournalDirs).
func descriptorBudget() int { return 0 }
