package sandbox

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/vzn/vx/protocol/wire"
)

// confined runs command in dir under a policy allowing writes beneath
// allowed, and returns its output, exit code and violations.
func confined(t *testing.T, mode string, network bool, dir, command string, allowed ...string) (string, int, []wire.SandboxViolation) {
	t.Helper()
	v := Detect()
	if !v.Landlock || v.Observer == "" {
		t.Fatalf("this host cannot sandbox (%s); these tests need Landlock and seccomp user notification", v.Reason)
	}
	dirs, files := WriteRoots(dir, allowed, "")
	p := &Policy{Landlock: mode == wire.SandboxEnforce, Observe: true, Network: network, ABI: v.ABI, WriteDirs: dirs, WriteFiles: files}
	p.Resolve()
	var out bytes.Buffer
	cmd := exec.Command("/bin/sh", "-c", command)
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, &out, &out
	s, err := Start(cmd, p)
	if err != nil {
		t.Fatal(err)
	}
	_ = s.Wait()
	return out.String(), cmd.ProcessState.ExitCode(), s.Finish()
}

func TestEnforceDeniesAndRecordsWritesOutside(t *testing.T) {
	root := t.TempDir()
	proj := filepath.Join(root, "proj")
	os.MkdirAll(proj, 0o755)
	outside := filepath.Join(root, "outside.txt")
	cmd := `echo in > dist/a.txt && (echo out > ../outside.txt; echo "rc=$?")`
	out, code, vs := confined(t, wire.SandboxEnforce, true, proj, cmd, "dist/**")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	if b, err := os.ReadFile(filepath.Join(proj, "dist", "a.txt")); err != nil || string(b) != "in\n" {
		t.Fatalf("write inside the outputs: %q %v", b, err)
	}
	if _, err := os.Stat(outside); err == nil {
		t.Fatalf("enforce let the write outside through")
	}
	if !strings.Contains(out, "rc=") || strings.Contains(out, "rc=0") {
		t.Fatalf("the shell should see the write fail: %q", out)
	}
	if len(vs) != 1 || vs[0].Path != outside || vs[0].Op != opCreate || !vs[0].Denied || vs[0].Process != "sh" {
		t.Fatalf("violations = %+v, want one denied create of %s by sh", vs, outside)
	}
}

func TestReportLetsThroughAndRecordsChildren(t *testing.T) {
	root := t.TempDir()
	proj := filepath.Join(root, "proj")
	os.MkdirAll(proj, 0o755)
	// A grandchild (another shell, then touch) writes outside.
	cmd := `sh -c 'touch ../child.txt' && mkdir -p dist && echo ok > dist/x`
	out, code, vs := confined(t, wire.SandboxReport, true, proj, cmd, "dist/**")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	if _, err := os.Stat(filepath.Join(root, "child.txt")); err != nil {
		t.Fatalf("report mode must let the write through: %v", err)
	}
	if len(vs) != 1 || vs[0].Process != "touch" || vs[0].Denied || vs[0].Path != filepath.Join(root, "child.txt") {
		t.Fatalf("violations = %+v, want one reported write by touch", vs)
	}
}

func TestEnforceBindsChildren(t *testing.T) {
	root := t.TempDir()
	out, _, vs := confined(t, wire.SandboxEnforce, true, root, `sh -c 'echo x > /tmp/../`+filepath.Base(root)+`-no' ; sh -c 'sh -c "touch `+root+`/../deep"'; exit 0`)
	if _, err := os.Stat(filepath.Join(filepath.Dir(root), "deep")); err == nil {
		t.Fatalf("a grandchild escaped the sandbox: %s", out)
	}
	found := false
	for _, v := range vs {
		if v.Process == "touch" && v.Denied {
			found = true
		}
	}
	if !found {
		t.Fatalf("no denied write by the grandchild touch in %+v", vs)
	}
}

func TestNetworkFalseDeniesTCPConnect(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Fatal("bash is needed to open a TCP connection from a shell (/dev/tcp)")
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	addr := ln.Addr().(*net.TCPAddr)
	cmd := `bash -c 'exec 3<>/dev/tcp/127.0.0.1/` + strconv.Itoa(addr.Port) + `'; echo "rc=$?"`
	out, _, vs := confined(t, wire.SandboxEnforce, false, t.TempDir(), cmd)
	if strings.Contains(out, "rc=0") {
		t.Fatalf("network:false let a TCP connect through: %s", out)
	}
	if len(vs) != 1 || vs[0].Op != opConnect || vs[0].Address != addr.String() || !vs[0].Denied || vs[0].Process != "bash" {
		t.Fatalf("violations = %+v, want one denied connect to %s", vs, addr)
	}
	// The same connect with the network allowed goes through, unrecorded.
	out, _, vs = confined(t, wire.SandboxEnforce, true, t.TempDir(), cmd)
	if !strings.Contains(out, "rc=0") || len(vs) != 0 {
		t.Fatalf("network:true: %s, violations %+v", out, vs)
	}
}

func TestVerdictForcedOff(t *testing.T) {
	t.Setenv(forceNoLandlockEnv, "1")
	v := Detect()
	if v.Landlock || v.ABI != 0 || len(v.Enforced) != 0 || !strings.Contains(v.Reason, forceNoLandlockEnv) {
		t.Fatalf("verdict = %+v, want no Landlock and the reason naming %s", v, forceNoLandlockEnv)
	}
}

func TestWriteRoots(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "lib"), 0o755)
	dirs, _ := WriteRoots(dir, []string{"dist/**", "build/*.js", "*.log", "lib", "out.txt", "!dist/cache/**", "/var/tmp/x/**"}, "/tmp/t")
	want := []string{filepath.Join(dir, "dist"), filepath.Join(dir, "build"), dir, filepath.Join(dir, "lib"), "/var/tmp/x", "/tmp/t", "/dev/pts"}
	if strings.Join(dirs, ",") != strings.Join(want, ",") {
		t.Fatalf("roots = %v, want %v", dirs, want)
	}
}
