package hashing

// Stat is what vx reads of a file's stat, the same on every OS: filled
// by Lstat, StatPath and fstat (stat_unix.go, stat_windows.go) into a
// value the caller keeps on its stack (os.Lstat would allocate a FileInfo
// for each of a run's often 10,000 and more inputs).
type Stat struct {
	Size         int64
	Mtime, Ctime int64  // nanoseconds since the epoch
	Dev          uint64 // its file system (Windows: the volume serial number)
	Ino          uint64 // the file's identity on its file system
	Nlink        uint64
	Mode         uint32 // as the OS gives it: st_mode, or Windows' file attributes
}
