package procmark

import (
	"encoding/binary"
	"strings"
	"testing"
)

// TestProcArgsEnv: the environment is read out of a kern.procargs2 record
// past the executable's path, its padding and the arguments; a record cut
// short or with an argument count past its end gives none.
func TestProcArgsEnv(t *testing.T) {
	record := func(argc uint32, body string) []byte {
		b := binary.LittleEndian.AppendUint32(nil, argc)
		return append(b, body...)
	}
	for _, tc := range []struct {
		name string
		b    []byte
		want string // entries joined by |
	}{
		{"whole", record(3, "/bin/sh\x00\x00\x00\x00sh\x00-c\x00sleep 3\x00A=1\x00VX_TASK_ID=svc#a\x00\x00\x00"), "A=1|VX_TASK_ID=svc#a"},
		{"no environment", record(1, "/bin/true\x00\x00true\x00\x00\x00"), ""},
		{"argument that looks like a variable", record(2, "/usr/bin/env\x00\x00env\x00X=y\x00Z=1\x00"), "Z=1"},
		{"too many arguments", record(9, "/bin/sh\x00\x00sh\x00"), ""},
		{"no path end", record(1, "/bin/sh"), ""},
		{"short", []byte{1, 0}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, kv := range procArgsEnv(tc.b) {
				got = append(got, string(kv))
			}
			if s := strings.Join(got, "|"); s != tc.want {
				t.Errorf("environment %q, want %q", s, tc.want)
			}
		})
	}
}
