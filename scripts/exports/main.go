// Command exports measures how much of the module's exported surface is
// used from outside the package that declares it, and counts the lines of
// Go source over 200 characters.
//
// A name is an exported package-level func, type, var or const declared in
// a non-test file of a package that is neither a main package nor test
// support (a package under tests/). Each name falls in one class:
//
//   - other: referred to by the non-test code of another package of the
//     module (a main package included, test support not);
//   - tests: referred to only by test code outside its package's own files
//     (another package's tests, test support under tests/, or its own
//     package_test package);
//   - none: referred to by nothing outside its package.
//
// A package refers to a name when an identifier of its code resolves to
// it, or, for a type, when it selects one of the type's fields or methods
// (x.Field, x.Method()) or uses a value, function or field whose type is
// built of it (a func returning *T, a const of type Kind): the type is then
// part of what that package relies on even where it is never spelled. The module is type-checked once per
// platform (-platforms) and the classes are the union: a name used only in
// a _darwin.go file counts as used. Imports from outside the module come
// from their compiled export data (go list -export).
//
// A type is also used, with the class of the type that holds it, when it
// is the type of an exported field, or in the signature of an exported
// method, of a used type (the element of an answer's list): -list marks
// those with a *, and a name no other package uses with "(dead)" when even
// its own package does not use it, or "(only its own tests)".
//
// Usage:
//
//	go run ./scripts/exports            # the counts
//	go run ./scripts/exports -list none # the names in one class, by package
//	go run ./scripts/exports -goal      # exit 1 unless the goal is met
//
// The goal (issue 28): under 5% of the names used by no other package, and
// no line over 200 characters. It exits 1 when a file of the module does
// not type-check, since its uses would then be missed. A name only the
// linker sets (-ldflags -X) or only a non-Go file names counts as used by
// no other package; -list shows it.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// maxLine is the longest line of Go source the house style allows.
const maxLine = 200

func main() {
	platforms := flag.String("platforms", "linux/amd64,linux/arm64,darwin/arm64", "GOOS/GOARCH pairs to type-check, comma separated")
	list := flag.String("list", "", "also list the names of this class (none, tests, other) or all")
	goal := flag.Bool("goal", false, "exit 1 unless under 5% of the names are used by no other package and no line is over 200 characters")
	flag.Parse()
	if err := run(os.Stdout, strings.Split(*platforms, ","), *list, *goal); err != nil {
		fmt.Fprintln(os.Stderr, "exports:", err)
		os.Exit(1)
	}
}

func run(w io.Writer, platforms []string, list string, goal bool) error {
	// The module's root, so that ./... and git ls-files cover all of it
	// from any directory.
	gomod, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil || len(bytes.TrimSpace(gomod)) == 0 || string(bytes.TrimSpace(gomod)) == os.DevNull {
		return fmt.Errorf("finding the module (go env GOMOD): %v", err)
	}
	if err := os.Chdir(filepath.Dir(string(bytes.TrimSpace(gomod)))); err != nil {
		return err
	}
	names := map[string]*name{}
	for _, p := range platforms {
		goos, goarch, ok := strings.Cut(p, "/")
		if !ok {
			return fmt.Errorf("platform %q is not GOOS/GOARCH", p)
		}
		if err := measure(goos, goarch, names); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
	}
	long, err := longLines()
	if err != nil {
		return err
	}
	widen(names)
	unused := report(w, names, list)
	fmt.Fprintf(w, "lines over %d characters in .go files: %d\n", maxLine, len(long))
	if list != "" {
		for _, l := range long {
			fmt.Fprintln(w, "  "+l)
		}
	}
	if goal && (unused >= maxUnused || len(long) > 0) {
		return fmt.Errorf("goal not met: %.1f%% of the exported names used by no other package (goal under %.0f%%), %d lines over %d characters (goal 0)", unused, maxUnused, len(long), maxLine)
	}
	return nil
}

// maxUnused is the share of exported names, in percent, that the goal
// allows to be used by no other package.
const maxUnused = 5.0

// Class says where a name is used from; a higher class wins.
type class int

const (
	none class = iota
	tests
	other
)

