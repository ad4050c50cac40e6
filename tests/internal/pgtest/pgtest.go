//go:build !windows

// Package pgtest gives tests a private PostgreSQL: one cluster per test
// binary, initdb'd into a temporary directory and listening only on a
// Unix socket in it (no TCP port another process could take between
// choosing it and the server's listen), and a fresh database per test. When the tests run as root
// the server runs as the postgres user. Outside CI a machine without
// PostgreSQL skips the tests that need it, with a message; with CI=true it
// fails them.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/vzn/vx/tests/internal/harness"
)

type server struct {
	dir  string
	sock string // the directory of the server's socket
	cmd  *exec.Cmd
	err  error
}

// port names the socket file in the server's own directory
// (.s.PGSQL.5432); no TCP port is opened.
const port = 5432

var (
	once   sync.Once
	shared server
)

// Main runs the tests of a package and stops the cluster afterwards; call
// it from TestMain: os.Exit(pgtest.Main(m)).
func Main(m *testing.M) int {
	code := m.Run()
	shared.stop()
	return code
}

// URL starts the cluster if needed, creates a fresh database for the test
// and returns its connection URL.
func URL(t testing.TB) string {
	t.Helper()
	once.Do(func() { shared.err = shared.start() })
	if shared.err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("PostgreSQL is needed (CI=true): %v", shared.err)
		}
		t.Skipf("skipping: no PostgreSQL to test against (%v); install Debian's postgresql", shared.err)
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "t_" + hex.EncodeToString(b[:])
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, shared.url("postgres"))
	if err != nil {
		t.Fatalf("connecting to the test cluster: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("creating database %s: %v", name, err)
	}
	return shared.url(name)
}

func (s *server) url(db string) string {
	return fmt.Sprintf("postgres://postgres@/%s?host=%s&port=%d&sslmode=disable", db, s.sock, port)
}

// binDir finds initdb and postgres.
func binDir() (string, error) {
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		d := strings.TrimSpace(string(out))
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	return "", errors.New("no initdb: neither pg_config --bindir nor /usr/lib/postgresql/*/bin has one")
}

func version(dir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return n
}

// credential runs the server as postgres when we are root (PostgreSQL
// refuses to run as root).
func credential() (*syscall.Credential, int, int, error) {
	if os.Geteuid() != 0 {
		return nil, -1, -1, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, 0, 0, fmt.Errorf("running as root and there is no postgres user to run the server as: %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, uid, gid, nil
}

func (s *server) start() error {
	bin, err := binDir()
	if err != nil {
		return err
	}
	cred, uid, gid, err := credential()
	if err != nil {
		return err
	}
	if s.dir, err = os.MkdirTemp("", "vx-pgtest-"); err != nil {
		return err
	}
	data, sock := filepath.Join(s.dir, "data"), filepath.Join(s.dir, "sock")
	for _, d := range []string{data, sock} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return err
		}
	}
	if cred != nil {
		for _, d := range []string{s.dir, data, sock} {
			if err := os.Chown(d, uid, gid); err != nil {
				return err
			}
		}
	}
	initdb := exec.Command(filepath.Join(bin, "initdb"), "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync")
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	initdb.Dir = s.dir
	if out, err := initdb.CombinedOutput(); err != nil {
		return fmt.Errorf("initdb: %v: %s", err, out)
	}
	s.sock = sock
	s.cmd = exec.Command(filepath.Join(bin, "postgres"), "-D", data, "-p", strconv.Itoa(port), "-k", sock,
		"-c", "listen_addresses=", "-c", "fsync=off", "-c", "synchronous_commit=off",
		"-c", "full_page_writes=off", "-c", "max_connections=200")
	s.cmd.Dir = s.dir
	// The server dies with the test binary even if it is killed.
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	harness.DieWithTest(s.cmd.SysProcAttr, syscall.SIGTERM)
	logf, err := os.Create(filepath.Join(s.dir, "postgres.log"))
	if err != nil {
		return err
	}
	if cred != nil {
		_ = logf.Chown(uid, gid)
	}
	s.cmd.Stdout, s.cmd.Stderr = logf, logf
	if err := s.cmd.Start(); err != nil {
		return fmt.Errorf("starting postgres: %w", err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		conn, err := pgx.Connect(ctx, s.url("postgres"))
		cancel()
		if err == nil {
			_ = conn.Close(context.Background())
			return nil
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(s.dir, "postgres.log"))
			return fmt.Errorf("postgres did not accept connections within 30s: %v\n%s", err, log)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (s *server) stop() {
	if s.cmd != nil && s.cmd.Process != nil {
		// SIGINT is PostgreSQL's fast shutdown.
		_ = s.cmd.Process.Signal(syscall.SIGINT)
		done := make(chan struct{})
		go func() { _ = s.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			_ = s.cmd.Process.Kill()
			<-done
		}
	}
	if s.dir != "" {
		_ = os.RemoveAll(s.dir)
	}
}
