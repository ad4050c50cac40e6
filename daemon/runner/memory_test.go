package runner

import "testing"

// The default memory budget is three quarters of the machine's memory,
// which this OS tells (totalMemory: /proc/meminfo, or sysctl on macOS).
func TestMemoryBudgetDefault(t *testing.T) {
	total := totalMemory()
	if total <= 0 {
		t.Fatalf("totalMemory() = %d: this OS's memory size was not read", total)
	}
	if got, src := MemoryBudget(map[string]string{}); got != total*3/4 || src != "default" {
		t.Errorf("MemoryBudget = %d (%s), want %d (default)", got, src, total*3/4)
	}
	if got, src := MemoryBudget(map[string]string{"VX_MEMORY_BUDGET": "1GiB"}); got != 1<<30 || src != "env" {
		t.Errorf("MemoryBudget with VX_MEMORY_BUDGET=1GiB = %d (%s)", got, src)
	}
}
