package secret_test

import (
	"testing"

	"github.com/vzn/vx/daemon/secret"
)

func TestMasker(t *testing.T) {
	tests := []struct {
		name   string
		values []string
		add    []string
		in     string
		want   string
	}{
		{"one value everywhere", []string{"s3cr3t"}, nil, "token=s3cr3t and again s3cr3t.", "token=*** and again ***."},
		{"longest first when one contains another", []string{"abc", "abcdef"}, nil, "x abcdef y abc", "x *** y ***"},
		{"longest first whatever the order given", []string{"abcdef", "abc"}, nil, "abcdefabc", "******"},
		{"overlapping values: the leftmost is masked, neither appears whole", []string{"hunter2", "ter2xyz"}, nil, "hunter2xyz", "***xyz"},
		{"empty values ignored", []string{"", "pw"}, nil, "a pw b", "a *** b"},
		{"only empty values mask nothing", []string{""}, nil, "anything", "anything"},
		{"values added later", []string{"one"}, []string{"two", "one", ""}, "one two three", "*** *** three"},
		{"added longer value wins", []string{"key"}, []string{"key-long"}, "key-long key", "*** ***"},
		{"no values", nil, nil, "plain", "plain"},
		{"multi-line value", []string{"line1\nline2"}, nil, "a line1\nline2 b", "a *** b"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := secret.NewMasker(tc.values...)
			m.Add(tc.add...)
			if got := m.String(tc.in); got != tc.want {
				t.Errorf("String(%q) = %q, want %q", tc.in, got, tc.want)
			}
			if got := string(m.Bytes([]byte(tc.in))); got != tc.want {
				t.Errorf("Bytes(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestMaskerEmpty(t *testing.T) {
	tests := []struct {
		name  string
		m     *secret.Masker
		empty bool
	}{
		{"nil", nil, true},
		{"zero value", &secret.Masker{}, true},
		{"only empty strings", secret.NewMasker("", ""), true},
		{"a value", secret.NewMasker("x"), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.m.Empty(); got != tc.empty {
				t.Errorf("Empty() = %v, want %v", got, tc.empty)
			}
			in := "keep x as is"
			want := in
			if !tc.empty {
				want = "keep *** as is"
			}
			if got := tc.m.String(in); got != want {
				t.Errorf("String = %q, want %q", got, want)
			}
			if got := string(tc.m.Bytes([]byte(in))); got != want {
				t.Errorf("Bytes = %q, want %q", got, want)
			}
		})
	}
	// Add on a zero value makes it work.
	var z secret.Masker
	z.Add("pw")
	if got := z.String("pw!"); got != "***!" {
		t.Errorf("zero Masker after Add: %q", got)
	}
}
