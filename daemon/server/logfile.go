package server

import (
	"bytes"
	"fmt"
	"io"
	"log"
	"os"
	"sync"

	"github.com/rs/zerolog"

	"github.com/vzn/vx/internal/privfile"
	"github.com/vzn/vx/protocol/layout"
)

// maxLogBytes is the size at which vxd.log is rotated to vxd.log.1 (the
// one older file kept), so the log never takes more than twice this.
const maxLogBytes = 8 << 20

// OpenLog opens the workspace's daemon log for appending, rotated at
// MaxLogBytes.
func OpenLog(root string) (io.WriteCloser, error) {
	if err := os.MkdirAll(layout.Daemon(root), 0o700); err != nil {
		return nil, err
	}
	if err := privfile.OwnDir(layout.Daemon(root)); err != nil {
		return nil, err
	}
	w := &rotatingLog{path: layout.DaemonLog(root), max: maxLogBytes}
	if err := w.open(); err != nil {
		return nil, err
	}
	return w, nil
}

// rotatingLog is a log file that starts over (keeping one older file)
// when the next line would take it past max.
type rotatingLog struct {
	path string
	max  int64

	mu   sync.Mutex
	f    *os.File
	size int64
}

func (w *rotatingLog) open() error {
	f, err := privfile.Open(w.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("opening %s: %w", w.path, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return err
	}
	w.f, w.size = f, st.Size()
	return nil
}

func (w *rotatingLog) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return 0, os.ErrClosed
	}
	if w.size > 0 && w.size+int64(len(p)) > w.max {
		w.f.Close()
		w.f = nil
		_ = os.Rename(w.path, w.path+".1")
		if err := w.open(); err != nil {
			return 0, err
		}
	}
	n, err := w.f.Write(p)
	w.size += int64(n)
	return n, err
}

func (w *rotatingLog) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return nil
	}
	err := w.f.Close()
	w.f = nil
	return err
}

// newErrorLog sends net/http's own complaints (bad requests it refuses
// before any handler) to the daemon's log at debug level, clipped.
func newErrorLog(l zerolog.Logger) *log.Logger {
	return log.New(writerFunc(func(p []byte) (int, error) {
		msg := bytes.TrimSpace(p)
		if len(msg) > 512 {
			msg = msg[:512]
		}
		l.Debug().Bytes("error", msg).Msg("http server")
		return len(p), nil
	}), "", 0)
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
