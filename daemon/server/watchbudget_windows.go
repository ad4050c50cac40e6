package server

// descriptorBudget is 0: Windows gives a process handles by the million,
// so the journal keeps no budget (its bound is maxJournalDirs).
func descriptorBudget() int { return 0 }
