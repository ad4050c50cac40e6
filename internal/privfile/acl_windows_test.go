package privfile

import (
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"golang.org/x/sys/windows"
)

// TestDaemonDirIsTheUsersAlone: after OwnDir, the directory and a file
// Open then creates in it carry a protected access list whose only entry
// allows this user: no group, Everyone or inherited entry reads the token.
func TestDaemonDirIsTheUsersAlone(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "daemon")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := OwnDir(dir); err != nil {
		t.Fatalf("OwnDir: %v", err)
	}
	f, err := Open(filepath.Join(dir, "token"), os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	u, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dir, filepath.Join(dir, "token")} {
		sd, err := windows.GetNamedSecurityInfo(p, windows.SE_FILE_OBJECT, windows.DACL_SECURITY_INFORMATION)
		if err != nil {
			t.Fatalf("reading the access list of %s: %v", p, err)
		}
		dacl, _, err := sd.DACL()
		if err != nil || dacl == nil {
			t.Fatalf("%s has no access list (%v): anyone may open it", p, err)
		}
		if dacl.AceCount != 1 {
			t.Errorf("%s: %d entries in its access list (%s), want 1", p, dacl.AceCount, sd)
		}
		var ace *windows.ACCESS_ALLOWED_ACE
		if err := windows.GetAce(dacl, 0, &ace); err != nil {
			t.Fatal(err)
		}
		sid := (*windows.SID)(unsafe.Pointer(&ace.SidStart))
		if ace.Header.AceType != windows.ACCESS_ALLOWED_ACE_TYPE || !sid.Equals(u.User.Sid) {
			t.Errorf("%s: its entry is type %d for %s, want an allow for %s", p, ace.Header.AceType, sid, u.User.Sid)
		}
		if p == dir {
			if ctl, _, _ := sd.Control(); ctl&windows.SE_DACL_PROTECTED == 0 {
				t.Errorf("%s inherits its parent's entries (control %#x), want a protected list", p, ctl)
			}
		}
	}
}
