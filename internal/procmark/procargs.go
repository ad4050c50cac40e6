package procmark

import (
	"bytes"
	"encoding/binary"
)

// procArgsEnv is the environment in b, a process's arguments as darwin's
// kern.procargs2 gives them: argc (4 bytes, little-endian), the
// executable's path, NUL padding, argc arguments, then the environment,
// each NUL-terminated, then NULs. nil when b is no such record.
func procArgsEnv(b []byte) [][]byte {
	if len(b) < 4 {
		return nil
	}
	argc := int(binary.LittleEndian.Uint32(b))
	rest := b[4:]
	i := bytes.IndexByte(rest, 0) // the end of the executable's path
	if i < 0 || argc < 0 || argc > len(rest) {
		return nil
	}
	fields := bytes.Split(bytes.TrimLeft(rest[i:], "\x00"), []byte{0})
	if len(fields) < argc {
		return nil
	}
	var env [][]byte
	for _, kv := range fields[argc:] {
		if len(kv) == 0 {
			break
		}
		env = append(env, kv)
	}
	return env
}
