package runner

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"slices"

	"github.com/vzn/vx/daemon/hashing"
	"github.com/vzn/vx/daemon/records"
)

// The output stamps file (.vx/outputs): a head, then one record a task,
// then the CRC-32C of everything before it. A record is the task id and
// the length of the rest, so that a load only frames the records and
// decodes those the run asks for. The nonce is new at each save: the
// journal's mark (.vx/outputs.seen) names the one file it speaks of.

const stampsMagic = "vxstamps1\n"

// maxStampTasks and maxStampFiles bound what a stamps file may declare,
// maxStampsSize the file itself (its offsets are int32), maxSeenSize the
// mark.
const (
	maxStampTasks = 1 << 20
	maxStampFiles = 1 << 20
	maxStampsSize = 1 << 30
	maxSeenSize   = 1 << 20
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// stampHasLog is the flag of a record that keeps the task's log.
const stampHasLog = 1

// stampsFile is a loaded stamps file: its records framed, undecoded.
type stampsFile struct {
	nonce string
	body  string            // the records, one string shared by all
	index map[string]recPos // task id → its record in body
}

// recPos is a record's place: the bytes after its task id, and its
// position among the file's records (the mark's bit).
type recPos struct {
	off, end int32
	n        int32
}

// parseStamps frames a stamps file; false for one torn, corrupt or of
// another format (the run then stats and restores as without one).
func parseStamps(raw []byte) (stampsFile, bool) {
	if len(raw) < len(stampsMagic)+4 || string(raw[:len(stampsMagic)]) != stampsMagic || len(raw) > maxStampsSize {
		return stampsFile{}, false
	}
	sum := binary.LittleEndian.Uint32(raw[len(raw)-4:])
	if crc32.Checksum(raw[:len(raw)-4], castagnoli) != sum {
		return stampsFile{}, false
	}
	// One copy of the whole body: every task id is a substring of it.
	all := string(raw[len(stampsMagic) : len(raw)-4])
	r := records.Reader{S: all}
	f := stampsFile{nonce: r.Str(), body: all}
	n := r.Count(maxStampTasks)
	f.index = make(map[string]recPos, n)
	for i := 0; i < n && !r.Bad; i++ {
		id := r.Str()
		size := r.Uint()
		off := len(all) - len(r.S)
		r.Bytes(size)
		f.index[id] = recPos{off: int32(off), end: int32(len(all) - len(r.S)), n: int32(i)}
	}
	if r.Bad || len(r.S) != 0 || len(f.index) != n {
		return stampsFile{}, false
	}
	return f, true
}

func decodeRecord(s string) (stampRecord, bool) {
	r := records.Reader{S: s}
	rec := stampRecord{Key: r.Str()}
	if r.Uint()&stampHasLog != 0 {
		log := r.Str()
		rec.Log = &log
	}
	n := r.Count(maxStampFiles)
	rec.Files = make([]fileStamp, n)
	for i := range rec.Files {
		f := &rec.Files[i]
		f.Path = r.Str()
		f.Size, f.Mtime, f.Ctime = r.Int(), r.Int(), r.Int()
		f.Ino, f.Mode = r.Uint(), uint32(r.Uint())
	}
	return rec, !r.Bad && len(r.S) == 0
}

func encodeRecord(w *records.Writer, rec *stampRecord) {
	flags := uint64(0)
	if rec.Log != nil {
		flags = stampHasLog
	}
	w.Str(rec.Key)
	w.Uint(flags)
	if rec.Log != nil {
		w.Str(*rec.Log)
	}
	w.Uint(uint64(len(rec.Files)))
	for _, f := range rec.Files {
		w.Str(f.Path)
		w.Int(f.Size)
		w.Int(f.Mtime)
		w.Int(f.Ctime)
		w.Uint(f.Ino)
		w.Uint(uint64(f.Mode))
	}
}

// encodeStamps is the file of f's records with edits applied (a nil edit
// forgets the task), under a new nonce: the records kept in their order,
// undecoded, then the new ones by task id.
func encodeStamps(f *stampsFile, edits map[string]*stampRecord) []byte {
	type entry struct {
		id  string
		raw string // an unedited record's bytes
		rec *stampRecord
		n   int32
	}
	entries := make([]entry, 0, len(f.index)+len(edits))
	for id, pos := range f.index {
		if rec, edited := edits[id]; edited {
			if rec != nil {
				entries = append(entries, entry{id: id, rec: rec, n: pos.n})
			}
			continue
		}
		entries = append(entries, entry{id: id, raw: f.body[pos.off:pos.end], n: pos.n})
	}
	slices.SortFunc(entries, func(a, b entry) int { return int(a.n - b.n) })
	var added []string
	for id, rec := range edits {
		if _, ok := f.index[id]; !ok && rec != nil {
			added = append(added, id)
		}
	}
	slices.Sort(added)
	for _, id := range added {
		entries = append(entries, entry{id: id, rec: edits[id]})
	}
	var w, one records.Writer
	w.B.WriteString(stampsMagic)
	w.Str(newNonce())
	w.Uint(uint64(len(entries)))
	for _, e := range entries {
		w.Str(e.id)
		if e.rec != nil {
			one.B.Reset()
			encodeRecord(&one, e.rec)
			e.raw = one.B.String()
		}
		w.Str(e.raw)
	}
	b := w.B.Bytes()
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

func newNonce() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// loadLegacyStamps reads the JSON stamps file of vx before .vx/outputs
// (an upgrade keeps its outputs rather than restore every task once).
// Its records carry no mark: the next run stats their outputs.
func loadLegacyStamps(path string) map[string]*stampRecord {
	b, err := readAtMost(path, maxStampsSize)
	if err != nil {
		return nil
	}
	var m map[string]*stampRecord
	if json.Unmarshal(b, &m) != nil || len(m) > maxStampTasks {
		return nil
	}
	for id, rec := range m {
		if rec == nil {
			delete(m, id)
		}
	}
	return m
}

// The journal's mark (.vx/outputs.seen): which records of the stamps file
// of nonce were verified by a run whose journal token was (epoch, seq),
// each bit a record in file order.
const seenMagic = "vxseen1\n"

type seenMark struct {
	nonce, epoch string
	seq          uint64
	bits         []byte
}

func (m *seenMark) has(n int32) bool {
	return m != nil && int(n/8) < len(m.bits) && m.bits[n/8]&(1<<(n%8)) != 0
}

func loadSeen(path string) *seenMark {
	raw, err := readAtMost(path, maxSeenSize)
	if err != nil || len(raw) < len(seenMagic)+4 || string(raw[:len(seenMagic)]) != seenMagic {
		return nil
	}
	if crc32.Checksum(raw[:len(raw)-4], castagnoli) != binary.LittleEndian.Uint32(raw[len(raw)-4:]) {
		return nil
	}
	r := records.Reader{S: string(raw[len(seenMagic) : len(raw)-4])}
	m := &seenMark{nonce: r.Str(), epoch: r.Str(), seq: r.Uint()}
	m.bits = []byte(r.Str())
	if r.Bad || len(r.S) != 0 || m.epoch == "" {
		return nil
	}
	return m
}

// saveSeen writes the mark without an fsync: it is a shortcut checked when
// read, and a mark lost to a power loss only makes the next run stat.
func saveSeen(path string, m *seenMark) error {
	var w records.Writer
	w.B.WriteString(seenMagic)
	w.Str(m.nonce)
	w.Str(m.epoch)
	w.Uint(m.seq)
	w.Str(string(m.bits))
	b := w.B.Bytes()
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
	return hashing.WriteFileReplace(path, b, 0o644)
}

// errStampsEncoding is a stamps file that does not read back as written.
var errStampsEncoding = errors.New("the output stamps do not read back as written")

// readAtMost reads the file at path, refusing one over max bytes before
// reading it.
func readAtMost(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() > max {
		return nil, fmt.Errorf("%s is over %d bytes", path, max)
	}
	b := make([]byte, st.Size())
	n, err := io.ReadFull(f, b)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, err
	}
	return b[:n], nil
}
