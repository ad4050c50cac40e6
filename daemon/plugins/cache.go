package plugins

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/vzn/vx/daemon/hashing"
	"github.com/vzn/vx/daemon/secret"
	"github.com/vzn/vx/protocol/layout"
	"github.com/vzn/vx/protocol/plugin"
)

// stored is one declaration's last good answers, kept in
// .vx/plugins/<hash of the spec>.4.json. DescribeKey and TasksKey are the
// inputs the answers were given for; an answer is reused only when its key
// is the one computed now.
//
// The file is the hex CRC-32C of the rest (its seal) on a line, then a
// line of JSON (this struct), the matched files a line each
// (encodeFiles), an empty line, and the tasks a line each (encodeTasks):
// a warm load of thousands of files and tasks, most tasks alike, decodes
// a short JSON object and splits lines, where a JSON object a file or a
// task (or a JSON string holding the lines) took several times longer.
// Only answers that passed a plugin answer's checks are stored, and the
// tasks key covers what those checks saw (the files and the projects):
// a sealed store whose key holds is taken without checking each task
// again. A store whose seal does not match (edited by hand, torn) is no
// store: the plugin is asked again.
type stored struct {
	Spec        string           `json:"spec"`
	Identity    string           `json:"identity"`
	DescribeKey string           `json:"describeKey"`
	Describe    *plugin.Describe `json:"describe"`
	TasksKey    string           `json:"tasksKey,omitempty"`
	// ProjectsKey is the projects' part of TasksKey (projectsKey): a load
	// whose projects, files and contents are the stored ones takes
	// TasksKey without hashing every file's hash again.
	ProjectsKey string `json:"projectsKey,omitempty"`
	// TaskShapes are the tasks' fields besides the project, name and
	// file, each set once; the task lines name theirs. Tasks whose names
	// the lines cannot hold are kept whole in TaskList instead.
	Tasks      []plugin.Task `json:"-"`
	TaskShapes []plugin.Task `json:"taskShapes,omitempty"`
	TaskList   []plugin.Task `json:"tasks,omitempty"`
	Files      []fileRec     `json:"-"`
	// Lines counts the files and tasks the file holds: one cut short at
	// a line's end (a hand edit, a torn write) parses, but is refused.
	Lines [2]int    `json:"lines"`
	At    time.Time `json:"at"`

	// rehashed counts the matched files this load read (their stamps did
	// not vouch for them): storing their new stamps spares the next load.
	rehashed int
	// body is the store's text as read (loadStored), for holdsSecret.
	body string
}

// fileRec is a matched file as a tasks answer was given for it: its
// content hash, and its stamp then, which lets a later load take the hash
// without reading the file again.
type fileRec struct {
	Path  string `json:"path"`
	Hash  string `json:"hash"`
	Stamp stamp  `json:"stamp"`
	// Sum is the run's own content hash of the file (hashing's, which
	// vxd's change journal keeps): when a run's journal answers the same,
	// Hash holds without a stat. "": not known.
	Sum string `json:"sum,omitempty"`
	// stampHex is Stamp as stored, until decodeStamp: a load whose
	// journal proves a file by its Sum never reads its stamp.
	stampHex string
}

// decodeStamp sets Stamp from the stored digits, once; digits that do not
// decode (only a store sealed by hand has them) are no stamp, which
// vouches for nothing.
func (r *fileRec) decodeStamp() {
	if r.stampHex == "" {
		return
	}
	var raw [stampBytes]byte
	r.Stamp = stamp{}
	if decodeHex(raw[:], r.stampHex) {
		for i := range r.Stamp {
			r.Stamp[i] = int64(binary.LittleEndian.Uint64(raw[8*i:]))
		}
	}
	r.stampHex = ""
}

// stamp is a file's mtime, ctime (ns), size, inode and mode as lstat saw
// them; all zero: absent.
type stamp [5]int64

func stampOf(abs string) stamp {
	st := hashing.StampOf(abs)
	if !st.Exists {
		return stamp{}
	}
	return stamp{st.Mtime, st.Ctime, st.Size, int64(st.Ino), int64(st.Mode)}
}

// stampOfStat is stampOf with the lstat made.
func stampOfStat(st *hashing.Stat) stamp {
	s := hashing.StampOfStat("", st)
	return stamp{s.Mtime, s.Ctime, s.Size, int64(s.Ino), int64(s.Mode)}
}

