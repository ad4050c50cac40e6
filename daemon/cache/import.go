package cache

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Import stores an entry received as raw bytes (a remote cache download)
// under key. The bytes go to a temp file; accept, when set, is called once
// every byte is there and may refuse them (a signature check); then the
// entry is verified as Get verifies it (size, header, key, checksum) and
// only then renamed into place. A body longer than limit, torn, damaged or
// refused leaves nothing behind and returns an error wrapping ErrCorrupt
// (or accept's error); nothing is ever restored from it.
func (s *Store) Import(ctx context.Context, key string, body io.Reader, limit int64, accept func() error) (*Hit, error) {
	if s.readOnly {
		return nil, ErrReadOnly
	}
	if err := checkKey(key); err != nil {
		return nil, err
	}
	shard := filepath.Join(s.dir, key[:2])
	if err := os.MkdirAll(shard, 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.CreateTemp(shard, tempPrefix+key+"-*")
	if err != nil {
		return nil, err
	}
	keep := false
	defer func() {
		if !keep {
			tmp.Close()
			if rerr := os.Remove(tmp.Name()); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
				s.log.Warn().Err(rerr).Str("path", tmp.Name()).Msg("removing cache temp file")
			}
		}
	}()
	bw := bufio.NewWriterSize(tmp, 64<<10)
	n, err := io.Copy(bw, io.LimitReader(ctxReader{ctx, body}, limit+1))
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		return nil, fmt.Errorf("%w: receiving entry %s: %w", ErrCorrupt, key, err)
	}
	if n > limit {
		return nil, fmt.Errorf("%w: entry %s is over the %d-byte limit", ErrCorrupt, key, limit)
	}
	if accept != nil {
		if err := accept(); err != nil {
			return nil, err
		}
	}
	pre, hdr, err := readHeader(tmp, n)
	if err == nil && hdr.Key != key {
		err = fmt.Errorf("holds key %q", hdr.Key)
	}
	if err == nil {
		err = verify(tmp, pre)
	}
	if err != nil {
		return nil, corrupt("received entry "+key, err)
	}
	if !s.noSync {
		if err := tmp.Sync(); err != nil {
			return nil, err
		}
	}
	if err := tmp.Close(); err != nil {
		return nil, err
	}
	final := s.entryPath(key)
	if err := os.Rename(tmp.Name(), final); err != nil {
		return nil, err
	}
	keep = true
	if !s.noSync {
		syncDir(shard)
	}
	return openHit(final, key)
}

// ctxReader stops a copy when its context ends.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// Has reports whether an entry file exists for key, without reading or
// verifying it (Get does that).
func (s *Store) Has(key string) bool {
	if checkKey(key) != nil {
		return false
	}
	_, err := os.Stat(s.entryPath(key))
	return err == nil
}
