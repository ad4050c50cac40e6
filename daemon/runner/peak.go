package runner

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// peakProbe measures one task's own peak memory, never vx's.
//
// Where cgroup v2 delegates the memory controller to vx's cgroup, the task
// starts in a cgroup of its own (clone3 CLONE_INTO_CGROUP, so no byte of
// it is charged elsewhere) and its peak is that cgroup's memory.peak.
// Otherwise the kernel's high-water mark of the task's processes
// (ru_maxrss) is used, but only when it exceeds vx's own peak when the
// task started: the forked child shares vx's pages until it executes the
// command, so its mark starts at vx's. A task lighter than vx shows no
// peak (0).
type peakProbe struct {
	cgDir string   // the task's cgroup, "" when not used
	cgFD  *os.File // open on cgDir for CLONE_INTO_CGROUP
	vxHWM int64    // vx's VmHWM (bytes) right after the task started
}

var (
	cgroupOnce   sync.Once
	cgroupBase   string      // vx's cgroup v2 directory, when it delegates memory
	cgroupBroken atomic.Bool // a start into a cgroup failed: stop trying
	cgroupSeq    atomic.Int64
)

// newPeakProbe prepares a probe, with a cgroup of its own when possible.
func newPeakProbe() *peakProbe {
	p := &peakProbe{}
	cgroupOnce.Do(func() { cgroupBase = memoryCgroup() })
	if cgroupBase == "" || cgroupBroken.Load() {
		return p
	}
	dir := filepath.Join(cgroupBase, fmt.Sprintf("vx-%d-%d", os.Getpid(), cgroupSeq.Add(1)))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return p
	}
	if _, err := os.Stat(filepath.Join(dir, "memory.peak")); err != nil {
		_ = os.Remove(dir)
		return p
	}
	f, err := os.Open(dir)
	if err != nil {
		_ = os.Remove(dir)
		return p
	}
	p.cgDir, p.cgFD = dir, f
	return p
}

// attach makes the process start in the probe's cgroup.
func (p *peakProbe) attach(attr *syscall.SysProcAttr) {
	if p.cgFD != nil {
		attr.UseCgroupFD, attr.CgroupFD = true, int(p.cgFD.Fd())
	}
}

// startFailed drops the cgroup after a failed start and reports whether
// the start is worth trying again without it.
func (p *peakProbe) startFailed() bool {
	if p.cgFD == nil {
		return false
	}
	cgroupBroken.Store(true)
	p.release()
	return true
}

// started records vx's own peak, once the task has executed its command.
func (p *peakProbe) started() {
	if p.cgFD == nil {
		p.vxHWM = selfHWM()
	}
}

// peak is the task's own peak in bytes (0: none measured), from its
// cgroup or from ru; the cgroup is removed.
func (p *peakProbe) peak(ru *syscall.Rusage) int64 {
	if p.cgFD != nil {
		n := readInt(filepath.Join(p.cgDir, "memory.peak"))
		p.release()
		return n
	}
	if ru == nil {
		return 0
	}
	if own := ru.Maxrss * 1024; p.vxHWM > 0 && own > p.vxHWM {
		return own
	}
	return 0
}

// release closes and removes the task's cgroup; a process that left the
// task's process group but stayed in its cgroup is killed first.
func (p *peakProbe) release() {
	if p.cgFD == nil {
		return
	}
	p.cgFD.Close()
	p.cgFD = nil
	for i := 0; i < 50; i++ {
		err := os.Remove(p.cgDir)
		if err == nil || errors.Is(err, os.ErrNotExist) {
			break
		}
		if i == 0 {
			_ = os.WriteFile(filepath.Join(p.cgDir, "cgroup.kill"), []byte("1"), 0)
		}
		time.Sleep(10 * time.Millisecond)
	}
	p.cgDir = ""
}

// memoryCgroup is vx's own cgroup v2 directory when its children can have
// the memory controller (it is listed in its cgroup.subtree_control), or "".
func memoryCgroup() string {
	mount := cgroup2Mount()
	if mount == "" {
		return ""
	}
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return ""
	}
	var rel string
	found := false
	for _, line := range strings.Split(string(b), "\n") {
		if r, ok := strings.CutPrefix(line, "0::"); ok {
			rel, found = r, true
		}
	}
	if !found {
		return ""
	}
	base := filepath.Join(mount, filepath.FromSlash(rel))
	ctl, err := os.ReadFile(filepath.Join(base, "cgroup.subtree_control"))
	if err != nil || !containsWord(string(ctl), "memory") {
		return ""
	}
	return base
}

// cgroup2Mount finds where the cgroup v2 hierarchy is mounted.
func cgroup2Mount() string {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS... - FSTYPE SOURCE SUPER
		left, right, ok := strings.Cut(sc.Text(), " - ")
		if !ok {
			continue
		}
		lf, rf := strings.Fields(left), strings.Fields(right)
		if len(lf) >= 5 && len(rf) >= 1 && rf[0] == "cgroup2" && lf[3] == "/" {
			return lf[4]
		}
	}
	return ""
}

func containsWord(s, w string) bool {
	for _, f := range strings.Fields(s) {
		if f == w {
			return true
		}
	}
	return false
}

// selfHWM is vx's own peak resident memory (VmHWM) in bytes, 0 if unknown.
func selfHWM() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range bytes.Split(b, []byte{'\n'}) {
		if rest, ok := bytes.CutPrefix(line, []byte("VmHWM:")); ok {
			f := bytes.Fields(rest)
			if len(f) >= 1 {
				kb, err := strconv.ParseInt(string(f[0]), 10, 64)
				if err == nil {
					return kb * 1024
				}
			}
		}
	}
	return 0
}

func readInt(path string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return 0
	}
	return n
}
