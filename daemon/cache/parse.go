package cache

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

var sizeUnits = map[string]int64{
	"":    1,
	"b":   1,
	"kb":  1e3,
	"mb":  1e6,
	"gb":  1e9,
	"tb":  1e12,
	"kib": 1 << 10,
	"mib": 1 << 20,
	"gib": 1 << 30,
	"tib": 1 << 40,
}

const sizeForms = "a number of bytes with an optional unit B, KB, MB, GB, TB, KiB, MiB, GiB or TiB, e.g. 123, 500MB, 2GiB"

// ParseSize parses a byte size such as "2GiB", "500MB", "10KiB", "1.5GB" or
// "123". Units are case-insensitive; KB, MB… are powers of 1000, KiB, MiB…
// powers of 1024.
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.') {
		i++
	}
	num, unit := t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	mult, ok := sizeUnits[unit]
	if num == "" || !ok {
		return 0, fmt.Errorf("invalid size %q: want %s", s, sizeForms)
	}
	if n, err := strconv.ParseInt(num, 10, 64); err == nil {
		if n > math.MaxInt64/mult {
			return 0, fmt.Errorf("invalid size %q: too large", s)
		}
		return n * mult, nil
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, fmt.Errorf("invalid size %q: want %s", s, sizeForms)
	}
	v := f * float64(mult)
	if v >= math.MaxInt64 {
		return 0, fmt.Errorf("invalid size %q: too large", s)
	}
	return int64(v), nil
}

var ageUnits = map[byte]time.Duration{
	's': time.Second,
	'm': time.Minute,
	'h': time.Hour,
	'd': 24 * time.Hour,
	'w': 7 * 24 * time.Hour,
}

const ageForms = "a positive whole number with a unit s, m, h, d (days) or w (weeks), or several such as 1d12h, e.g. 30m, 12h, 7d, 2w"

// ParseAge parses an age such as "7d", "12h", "30m", "2w" or "1d12h". It must
// be positive: an age of zero would evict everything, which is more likely a
// typo than a wish.
func ParseAge(s string) (time.Duration, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, fmt.Errorf("invalid age %q: want %s", s, ageForms)
	}
	var total time.Duration
	for t != "" {
		i := 0
		for i < len(t) && t[i] >= '0' && t[i] <= '9' {
			i++
		}
		if i == 0 || i == len(t) {
			return 0, fmt.Errorf("invalid age %q: want %s", s, ageForms)
		}
		unit, ok := ageUnits[t[i]]
		if !ok {
			return 0, fmt.Errorf("invalid age %q: unknown unit %q; want %s", s, t[i:i+1], ageForms)
		}
		n, err := strconv.ParseInt(t[:i], 10, 64)
		if err != nil || n > int64(math.MaxInt64/unit) || total > math.MaxInt64-time.Duration(n)*unit {
			return 0, fmt.Errorf("invalid age %q: too large", s)
		}
		total += time.Duration(n) * unit
		t = t[i+1:]
	}
	if total == 0 {
		return 0, fmt.Errorf("invalid age %q: must be greater than zero", s)
	}
	return total, nil
}
