package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

func TestZZProbe(t *testing.T) {
	root := t.TempDir()
	proj := filepath.Join(root, "proj")
	os.MkdirAll(filepath.Join(proj, "dist"), 0o755)
	os.MkdirAll(filepath.Join(root, "out"), 0o755)
	for _, cmd := range []string{
		`python3 -c 'import socket; s=socket.socket(socket.AF_UNIX); s.bind("../sock")'`,
		`exec 3< ../out; echo x > /proc/self/fd/3/a`,
		`exec 3< ../out; echo x > /dev/fd/3/b`,
		`cd dist; exec 3< ../../out; cd ..; echo x > /proc/self/cwd/../out/c`,
	} {
		for _, network := range []bool{true, false} {
			out, code, vs := confined(t, os.Getenv("MODE"), network, proj, cmd, "dist/**")
			t.Logf("%s net=%v: %d %q %+v", cmd, network, code, out, vs)
		}
	}
	ls, _ := os.ReadDir(filepath.Join(root, "out"))
	for _, e := range ls {
		t.Log("out/", e.Name())
	}
	ls, _ = os.ReadDir(root)
	for _, e := range ls {
		t.Log("root/", e.Name())
	}
}
