package sandbox

import (
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// run interprets a classic BPF seccomp program over one call, as the
// kernel would: the call number, the architecture and the low 32 bits of
// each argument are what it can load.
func run(t *testing.T, prog []unix.SockFilter, arch uint32, nr int, args [6]uint64) uint32 {
	t.Helper()
	var acc uint32
	for pc := 0; pc < len(prog); pc++ {
		in := prog[pc]
		switch in.Code {
		case bpfLdAbsW:
			switch {
			case in.K == offNr:
				acc = uint32(nr)
			case in.K == offArch:
				acc = arch
			case in.K >= offArgs && (in.K-offArgs)%8 == 0 && (in.K-offArgs)/8 < 6:
				acc = uint32(args[(in.K-offArgs)/8])
			default:
				t.Fatalf("load of offset %d at %d", in.K, pc)
			}
		case bpfJeqK, bpfJgeK, bpfJsetK:
			var taken bool
			switch in.Code {
			case bpfJeqK:
				taken = acc == in.K
			case bpfJgeK:
				taken = acc >= in.K
			default:
				taken = acc&in.K != 0
			}
			if taken {
				pc += int(in.Jt)
			} else {
				pc += int(in.Jf)
			}
		case bpfRetK:
			return in.K
		default:
			t.Fatalf("opcode %#x at %d", in.Code, pc)
		}
	}
	t.Fatalf("the program ran off its end")
	return 0
}

// The filter hands vx exactly the table's calls (open and openat only with
// a write flag) and allows every other call number and architecture.
func TestFilterNotifiesExactlyTheTable(t *testing.T) {
	for _, network := range []bool{false, true} {
		table, fprog, err := observed(network)
		if err != nil {
			t.Fatal(err)
		}
		prog := unsafe.Slice(fprog.Filter, fprog.Len)
		for nr := 0; nr < 1100; nr++ {
			c, watched := table[nr]
			for _, flags := range []uint64{unix.O_RDONLY | unix.O_CLOEXEC, unix.O_WRONLY, unix.O_RDWR, unix.O_CREAT | unix.O_RDONLY, unix.O_TRUNC} {
				var args [6]uint64
				if watched && c.flags > 0 {
					args[c.flags] = flags
				}
				want := uint32(unix.SECCOMP_RET_ALLOW)
				if watched && (c.flags == 0 || flags&writeFlags != 0) {
					want = unix.SECCOMP_RET_USER_NOTIF
				}
				if got := run(t, prog, auditArch, nr, args); got != want {
					t.Errorf("network %v, call %d, flags %#x: action %#x, want %#x", network, nr, flags, got, want)
				}
				if got := run(t, prog, auditArch^1, nr, args); got != unix.SECCOMP_RET_ALLOW {
					t.Errorf("another architecture's call %d: action %#x, want allow", nr, got)
				}
			}
		}
		if network == (table[unix.SYS_CONNECT].op != "") {
			t.Errorf("network %v: connect watched = %v", network, !network)
		}
	}
}
