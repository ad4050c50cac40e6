package cache

import (
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/klauspost/compress/zstd"
)

// ErrOutsideLink reports a received entry holding a symlink that leads
// outside the outputs' root: absolute, or climbing above the root, directly
// or through another symlink of the entry. Such an entry made elsewhere is
// refused, never restored (a later tool writing through the link would
// write outside the project).
var ErrOutsideLink = errors.New("symlink leads outside the outputs")

// maxLinkHops bounds how many symlinks one resolution follows (a cycle).
const maxLinkHops = 40

// checkReceivedLinks reads the manifest of a verified entry and refuses
// it when a symlink leads outside the restore root.
func checkReceivedLinks(ra io.ReaderAt, p prefix) error {
	dec := decPool.Get().(*zstd.Decoder)
	defer func() {
		dec.Reset(nil)
		decPool.Put(dec)
	}()
	if err := dec.Reset(io.NewSectionReader(ra, p.archiveOff(), int64(p.archiveLen))); err != nil {
		return err
	}
	man, err := readManifest(dec)
	if err != nil {
		return err
	}
	return checkLinks(man)
}

// checkLinks resolves every symlink of the manifest as the filesystem
// would after a restore, following the manifest's own symlinks, and
// refuses one that ends outside the root.
func checkLinks(files []fileEntry) error {
	links := map[string]string{}
	for _, f := range files {
		if f.Type == typeSymlink {
			links[f.Path] = f.Target
		}
	}
	for p := range links {
		if err := resolveInside(links, p); err != nil {
			return fmt.Errorf("%w: %s -> %s: %v", ErrOutsideLink, p, links[p], err)
		}
	}
	return nil
}

func resolveInside(links map[string]string, link string) error {
	var cur []string
	if d := path.Dir(link); d != "." {
		cur = strings.Split(d, "/")
	}
	todo := []string{links[link]}
	hops := 0
	for len(todo) > 0 {
		t := todo[0]
		todo = todo[1:]
		if path.IsAbs(t) || strings.ContainsRune(t, '\\') {
			return errors.New("an absolute target")
		}
		parts := strings.Split(t, "/")
		for i, c := range parts {
			switch c {
			case "", ".":
				continue
			case "..":
				if len(cur) == 0 {
					return errors.New("climbs above the root")
				}
				cur = cur[:len(cur)-1]
				continue
			}
			cur = append(cur, c)
			next, ok := links[strings.Join(cur, "/")]
			if !ok {
				continue
			}
			if hops++; hops > maxLinkHops {
				return errors.New("too many levels of symlinks")
			}
			// Resolve next from the linking directory, then the rest.
			cur = cur[:len(cur)-1]
			todo = append([]string{next, rest(parts[i+1:])}, todo...)
			break
		}
	}
	return nil
}

// rest joins the components still to walk, relative (empty ones dropped).
func rest(parts []string) string {
	var keep []string
	for _, c := range parts {
		if c != "" {
			keep = append(keep, c)
		}
	}
	return strings.Join(keep, "/")
}
