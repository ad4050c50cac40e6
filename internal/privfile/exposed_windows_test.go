package privfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/windows"
)

// TestOpenToOthersReadsTheAccessList: a token file in a directory OwnDir
// made is open to no one else (its mode bits, 0666 on Windows, are not
// read); once its access list also lets Everyone read it, OpenToOthers
// says so, naming Everyone's SID.
func TestOpenToOthersReadsTheAccessList(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "daemon")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := OwnDir(dir); err != nil {
		t.Fatalf("OwnDir: %v", err)
	}
	token := filepath.Join(dir, "token")
	f, err := Open(token, os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	for _, p := range []struct {
		path string
		deny os.FileMode
	}{{dir, 0o022}, {token, 0o077}} {
		fi, err := os.Lstat(p.path)
		if err != nil {
			t.Fatal(err)
		}
		if why := OpenToOthers(p.path, fi, p.deny); why != "" {
			t.Errorf("OpenToOthers(%s) = %q, want it private", p.path, why)
		}
	}
	everyone, err := windows.CreateWellKnownSid(windows.WinWorldSid)
	if err != nil {
		t.Fatal(err)
	}
	acl, err := windows.ACLFromEntries([]windows.EXPLICIT_ACCESS{{
		AccessPermissions: windows.GENERIC_READ,
		AccessMode:        windows.GRANT_ACCESS,
		Trustee: windows.TRUSTEE{TrusteeForm: windows.TRUSTEE_IS_SID, TrusteeType: windows.TRUSTEE_IS_WELL_KNOWN_GROUP,
			TrusteeValue: windows.TrusteeValueFromSID(everyone)},
	}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := windows.SetNamedSecurityInfo(token, windows.SE_FILE_OBJECT, windows.DACL_SECURITY_INFORMATION, nil, nil, acl, nil); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Lstat(token)
	if why := OpenToOthers(token, fi, 0o077); !strings.Contains(why, "open to other users") || !strings.Contains(why, everyone.String()) {
		t.Errorf("OpenToOthers of a token Everyone may read = %q, want it named", why)
	}
}
