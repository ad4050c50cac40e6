package cache

import (
	"strings"
	"testing"
	"time"
)

func TestParseSize(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		err  string
	}{
		{in: "123", want: 123},
		{in: "0", want: 0},
		{in: "10B", want: 10},
		{in: "10KiB", want: 10 << 10},
		{in: "500MB", want: 500e6},
		{in: "2GiB", want: 2 << 30},
		{in: "2gib", want: 2 << 30},
		{in: "1.5GB", want: 1.5e9},
		{in: " 3 TiB ", want: 3 << 40},
		{in: "", err: `invalid size "": want a number of bytes with an optional unit B, KB, MB, GB, TB, KiB, MiB, GiB or TiB`},
		{in: "2 gigs", err: `invalid size "2 gigs": want a number`},
		{in: "GiB", err: `invalid size "GiB"`},
		{in: "-5MB", err: `invalid size "-5MB"`},
		{in: "1.2.3MB", err: `invalid size "1.2.3MB"`},
		{in: "10EiB", err: `invalid size "10EiB"`},
		{in: "99999999999TiB", err: `invalid size "99999999999TiB": too large`},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseSize(tc.in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("ParseSize(%q) = %d, %v; want error containing %q", tc.in, got, err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("ParseSize(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
			}
		})
	}
}

func TestParseAge(t *testing.T) {
	day := 24 * time.Hour
	tests := []struct {
		in   string
		want time.Duration
		err  string
	}{
		{in: "7d", want: 7 * day},
		{in: "12h", want: 12 * time.Hour},
		{in: "30m", want: 30 * time.Minute},
		{in: "2w", want: 14 * day},
		{in: "90s", want: 90 * time.Second},
		{in: "1d12h", want: 36 * time.Hour},
		{in: "", err: `invalid age "": want a positive whole number with a unit s, m, h, d (days) or w (weeks)`},
		{in: "7", err: `invalid age "7": want a positive whole number`},
		{in: "d", err: `invalid age "d"`},
		{in: "7y", err: `invalid age "7y": unknown unit "y"`},
		{in: "1.5d", err: `invalid age "1.5d": unknown unit "."`},
		{in: "-1d", err: `invalid age "-1d"`},
		{in: "0d", err: `invalid age "0d": must be greater than zero`},
		{in: "99999999999w", err: `invalid age "99999999999w": too large`},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseAge(tc.in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("ParseAge(%q) = %v, %v; want error containing %q", tc.in, got, err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("ParseAge(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
			}
		})
	}
}
