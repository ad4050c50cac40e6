package failures

import (
	"fmt"
	"unicode/utf8"
)

// The excerpt keeps a little of the start (what ran, with which flags) and
// much of the end, where tools print errors and summaries.
const (
	excerptHead = 8 << 10
	excerptTail = 56 << 10
)

// Excerpt keeps the first 8 KiB and the last 56 KiB of out (joined by a
// marker line saying how many bytes were elided) when out is longer than
// 64 KiB; shorter output is returned whole. Cuts fall on UTF-8 boundaries:
// each cut moves by at most three bytes so that it does not split a rune,
// toward keeping less, and invalid bytes are left as they are.
func Excerpt(out []byte) (text string, truncated bool) {
	return excerpt(out, excerptHead, excerptTail)
}

// The brief excerpt is what a page shows of a failure and what vx pushes
// to the platform with each failed task: small enough for a screen and a
// row, still holding the start and the end.
const (
	briefHead = 1 << 10
	briefTail = 7 << 10
	// briefMax bounds Brief's answer (the marker line included).
	briefMax = briefHead + briefTail + 64
)

// Brief is Excerpt within 8 KiB: the first 1 KiB and the last 7 KiB of
// out, cut the same way, without the terminal's colour codes (it is shown
// as text). Dropping them may join a secret they split: a caller masks
// StripANSI(out) before it asks for its brief.
func Brief(out string) (text string, truncated bool) {
	return excerpt([]byte(StripANSI(out)), briefHead, briefTail)
}

// excerpt keeps the first head and the last tail bytes of out.
func excerpt(out []byte, hn, tn int) (text string, truncated bool) {
	if len(out) <= hn+tn {
		return string(out), false
	}
	h := hn
	for i := 0; i < utf8.UTFMax-1 && h > 0 && !utf8.RuneStart(out[h]); i++ {
		h--
	}
	t := len(out) - tn
	for i := 0; i < utf8.UTFMax-1 && t < len(out) && !utf8.RuneStart(out[t]); i++ {
		t++
	}
	head := out[:h]
	sep := "\n"
	if len(head) == 0 || head[len(head)-1] == '\n' {
		sep = ""
	}
	return fmt.Sprintf("%s%s[... %d bytes elided ...]\n%s", head, sep, t-h, out[t:]), true
}
