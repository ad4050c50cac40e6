package plugins

import (
	"math"
	"strconv"
	"testing"
)

// A stamp's numbers read back as written, the extremes too, and what
// FormatInt never writes is refused: a store with such a line is no store.
func TestStoredNumbersReadBackExactly(t *testing.T) {
	for _, n := range []int64{0, 1, -1, 9, 1733500000123456789, 999999999999999999, 1000000000000000000, math.MaxInt64, math.MinInt64, -999999999999999999} {
		got, ok := parseInt(strconv.FormatInt(n, 10))
		if !ok || got != n {
			t.Errorf("parseInt(%d) = %d, %v", n, got, ok)
		}
	}
	for _, s := range []string{"", "-", "+1", "1a", " 1", "1 ", "9223372036854775808", "9999999999999999999", "-9223372036854775809", "--1", "0x1", "1.5"} {
		if n, ok := parseInt(s); ok {
			t.Errorf("parseInt(%q) = %d, accepted", s, n)
		}
	}
}