// racyWindow: a stamp this close to the answer's time (or later) is not
// trusted; timestamps are coarse, and an edit right after the hash could
// leave the stamp as it was.
const racyWindow = 2 * time.Second

// trusted reports whether st, the stamp of the file r records now, is the
// stamp it had well before the answer was stored at at: then r.Hash is
// its content's hash without reading it.
//
// Only a regular file's stamp vouches for its content: a symbolic link is
// hashed through, and its own stamp stays as it was when its target is
// edited.
func (r fileRec) trusted(st stamp, at time.Time) bool {
	return r.Stamp == st && st.settled(at)
}

// settled reports whether the stamp vouches for its file and was last
// changed well before t: what was read of the file before t (its sum or
// its hash) and after it is then one content.
func (st stamp) settled(t time.Time) bool {
	// In nanoseconds, as the stamp is: a warm load asks it of every
	// matched file, and two times made and compared each took longer.
	cut := t.Add(-racyWindow).UnixNano()
	return st.vouches() && st[0] < cut && st[1] < cut
}

// vouches reports whether the stamp can stand for the content: a regular
// file's, not an absent file's or a link's.
func (st stamp) vouches() bool {
	return st != stamp{} && (&hashing.Stat{Mode: uint32(st[4])}).Regular()
}

func (s *stored) paths() []string {
	out := make([]string, len(s.Files))
	for i, r := range s.Files {
		out[i] = r.Path
	}
	return out
}

// storePath is where spec's answers are kept. The name carries the
// store's form (4: sealed by a CRC, tasks as shapes and lines; 3 was
// sealed by a SHA-256): a vx that keeps another
// form reads and writes a file of its own, never one whose tasks it would
// not find.
func storePath(root, spec string) string {
	sum := sha256.Sum256([]byte(spec))
	return filepath.Join(layout.Dir(root), "plugins", hex.EncodeToString(sum[:12])+".4.json")
}

