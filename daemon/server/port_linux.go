package server

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// portHolder names the process listening on TCP port (any address, IPv4
// or IPv6): "pid 123, python3", or "" when it cannot be told (another
// user's process, a process in another network namespace).
func portHolder(port int) string {
	inode := listeningInode(port)
	if inode == "" {
		return ""
	}
	want := "socket:[" + inode + "]"
	fds, _ := filepath.Glob("/proc/[0-9]*/fd/*")
	for _, fd := range fds {
		if link, err := os.Readlink(fd); err == nil && link == want {
			pid := strings.Split(fd, "/")[2]
			comm, _ := os.ReadFile("/proc/" + pid + "/comm")
			return fmt.Sprintf("pid %s, %s", pid, strings.TrimSpace(string(comm)))
		}
	}
	return ""
}

// listeningInode is the inode of a socket listening on port, read from
// /proc/net/tcp and tcp6 ("" when none is listed).
func listeningInode(port int) string {
	hexPort := fmt.Sprintf(":%04X", port)
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(table)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			// sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
			fields := strings.Fields(sc.Text())
			if len(fields) < 10 || fields[3] != "0A" || !strings.HasSuffix(fields[1], hexPort) {
				continue
			}
			if _, err := strconv.ParseUint(fields[9], 10, 64); err == nil && fields[9] != "0" {
				f.Close()
				return fields[9]
			}
		}
		f.Close()
	}
	return ""
}
