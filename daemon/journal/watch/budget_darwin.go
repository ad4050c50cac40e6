package watch

// descriptorBudget is three quarters of the open-file limit: fsnotify's
// kqueue backend holds a descriptor for every watched directory and every
// entry in it.
func descriptorBudget() int { return budgetForLimit(openFileLimit()) }
