package privfile

import (
	"fmt"
	"os"

	"golang.org/x/sys/windows"
)

// noFollow is 0: Windows has no O_NOFOLLOW; Open's Lstat still names a
// symlink it failed to open.
const noFollow = 0

// links is 1: os.FileInfo on Windows does not carry the link count.
func links(os.FileInfo) uint64 { return 1 }

// Owner is unknown here (a SID, not a uid): false. userOnly makes the
// directory the user's alone instead.
func Owner(os.FileInfo) (int, bool) { return 0, false }

// userOnly replaces path's access list with one entry, full control for
// the user this process runs as, inherited by what is created inside it,
// and protected from the parent's entries: the daemon's directory, and so
// its discovery and token files, are readable by that user alone (the
// mode bits Unix uses mean nothing here).
func userOnly(path string) error {
	u, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return fmt.Errorf("reading this process's user: %w", err)
	}
	acl, err := windows.ACLFromEntries([]windows.EXPLICIT_ACCESS{{
		AccessPermissions: windows.GENERIC_ALL,
		AccessMode:        windows.GRANT_ACCESS,
		Inheritance:       windows.SUB_CONTAINERS_AND_OBJECTS_INHERIT,
		Trustee: windows.TRUSTEE{
			TrusteeForm:  windows.TRUSTEE_IS_SID,
			TrusteeType:  windows.TRUSTEE_IS_USER,
			TrusteeValue: windows.TrusteeValueFromSID(u.User.Sid),
		},
	}}, nil)
	if err != nil {
		return fmt.Errorf("making the access list of %s: %w", path, err)
	}
	err = windows.SetNamedSecurityInfo(path, windows.SE_FILE_OBJECT,
		windows.DACL_SECURITY_INFORMATION|windows.PROTECTED_DACL_SECURITY_INFORMATION, nil, nil, acl, nil)
	if err != nil {
		return fmt.Errorf("making %s readable by this user alone: %w", path, err)
	}
	return nil
}
