package workspace

import (
	"sort"
	"strings"

	"github.com/vzn/vx/protocol/plugin"
)

// Scripts are a package.json's scripts, sorted by name. A map per
// project (most have a few scripts) cost some 400 bytes each, 4 MB of a
// 10,000-project model, and its strings, cut from the saved manifests,
// kept that whole file (1.7 MB) alive with them.
type Scripts []Script

// Script is one package.json script (the type a plugin's tasks request
// carries them in: a model's scripts go to a plugin as they are).
type Script = plugin.Script

// scriptsOf are m's scripts, their strings copied (never sharing a
// larger buffer they were decoded from); nil for none.
func scriptsOf(m map[string]string) Scripts {
	if len(m) == 0 {
		return nil
	}
	s := make(Scripts, 0, len(m))
	for name, cmd := range m {
		s = append(s, Script{Name: strings.Clone(name), Command: strings.Clone(cmd)})
	}
	sort.Slice(s, func(i, j int) bool { return s[i].Name < s[j].Name })
	return s
}

// Get is the command of script name, and whether there is one.
func (s Scripts) Get(name string) (string, bool) {
	i := sort.Search(len(s), func(i int) bool { return s[i].Name >= name })
	if i < len(s) && s[i].Name == name {
		return s[i].Command, true
	}
	return "", false
}
