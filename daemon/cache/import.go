package cache

import (
	"bufio"
	"bytes"
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
//
// An imported entry is not fsynced: after a crash it may be missing or
// torn, and its checksum makes that a miss (a download again), never a
// wrong restore; skipping two syncs per download is most of its cost.
func (s *Store) Import(ctx context.Context, key string, body io.Reader, limit int64, accept func() error) (*Hit, error) {
	if s.readOnly {
		return nil, errReadOnly
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
	head, n, ra, err := receive(tmp, io.LimitReader(ctxReader{ctx, body}, limit+1))
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
	pre, hdr, err := checkReceived(ra, n, key)
	if err != nil {
		return nil, err
	}
	if err := tmp.Close(); err != nil {
		return nil, err
	}
	final := s.entryPath(key)
	if err := os.Rename(tmp.Name(), final); err != nil {
		return nil, err
	}
	keep = true
	if head == nil {
		return openHit(final, key)
	}
	return memoryHit(final, head, n, pre, hdr)
}

// receive copies src into tmp. A small entry (most are) is received into
// memory, checked there and served from there: head holds it and ra reads
// it. A large one streams through the temp file: head is nil and ra is tmp.
func receive(tmp *os.File, src io.Reader) (head []byte, n int64, ra io.ReaderAt, err error) {
	head, err = io.ReadAll(io.LimitReader(src, smallEntry+1))
	if err == nil && len(head) <= smallEntry {
		n, ra = int64(len(head)), bytes.NewReader(head)
		_, err = tmp.Write(head)
	} else if err == nil {
		bw := bufio.NewWriterSize(tmp, 64<<10)
		bw.Write(head)
		n, err = io.Copy(bw, src)
		n += int64(len(head))
		if err == nil {
			err = bw.Flush()
		}
		ra, head = tmp, nil
	}
	return head, n, ra, err
}

// checkReceived checks a received entry of n bytes: its header names key,
// its checksum holds, and its links stay inside the workspace.
func checkReceived(ra io.ReaderAt, n int64, key string) (prefix, header, error) {
	pre, hdr, err := readHeader(ra, n)
	if err == nil && hdr.Key != key {
		err = fmt.Errorf("holds key %q", hdr.Key)
	}
	if err == nil {
		err = verify(ra, pre)
	}
	if err != nil {
		return pre, hdr, corrupt("received entry "+key, err)
	}
	if err := checkReceivedLinks(ra, pre); errors.Is(err, ErrOutsideLink) {
		return pre, hdr, fmt.Errorf("received entry %s: %w", key, err)
	} else if err != nil {
		return pre, hdr, corrupt("received entry "+key, err)
	}
	return pre, hdr, nil
}

// memoryHit serves the n-byte entry just stored at final from head, its bytes
// already in memory.
func memoryHit(final string, head []byte, n int64, pre prefix, hdr header) (*Hit, error) {
	fi, err := os.Stat(final)
	if err != nil {
		return nil, fmt.Errorf("reading cache entry: %w", err)
	}
	h := &Hit{fi: fi, data: head, pre: pre, logBytes: hdr.LogBytes}
	h.logZ = head[pre.logOff() : pre.logOff()+int64(pre.logLen)]
	h.Entry = Entry{Meta: hdr.Meta, Size: n, Files: hdr.Files, Path: final}
	return h, nil
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
