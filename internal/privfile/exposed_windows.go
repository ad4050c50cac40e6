package privfile

import (
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/windows"
)

// fileDeleteChild is FILE_DELETE_CHILD (winnt.h), which x/sys/windows
// does not name: a directory's right to delete what it holds.
const fileDeleteChild = 0x40

// writeRights are the rights that let a holder change a file or what a
// directory holds (Unix's w bit, and more: the access list, the owner).
const writeRights = windows.FILE_WRITE_DATA | windows.FILE_APPEND_DATA | windows.FILE_WRITE_EA |
	fileDeleteChild | windows.FILE_WRITE_ATTRIBUTES | windows.DELETE | windows.WRITE_DAC |
	windows.WRITE_OWNER | windows.GENERIC_WRITE | windows.GENERIC_ALL

// readRights are the rights that let a holder read a file's contents.
const readRights = windows.FILE_READ_DATA | windows.GENERIC_READ | windows.GENERIC_ALL

// OpenToOthers says how path is open to other users ("" when it is not),
// from its access list (the mode bits in fi mean nothing here): it must
// be owned by this user (ownedHere), and no entry may grant anyone but
// this user, SYSTEM or the Administrators what deny's bits name (the
// group and other w bits: write; r bits: read).
func OpenToOthers(path string, _ os.FileInfo, deny os.FileMode) string {
	sd, err := windows.GetNamedSecurityInfo(path, windows.SE_FILE_OBJECT,
		windows.OWNER_SECURITY_INFORMATION|windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		return fmt.Sprintf("%s: reading its access list: %v", path, err)
	}
	u, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return fmt.Sprintf("reading this process's user: %v", err)
	}
	if owner, _, err := sd.Owner(); err != nil || !ownedHere(owner, u.User.Sid) {
		return fmt.Sprintf("%s is owned by %v, not by this user (%v)", path, owner, u.User.Sid)
	}
	var mask windows.ACCESS_MASK
	if deny&0o022 != 0 {
		mask |= writeRights
	}
	if deny&0o044 != 0 {
		mask |= readRights
	}
	return otherGrants(path, sd, u.User.Sid, mask)
}

// ownedHere says whether owner is this process's: its user, or the
// Administrators, who own what an elevated process (an administrator's,
// as on a hosted CI runner) creates.
func ownedHere(owner, user *windows.SID) bool {
	if owner == nil {
		return false
	}
	return owner.Equals(user) || (owner.IsWellKnown(windows.WinBuiltinAdministratorsSid) && windows.GetCurrentProcessToken().IsElevated())
}

// otherGrants names the first entry of sd's access list that grants
// someone but user, SYSTEM or the Administrators a right in mask.
func otherGrants(path string, sd *windows.SECURITY_DESCRIPTOR, user *windows.SID, mask windows.ACCESS_MASK) string {
	dacl, _, err := sd.DACL()
	if err != nil || dacl == nil {
		return fmt.Sprintf("%s has no access list (anyone may open it)", path)
	}
	for i := uint32(0); i < uint32(dacl.AceCount); i++ {
		var ace *windows.ACCESS_ALLOWED_ACE
		if err := windows.GetAce(dacl, i, &ace); err != nil {
			return fmt.Sprintf("%s: reading its access list: %v", path, err)
		}
		// An inherit-only entry grants nothing on path itself.
		if ace.Header.AceType != windows.ACCESS_ALLOWED_ACE_TYPE || ace.Header.AceFlags&windows.INHERIT_ONLY_ACE != 0 || ace.Mask&mask == 0 {
			continue
		}
		sid := (*windows.SID)(unsafe.Pointer(&ace.SidStart))
		if sid.Equals(user) || sid.IsWellKnown(windows.WinLocalSystemSid) || sid.IsWellKnown(windows.WinBuiltinAdministratorsSid) {
			continue
		}
		return fmt.Sprintf("%s is open to other users (its access list grants %v access 0x%x)", path, sid, uint32(ace.Mask))
	}
	return ""
}