func (c class) String() string { return [...]string{"none", "tests", "other"}[c] }

// name is one exported package-level name and the widest use found.
type name struct {
	pkg, id, pos string
	obj          types.Object // as one platform declares it
	used         class
	shape        bool // used only as part of a used type's shape (see widen)
	inside       bool // used by its own package's non-test code
	ownTests     bool // used by its own package's tests
}

// where says, for a name no other package uses, where it is used: by its
// own package, only by that package's tests (delete both?), or nowhere
// (dead: delete it).
func (n *name) where() string {
	switch {
	case n.used != none || n.inside:
		return ""
	case n.ownTests:
		return "\t(only its own tests)"
	}
	return "\t(dead)"
}

// listed is one package as go list -json describes it.
type listed struct {
	ImportPath   string
	Dir          string
	Name         string
	Export       string
	Standard     bool
	Module       *struct{ Path string }
	GoFiles      []string
	CgoFiles     []string
	TestGoFiles  []string
	XTestGoFiles []string
	Imports      []string
	TestImports  []string
	XTestImports []string
	Error        *struct{ Err string }
}

// goList runs go list -json for one platform.
func goList(env []string, args ...string) ([]*listed, error) {
	fields := "ImportPath,Dir,Name,Export,Standard,Module,GoFiles,CgoFiles,TestGoFiles,XTestGoFiles,Imports,TestImports,XTestImports,Error"
	cmd := exec.Command("go", append([]string{"list", "-e", "-json=" + fields}, args...)...)
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	var pkgs []*listed
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		p := new(listed)
		if err := dec.Decode(p); err != nil {
			return nil, fmt.Errorf("reading go list: %w", err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs, nil
}

// checker type-checks the module's packages for one platform.
type checker struct {
	fset    *token.FileSet
	mod     map[string]*listed        // the module's packages by path
	checked map[string]*types.Package // non-test packages checked so far
	ext     types.Importer            // packages outside the module
	uses    func(from *listed, test bool, info *types.Info)
	errs    []string
}

func measure(goos, goarch string, names map[string]*name) error {
	env := append(os.Environ(), "GOOS="+goos, "GOARCH="+goarch)
	if goos != "linux" || goarch != "amd64" {
		env = append(env, "CGO_ENABLED=0")
	}
	mod, err := goList(env, "./...")
	if err != nil {
		return err
	}
	c := &checker{fset: token.NewFileSet(), mod: map[string]*listed{}, checked: map[string]*types.Package{}}
	outside := map[string]bool{}
	for _, p := range mod {
		if p.Error != nil {
			return fmt.Errorf("%s: %s", p.ImportPath, p.Error.Err)
		}
		c.mod[p.ImportPath] = p
	}
	for _, p := range mod {
		for _, imps := range [][]string{p.Imports, p.TestImports, p.XTestImports} {
			for _, i := range imps {
				if c.mod[i] == nil && i != "C" {
					outside[i] = true
				}
			}
		}
	}
	exports, err := exportData(env, outside)
	if err != nil {
		return err
	}
	c.ext = importer.ForCompiler(c.fset, "gc", func(path string) (io.ReadCloser, error) {
		f, ok := exports[path]
		if !ok {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(f)
	})
	c.uses = func(from *listed, test bool, info *types.Info) { record(c, names, from, test, info) }
	for _, p := range mod {
		if _, err := c.check(p.ImportPath); err != nil {
			return err
		}
	}
	for _, p := range mod {
		if err := c.checkTests(p); err != nil {
			return err
		}
	}
	if len(c.errs) > 0 {
		return fmt.Errorf("type errors (uses would be missed):\n%s", strings.Join(c.errs, "\n"))
	}
	return nil
}

// exportData compiles the packages from outside the module (and what they
// import) and returns the export data file of each.
func exportData(env []string, paths map[string]bool) (map[string]string, error) {
	args := []string{"-export", "-deps"}
	for p := range paths {
		args = append(args, p)
	}
	sort.Strings(args[2:])
	pkgs, err := goList(env, args...)
	if err != nil {
		return nil, err
	}
	files := map[string]string{}
	for _, p := range pkgs {
		if p.Export != "" {
			files[p.ImportPath] = p.Export
		}
	}
	return files, nil
}

// parse reads files of dir; the files of a package that are for another
// platform were left out by go list already.
func (c *checker) parse(dir string, files ...[]string) ([]*ast.File, error) {
	var out []*ast.File
	for _, fs := range files {
		for _, f := range fs {
			af, err := parser.ParseFile(c.fset, filepath.Join(dir, f), nil, parser.SkipObjectResolution)
			if err != nil {
				return nil, err
			}
			out = append(out, af)
		}
	}
	return out, nil
}

func newInfo() *types.Info {
	return &types.Info{Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{}}
}

// importer resolves the module's packages to the ones checked here and the
// rest to export data; over, when set, replaces one package (a package's
// test variant, for its package_test files).
func (c *checker) importer(over *types.Package) types.ImporterFrom {
	// A module package that imports over, directly or not, is checked
	// again against it (as go test builds it), else its types would not be
	// over's; what such a copy uses is not recorded: the original counts.
	again := map[string]*types.Package{}
	var imp importerFunc
	imp = func(path string) (*types.Package, error) {
		if over != nil && path == over.Path() {
			return over, nil
		}
		if c.mod[path] == nil {
			return c.ext.Import(path)
		}
		if over == nil || !c.reaches(path, over.Path(), map[string]bool{}) {
			return c.check(path)
		}
		if tp, ok := again[path]; ok {
			return tp, nil
		}
		p := c.mod[path]
		files, err := c.parse(p.Dir, p.GoFiles, p.CgoFiles)
		if err != nil {
			return nil, err
		}
		tp, _ := c.config(imp).Check(path, c.fset, files, newInfo())
		again[path] = tp
		return tp, nil
	}
	return imp
}

// reaches tells whether the module package from imports to, directly or
// through other module packages.
func (c *checker) reaches(from, to string, seen map[string]bool) bool {
	if seen[from] {
		return false
	}
	seen[from] = true
	p := c.mod[from]
	if p == nil {
		return false
	}
	for _, i := range p.Imports {
		if i == to || c.reaches(i, to, seen) {
			return true
		}
	}
	return false
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }
func (f importerFunc) ImportFrom(path, _ string, _ types.ImportMode) (*types.Package, error) {
	return f(path)
}

func (c *checker) config(imp types.Importer) *types.Config {
	return &types.Config{
		Importer:    imp,
		FakeImportC: true,
		Error: func(err error) {
			// FakeImportC leaves C's names untyped; those are not lost uses.
			if !strings.Contains(err.Error(), "C.") {
				c.errs = append(c.errs, err.Error())
			}
		},
	}
}

// check type-checks the non-test files of one of the module's packages.
func (c *checker) check(path string) (*types.Package, error) {
	if tp, ok := c.checked[path]; ok {
		if tp == nil {
			return nil, fmt.Errorf("import cycle through %s", path)
		}
		return tp, nil
	}
	c.checked[path] = nil
	p := c.mod[path]
	files, err := c.parse(p.Dir, p.GoFiles, p.CgoFiles)
	if err != nil {
		return nil, err
	}
	info := newInfo()
	tp, _ := c.config(c.importer(nil)).Check(path, c.fset, files, info)
	c.checked[path] = tp
	c.uses(p, false, info)
	return tp, nil
}

// checkTests type-checks a package's test files: those of the package with
// its own files, then its package_test files against that variant.
func (c *checker) checkTests(p *listed) error {
	if len(p.TestGoFiles) == 0 && len(p.XTestGoFiles) == 0 {
		return nil
	}
	files, err := c.parse(p.Dir, p.GoFiles, p.CgoFiles, p.TestGoFiles)
	if err != nil {
		return err
	}
	info := newInfo()
	variant, _ := c.config(c.importer(nil)).Check(p.ImportPath, c.fset, files, info)
	c.uses(p, true, info)
	if len(p.XTestGoFiles) == 0 {
		return nil
	}
	xfiles, err := c.parse(p.Dir, p.XTestGoFiles)
	if err != nil {
		return err
	}
	xinfo := newInfo()
	c.config(c.importer(variant)).Check(p.ImportPath+"_test", c.fset, xfiles, xinfo)
	c.uses(&listed{ImportPath: p.ImportPath + "_test"}, true, xinfo)
	return nil
}

// record adds the names one checked package declares and the ones it uses.
func record(c *checker, names map[string]*name, from *listed, test bool, info *types.Info) {
	use := func(obj types.Object) {
		if obj == nil || obj.Pkg() == nil || c.mod[obj.Pkg().Path()] == nil {
			return
		}
		key := obj.Pkg().Path() + "." + obj.Name()
		n := names[key]
		if n == nil {
			n = &name{pkg: obj.Pkg().Path(), id: obj.Name()}
			names[key] = n
		}
		if obj.Pkg().Path() == from.ImportPath {
			n.inside = n.inside || !test
			n.ownTests = n.ownTests || test
			return
		}
		cl := other
		if test || testSupport(from.ImportPath) {
			cl = tests
		}
		n.used = max(n.used, cl)
	}
	for _, obj := range info.Uses {
		use(owner(obj))
		if _, ok := obj.(*types.TypeName); !ok && obj != nil {
			reach(obj.Type(), use, map[types.Type]bool{})
		}
	}
	for _, sel := range info.Selections {
		use(namedOf(sel.Recv()))
		use(owner(sel.Obj()))
		reach(sel.Type(), use, map[types.Type]bool{})
	}
	if test || from.Name == "main" || testSupport(from.ImportPath) {
		return
	}
	tp := c.checked[from.ImportPath]
	for _, id := range tp.Scope().Names() {
		obj := tp.Scope().Lookup(id)
		if !obj.Exported() {
			continue
		}
		key := from.ImportPath + "." + id
		if names[key] == nil {
			names[key] = &name{pkg: from.ImportPath, id: id}
		}
		names[key].pos = c.fset.Position(obj.Pos()).String()
		names[key].obj = obj
	}
}

// owner is the exported package-level name obj is, or belongs to (the type
// of a method or field), or nil.
func owner(obj types.Object) types.Object {
	switch o := obj.(type) {
	case *types.Func:
		if sig, ok := o.Type().(*types.Signature); ok && sig.Recv() != nil {
			return namedOf(sig.Recv().Type())
		}
		o = o.Origin()
		obj = o
	case *types.Var:
		if o.IsField() {
			return nil // its struct is counted through the selection
		}
		obj = o.Origin()
	}
	if obj == nil || obj.Pkg() == nil || !obj.Exported() || obj.Parent() != obj.Pkg().Scope() {
		return nil
	}
	return obj
}

// reach calls use with each named type t is built of (through pointers,
// slices, maps, channels and signatures, not struct fields): a package
// that holds a value of type t, or calls a function of that type, relies
// on those types even where it never spells them.
func reach(t types.Type, use func(types.Object), seen map[types.Type]bool) {
	if t == nil || seen[t] {
		return
	}
	seen[t] = true
	switch t := t.(type) {
	case *types.Alias:
		reach(types.Unalias(t), use, seen)
	case *types.Named:
		use(namedOf(t))
		for i := range t.TypeArgs().Len() {
			reach(t.TypeArgs().At(i), use, seen)
		}
	case *types.Pointer:
		reach(t.Elem(), use, seen)
	case *types.Slice:
		reach(t.Elem(), use, seen)
	case *types.Array:
		reach(t.Elem(), use, seen)
	case *types.Chan:
		reach(t.Elem(), use, seen)
	case *types.Map:
		reach(t.Key(), use, seen)
		reach(t.Elem(), use, seen)
	case *types.Signature:
		for _, tuple := range []*types.Tuple{t.Params(), t.Results()} {
			for v := range tuple.Variables() {
				reach(v.Type(), use, seen)
			}
		}
	}
}

// namedOf is the type name of t, through a pointer, or nil.
func namedOf(t types.Type) types.Object {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	switch n := types.Unalias(t).(type) {
	case *types.Named:
		o := n.Origin().Obj()
		if o.Pkg() != nil && o.Exported() && o.Parent() == o.Pkg().Scope() {
			return o
		}
	}
	return nil
}

// widen gives a type the class of a used type whose shape holds it: the
// type of an exported field, or in the signature of an exported method, of
// a type another package uses. Such a type is part of what that package
// handles (the element of an answer's list, the options of a method it
// calls), even if it never spells it; unexporting it would leave an
// exported field or method of a used type with a type no one can name.
func widen(names map[string]*name) {
	for changed := true; changed; {
		changed = false
		for _, n := range names {
			tn, ok := n.obj.(*types.TypeName)
			if !ok || n.used == none || tn.IsAlias() {
				continue
			}
			shape(tn.Type(), func(obj types.Object) {
				if obj == nil {
					return
				}
				m := names[obj.Pkg().Path()+"."+obj.Name()]
				if m != nil && m.used < n.used {
					m.used, m.shape, changed = n.used, true, true
				}
			})
		}
	}
}

// shape calls use with the named types of t's exported fields and of its
// exported methods' signatures.
func shape(t types.Type, use func(types.Object)) {
	seen := map[types.Type]bool{}
	if n, ok := t.(*types.Named); ok {
		for m := range n.Methods() {
			if m.Exported() {
				reach(m.Type(), use, seen)
			}
		}
	}
	switch u := t.Underlying().(type) {
	case *types.Struct:
		for f := range u.Fields() {
			if f.Exported() {
				reach(f.Type(), use, seen)
			}
		}
	case *types.Interface:
		for m := range u.Methods() {
			if m.Exported() {
				reach(m.Type(), use, seen)
			}
		}
	}
}

// report prints the counts, and the names of one class when asked, and
// returns the share of names used by no other package, in percent.
func report(w io.Writer, names map[string]*name, list string) float64 {
	var all []*name
	count := map[class]int{}
	shaped := 0
	for _, n := range names {
		if n.pos == "" {
			continue // a main package's name, or one no platform declares
		}
		all = append(all, n)
		count[n.used]++
		if n.shape {
			shaped++
		}
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].pkg != all[j].pkg {
			return all[i].pkg < all[j].pkg
		}
		return all[i].id < all[j].id
	})
	total := len(all)
	pct := func(k int) float64 { return 100 * float64(k) / float64(max(total, 1)) }
	fmt.Fprintf(w, "exported package-level names: %d\n", total)
	fmt.Fprintf(w, "  used by another package:      %d\n", count[other])
	fmt.Fprintf(w, "  (of these two, only as part of a used type: %d)\n", shaped)
	fmt.Fprintf(w, "  used only by tests:           %d (%.1f%%)\n", count[tests], pct(count[tests]))
	fmt.Fprintf(w, "  used by no other package:     %d (%.1f%%)\n", count[none], pct(count[none]))
	for _, n := range all {
		if list == "all" || list == n.used.String() {
			how := n.used.String()
			if n.shape {
				how += "*"
			}
			fmt.Fprintf(w, "  %-6s %s.%s\t%s%s\n", how, strings.TrimPrefix(n.pkg, modulePath+"/"), n.id, relPos(n.pos), n.where())
		}
	}
	return pct(count[none])
}

const modulePath = "github.com/vzn/vx"

// testSupport says whether a package is code for tests only: the packages
// under tests/ (harnesses, helpers and the suites themselves).
func testSupport(path string) bool { return strings.HasPrefix(path, modulePath+"/tests/") }

func relPos(pos string) string {
	if wd, err := os.Getwd(); err == nil {
		if r, err := filepath.Rel(wd, pos); err == nil {
			return r
		}
	}
	return pos
}

// longLines lists file:line of each line over maxLine characters in the
// .go files git tracks.
func longLines() ([]string, error) {
	out, err := exec.Command("git", "ls-files", "-z", "*.go").Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-files: %w", err)
	}
	var long []string
	for _, f := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		if f == "" {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(make([]byte, 0, 1<<20), len(data)+1)
		for i := 1; sc.Scan(); i++ {
			if n := len([]rune(sc.Text())); n > maxLine {
				long = append(long, fmt.Sprintf("%s:%d (%d)", f, i, n))
			}
		}
	}
	return long, nil
}