// Sweep removes from .vx/plugins every file that is not the store of one
// of specs (the declared plugins): the answers of a plugin no longer
// declared, and stores of another form an older vx wrote. What cannot be
// removed is left; nothing else of .vx is touched.
func Sweep(root string, specs []string) {
	keep := make(map[string]bool, len(specs))
	for _, spec := range specs {
		keep[filepath.Base(storePath(root, spec))] = true
	}
	dir := filepath.Join(layout.Dir(root), "plugins")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		// A dot file is a store being written (WriteFileReplace's temp).
		if !keep[e.Name()] && e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".json") && !strings.HasPrefix(e.Name(), ".") {
			_ = os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// maxStore bounds a stored answer: the two answers it keeps, and a line
// of up to maxFileLine bytes for each of the most files a tasks request
// carries (a path, its two hashes and its stamp: about 230 bytes for a
// path of 100).
const (
	maxFileLine = 512
	maxStore    = 2*plugin.MaxAnswer + plugin.MaxFiles*maxFileLine + (1 << 20)
)

// loadStored reads spec's answers; a missing or unreadable file is none.
func loadStored(root, spec string) *stored {
	b, err := readBounded(storePath(root, spec), maxStore)
	if err != nil {
		return nil
	}
	body, ok := unseal(b)
	if !ok {
		return nil
	}
	var s stored
	header, files, tasks, ok := splitStore(body)
	if !ok || json.Unmarshal([]byte(header), &s) != nil || s.Spec != spec || s.Describe == nil {
		return nil
	}
	// A vx from before the describe checks held stored answers they
	// refuse, in this same form: such a store is none.
	if checkDescribe(s.Describe, func(v string) string { return v }) != nil {
		return nil
	}
	if s.Files, ok = decodeFiles(files); !ok {
		return nil
	}
	if s.Tasks, ok = decodeTasks(s.TaskShapes, tasks); !ok {
		return nil
	}
	if tasks == "" {
		s.Tasks = s.TaskList
	}
	if len(s.Files) != s.Lines[0] || len(s.Tasks) != s.Lines[1] {
		return nil
	}
	s.body = body
	return &s
}

// holdsSecret reports whether the store as read holds a value mask
// hides (in JSON's escapes too, as save judges it): answers stored
// before the value was declared secret, or by a vx that stored secrets.
// Their key does not say which values are secret, so they would be
// reused, and left in clear, for ever.
func (s *stored) holdsSecret(mask *secret.Masker) bool {
	return !mask.Empty() && !bytes.Equal(mask.JSON([]byte(s.body)), []byte(s.body))
}

// errHoldsSecret is save's refusal of answers holding a secret value.
var errHoldsSecret = errors.New("the answers hold a value declared secret")

// save writes s atomically (a reader sees the old answers or the new);
// answers in which mask would hide a secret value are not written
// (errHoldsSecret): vx stores no secret in clear.
func (s *stored) save(root string, mask *secret.Masker) error {
	var tasks string
	s.TaskShapes, tasks, s.TaskList = encodeTasks(s.Tasks)
	files := encodeFiles(s.Files)
	s.Lines = [2]int{strings.Count(files, "\n"), len(s.Tasks)}
	if s.Lines[0] != len(s.Files) {
		// A record was left out: the records kept are not every file the
		// tasks were given with, so no load may take TasksKey for them
		// unhashed (Runner.tasks' same asks for the ProjectsKey stored).
		s.ProjectsKey = ""
	}
	header, err := json.Marshal(s)
	if err != nil {
		return err
	}
	// JSON escapes every newline, so the header is one line.
	body := slices.Concat(header, []byte("\n"), []byte(files), []byte("\n"), []byte(tasks))
	// JSON: a secret spelt with escapes in a JSON string is found too.
	if !mask.Empty() && !bytes.Equal(mask.JSON(body), body) {
		return errHoldsSecret
	}
	if len(body) > maxStore-sealLen-1 {
		// loadStored would not read it: the plugin is asked each load.
		return fmt.Errorf("the answers of %s take %d bytes, more than a store holds (%d)", s.Spec, len(body), maxStore)
	}
	// WriteFileReplace makes .vx/plugins when it is missing.
	return hashing.WriteFileReplace(storePath(root, s.Spec), seal(body), 0o644)
}

// seal prefixes body with its CRC-32C (Castagnoli), in hex, on a line of
// its own. It catches a hand edit or a torn copy, as a digest would; it
// need not resist forgery (whoever writes .vx could seal anything), and
// it costs a warm load a twentieth of a SHA-256 of the store.
func seal(body []byte) []byte {
	sum := binary.BigEndian.AppendUint32(nil, crc32.Checksum(body, castagnoli))
	out := make([]byte, 0, sealLen+1+len(body))
	out = hex.AppendEncode(out, sum)
	out = append(out, '\n')
	return append(out, body...)
}

// castagnoli is the CRC-32C table (the CPU's instruction where it has one).
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// sealLen is the seal's length in hex digits.
const sealLen = 2 * crc32.Size

// unseal answers what seal sealed; ok is false when b is not sealed or
// its body is not what was sealed.
func unseal(b []byte) (string, bool) {
	if len(b) <= sealLen || b[sealLen] != '\n' {
		return "", false
	}
	var want [crc32.Size]byte
	if _, err := hex.Decode(want[:], b[:sealLen]); err != nil || crc32.Checksum(b[sealLen+1:], castagnoli) != binary.BigEndian.Uint32(want[:]) {
		return "", false
	}
	return string(b[sealLen+1:]), true
}

// splitStore cuts a stored file into its JSON line, its file lines and
// its task lines: the file lines end at the first empty line (no record
// is empty).
func splitStore(text string) (header, files, tasks string, ok bool) {
	header, rest, ok := strings.Cut(text, "\n")
	if !ok {
		return "", "", "", false
	}
	if strings.HasPrefix(rest, "\n") {
		return header, "", rest[1:], true
	}
	i := strings.Index(rest, "\n\n")
	if i < 0 {
		return "", "", "", false
	}
	return header, rest[:i+1], rest[i+2:], true
}

// key hashes parts, each length-prefixed so that no two lists collide.
func key(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		var n [8]byte
		for i := range n {
			n[i] = byte(len(p) >> (8 * i))
		}
		h.Write(n[:])
		h.Write([]byte(p))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// encodeFiles writes each record as "path\thash\tstamp\tsum\n", the
// stamp's five numbers as 80 hex digits (each number's 8 bytes, little
// endian): a warm load reads one for each matched file, and decoding hex
// took a third of the time parsing five decimal numbers did.
// A path holding a tab or a newline is left out: the next load reads it
// again.
func encodeFiles(recs []fileRec) string {
	var b strings.Builder
	var raw [stampBytes]byte
	var digits [2 * stampBytes]byte
	for _, r := range recs {
		if strings.ContainsAny(r.Path, "\t\n") {
			continue
		}
		b.WriteString(r.Path)
		b.WriteByte('\t')
		b.WriteString(r.Hash)
		b.WriteByte('\t')
		if r.stampHex != "" {
			b.WriteString(r.stampHex)
		} else {
			for i, n := range r.Stamp {
				binary.LittleEndian.PutUint64(raw[8*i:], uint64(n))
			}
			hex.Encode(digits[:], raw[:])
			b.Write(digits[:])
		}
		b.WriteByte('\t')
		b.WriteString(r.Sum)
		b.WriteByte('\n')
	}
	return b.String()
}

// stampBytes is a stamp's size in a file record.
const stampBytes = 8 * len(stamp{})

// decodeFiles reads encodeFiles' text; ok is false when it does not parse.
func decodeFiles(text string) ([]fileRec, bool) {
	out := make([]fileRec, 0, strings.Count(text, "\n"))
	for len(text) > 0 {
		var fields [4]string
		var ok bool
		if text, ok = cutLine(text, fields[:]); !ok || len(fields[2]) != 2*stampBytes {
			return nil, false
		}
		// The stamp is decoded when asked (decodeStamp).
		out = append(out, fileRec{Path: fields[0], Hash: fields[1], Sum: fields[3], stampHex: fields[2]})
	}
	return out, true
}

// decodeHex decodes the hex digits s into dst, which it fills exactly;
// false for any other s (hex.Decode takes a []byte, which each record's
// string would be copied into).
func decodeHex(dst []byte, s string) bool {
	if len(s) != 2*len(dst) {
		return false
	}
	bad := byte(0)
	for i := range dst {
		hi, lo := hexValue[s[2*i]], hexValue[s[2*i+1]]
		bad |= hi | lo
		dst[i] = hi<<4 | lo&0xf
	}
	return bad&0xf0 == 0
}

// hexValue maps a lower-case hex digit to its value, any other byte to
// 0xff.
var hexValue = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	for i, c := range "0123456789abcdef" {
		t[c] = byte(i)
	}
	return t
}()

// encodeTasks keeps tasks as shapes and lines of
// "project\tname\tfile\tshape\n", or, when a project, name or file holds
// a tab or a newline, as the list itself.
func encodeTasks(tasks []plugin.Task) (shapes []plugin.Task, text string, list []plugin.Task) {
	index := map[string]int{}
	var b strings.Builder
	for _, t := range tasks {
		if strings.ContainsAny(t.Project+t.Name+t.File, "\t\n") {
			return nil, "", tasks
		}
		shape := t
		shape.Project, shape.Name, shape.File = "", "", ""
		k, err := json.Marshal(shape)
		if err != nil {
			return nil, "", tasks
		}
		i, ok := index[string(k)]
		if !ok {
			i = len(shapes)
			index[string(k)] = i
			shapes = append(shapes, shape)
		}
		b.WriteString(t.Project)
		b.WriteByte('\t')
		b.WriteString(t.Name)
		b.WriteByte('\t')
		b.WriteString(t.File)
		b.WriteByte('\t')
		b.WriteString(strconv.Itoa(i))
		b.WriteByte('\n')
	}
	return shapes, b.String(), nil
}

// decodeTasks reads encodeTasks' lines; ok is false when they do not
// parse or name a shape there is not. The tasks of one shape share its
// fields (which nothing changes in place).
func decodeTasks(shapes []plugin.Task, text string) ([]plugin.Task, bool) {
	n := strings.Count(text, "\n")
	if n > plugin.MaxTasks {
		return nil, false
	}
	out := make([]plugin.Task, 0, n)
	for len(text) > 0 {
		var fields [4]string
		var ok bool
		if text, ok = cutLine(text, fields[:]); !ok {
			return nil, false
		}
		i, err := strconv.Atoi(fields[3])
		if err != nil || i < 0 || i >= len(shapes) {
			return nil, false
		}
		t := shapes[i]
		t.Project, t.Name, t.File = fields[0], fields[1], fields[2]
		out = append(out, t)
	}
	return out, true
}

// cutLine splits text's first line, which must end in a newline, into
// exactly len(fields) tab-separated fields, and answers the text after it.
func cutLine(text string, fields []string) (rest string, ok bool) {
	line, rest, found := strings.Cut(text, "\n")
	if !found {
		return "", false
	}
	last := len(fields) - 1
	for i := range last {
		if fields[i], line, ok = strings.Cut(line, "\t"); !ok {
			return "", false
		}
	}
	fields[last] = line
	return rest, true
}
