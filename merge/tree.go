package merge

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strings"

	"docsapi/storage"
)

// ConflictError lists what changed on both sides in ways that cannot be
// combined.
type ConflictError struct {
	Pages   []string // page ids
	Reasons []string
}

func (e *ConflictError) Error() string {
	return "conflicting changes: " + strings.Join(e.Reasons, "; ")
}

// node is a page with its place in one tree.
type node struct {
	page   *storage.TreePage
	parent string
}

type index struct {
	nodes    map[string]node
	children map[string][]string // parent id ("" top level) -> child ids in order
	order    []string            // pre-order
}

func indexOf(t *storage.Tree) index {
	ix := index{nodes: map[string]node{}, children: map[string][]string{}}
	t.Walk(func(p, parent *storage.TreePage) bool {
		pid := ""
		if parent != nil {
			pid = parent.ID
		}
		ix.nodes[p.ID] = node{page: p, parent: pid}
		ix.children[pid] = append(ix.children[pid], p.ID)
		ix.order = append(ix.order, p.ID)
		return true
	})
	return ix
}

// Trees merges ours (the main content) and theirs (a change request), two
// descendants of base. A page changed on one side only takes that side; a
// page changed on both sides merges field by field (title, slug, type and
// settings must not differ both ways; bodies merge line by line with
// Lines). Pages added on either side are kept, deleted pages go unless the
// other side changed them, moves are kept (two different moves of one page
// conflict), and sibling order follows the side that reordered. Files are
// merged by id the same way, and so are the revision's variables (by name)
// and reusable contents. Pages that keep a version of one side are
// shared with it (not rewritten). Bodies of pages changed on both sides
// must be loaded (storage loads the bodies of changed pages).
func Trees(base, ours, theirs *storage.Tree) (*storage.Tree, error) {
	b, o, t := indexOf(base), indexOf(ours), indexOf(theirs)
	conflicts := &ConflictError{}
	conflict := func(id, format string, args ...any) {
		conflicts.Pages = append(conflicts.Pages, id)
		conflicts.Reasons = append(conflicts.Reasons, fmt.Sprintf("page %s: ", id)+fmt.Sprintf(format, args...))
	}

	result := map[string]node{}
	ids := append([]string{}, o.order...)
	for _, id := range t.order {
		if _, ok := o.nodes[id]; !ok {
			ids = append(ids, id)
		}
	}
	for _, id := range ids {
		bn, inB := b.nodes[id]
		on, inO := o.nodes[id]
		tn, inT := t.nodes[id]
		switch {
		case !inB && inO && inT:
			if on.page.Version != tn.page.Version || on.parent != tn.parent {
				conflict(id, "added on both sides differently")
				continue
			}
			result[id] = node{page: copyPage(on.page), parent: on.parent}
		case !inB && inO:
			result[id] = node{page: copyPage(on.page), parent: on.parent}
		case !inB && inT:
			result[id] = node{page: copyPage(tn.page), parent: tn.parent}
		case !inO:
			if tn.page.Version != bn.page.Version {
				conflict(id, "deleted in the main content and changed in the change request")
			}
		case !inT:
			if on.page.Version != bn.page.Version {
				conflict(id, "changed in the main content and deleted in the change request")
			}
		default:
			p, err := mergePage(bn.page, on.page, tn.page)
			if err != "" {
				conflict(id, "%s", err)
				continue
			}
			parent, ok := pick(bn.parent, on.parent, tn.parent)
			if !ok {
				conflict(id, "moved to different places on both sides")
				continue
			}
			result[id] = node{page: p, parent: parent}
		}
	}
	for id, n := range result {
		if n.parent != "" {
			if _, ok := result[n.parent]; !ok {
				conflict(id, "its parent page was deleted on the other side")
			}
		}
	}
	files, fileConflicts := mergeFiles(base.Files, ours.Files, theirs.Files)
	conflicts.Reasons = append(conflicts.Reasons, fileConflicts...)
	// A revision's variables and reusable contents travel with it too.
	vars, varConflicts := mergeVariables(base.Variables, ours.Variables, theirs.Variables)
	conflicts.Reasons = append(conflicts.Reasons, varConflicts...)
	reusable, reusableConflicts := mergeReusable(base.ReusableContents, ours.ReusableContents, theirs.ReusableContents)
	conflicts.Reasons = append(conflicts.Reasons, reusableConflicts...)
	if len(conflicts.Reasons) > 0 {
		return nil, conflicts
	}

	out := &storage.Tree{Files: files, Variables: vars, ReusableContents: reusable}
	byParent := map[string][]string{}
	for id, n := range result {
		byParent[n.parent] = append(byParent[n.parent], id)
	}
	placed := 0
	var build func(parent string) []*storage.TreePage
	build = func(parent string) []*storage.TreePage {
		var list []*storage.TreePage
		for _, id := range siblingOrder(parent, result, byParent[parent], b, o, t) {
			p := result[id].page
			placed++
			p.Children = build(id)
			list = append(list, p)
		}
		return list
	}
	out.Pages = build("")
	if placed != len(result) {
		return nil, &ConflictError{Reasons: []string{"moves on both sides would put pages under themselves"}}
	}
	return out, nil
}

// pick merges one value changed on either side.
func pick[T comparable](base, ours, theirs T) (T, bool) {
	switch {
	case ours == base:
		return theirs, true
	case theirs == base || ours == theirs:
		return ours, true
	}
	return ours, false
}

func copyPage(p *storage.TreePage) *storage.TreePage {
	cp := *p
	cp.Children = nil
	return &cp
}

// mergePage merges a page present on all three sides; a non-empty reason
// is a conflict.
func mergePage(base, ours, theirs *storage.TreePage) (*storage.TreePage, string) {
	switch {
	case ours.Version == base.Version:
		return copyPage(theirs), ""
	case theirs.Version == base.Version, ours.Version == theirs.Version:
		return copyPage(ours), ""
	}
	out := copyPage(ours)
	var ok bool
	if out.Type, ok = pick(base.Type, ours.Type, theirs.Type); !ok {
		return nil, "type changed on both sides"
	}
	if out.Title, ok = pick(base.Title, ours.Title, theirs.Title); !ok {
		return nil, "title changed on both sides"
	}
	if out.Slug, ok = pick(base.Slug, ours.Slug, theirs.Slug); !ok {
		return nil, "slug changed on both sides"
	}
	bm, om, tm := metaKey(base.Meta), metaKey(ours.Meta), metaKey(theirs.Meta)
	switch m, ok := pick(bm, om, tm); {
	case !ok:
		return nil, "settings changed on both sides"
	case m == tm:
		out.Meta = theirs.Meta
	}
	if !base.BodyLoaded() || !ours.BodyLoaded() || !theirs.BodyLoaded() {
		return nil, "body not loaded" // storage loads changed bodies; never expected
	}
	body, ok := Lines(base.Markdown, ours.Markdown, theirs.Markdown)
	if !ok {
		return nil, "the same lines changed on both sides"
	}
	out.CreatedAt = base.CreatedAt
	out.SetBody(body)
	return out, ""
}

func metaKey(m storage.PageMeta) string {
	b, _ := json.Marshal(m)
	return string(b)
}

// siblingOrder orders the result's children of parent: the skeleton is the
// side that reordered the pages it shares with base (ours when neither or
// both did); pages missing from the skeleton go after the sibling they
// follow on their own side.
func siblingOrder(parent string, result map[string]node, children []string, b, o, t index) []string {
	keep := func(list []string) []string {
		var out []string
		for _, id := range list {
			if n, ok := result[id]; ok && n.parent == parent {
				out = append(out, id)
			}
		}
		return out
	}
	bl, ol, tl := keep(b.children[parent]), keep(o.children[parent]), keep(t.children[parent])
	skeleton, other := ol, tl
	if sameRelativeOrder(ol, bl) && !sameRelativeOrder(tl, bl) {
		skeleton, other = tl, ol
	}
	out := append([]string{}, skeleton...)
	in := map[string]bool{}
	for _, id := range out {
		in[id] = true
	}
	for i, id := range other {
		if in[id] {
			continue
		}
		at := 0 // after the nearest preceding sibling already placed
		for j := i - 1; j >= 0; j-- {
			if !in[other[j]] {
				continue
			}
			if k := indexIn(out, other[j]); k >= 0 {
				at = k + 1
				break
			}
		}
		out = append(out[:at], append([]string{id}, out[at:]...)...)
		in[id] = true
	}
	// Children that neither side lists under parent (moved on one side into
	// a parent listed by the other) go last, in a stable order.
	var rest []string
	for _, id := range children {
		if !in[id] {
			rest = append(rest, id)
		}
	}
	sort.Strings(rest)
	return append(out, rest...)
}

func indexIn(list []string, id string) int {
	for i, v := range list {
		if v == id {
			return i
		}
	}
	return -1
}

// sameRelativeOrder: the ids a and b share are in the same order in both.
func sameRelativeOrder(a, b []string) bool {
	inB := map[string]bool{}
	for _, id := range b {
		inB[id] = true
	}
	inA := map[string]bool{}
	var fa, fb []string
	for _, id := range a {
		inA[id] = true
		if inB[id] {
			fa = append(fa, id)
		}
	}
	for _, id := range b {
		if inA[id] {
			fb = append(fb, id)
		}
	}
	return equal(fa, fb)
}

// mergeFiles merges files by id: added on either side are kept, deleted
// ones go unless the other side replaced them.
func mergeFiles(base, ours, theirs []*storage.File) ([]*storage.File, []string) {
	key := func(f *storage.File) string { return f.Name + "\x00" + f.ContentType + "\x00" + f.Blob }
	return mergeKeyed("file", base, ours, theirs, func(f *storage.File) string { return f.ID },
		func(a, b *storage.File) bool { return key(a) == key(b) })
}

// variable is one of a revision's variables, for mergeKeyed.
type variable struct {
	name  string
	value any
}

// mergeVariables merges a revision's variables by name, like files.
func mergeVariables(base, ours, theirs map[string]any) (map[string]any, []string) {
	list := func(m map[string]any) []variable {
		out := make([]variable, 0, len(m))
		for _, k := range slices.Sorted(maps.Keys(m)) {
			out = append(out, variable{k, m[k]})
		}
		return out
	}
	merged, conflicts := mergeKeyed("variable", list(base), list(ours), list(theirs),
		func(v variable) string { return v.name }, func(a, b variable) bool { return reflect.DeepEqual(a.value, b.value) })
	if len(merged) == 0 {
		return nil, conflicts
	}
	out := make(map[string]any, len(merged))
	for _, v := range merged {
		out[v.name] = v.value
	}
	return out, conflicts
}

// mergeReusable merges a revision's reusable contents by id, like files.
func mergeReusable(base, ours, theirs []map[string]any) ([]map[string]any, []string) {
	id := func(m map[string]any) string { s, _ := m["id"].(string); return s }
	return mergeKeyed("reusable content", base, ours, theirs, id, func(a, b map[string]any) bool { return reflect.DeepEqual(a, b) })
}

// mergeKeyed merges items known by id (files, variables, reusable
// contents): added on either side are kept; one changed on one side takes
// that side, on both sides the same way is kept once, differently is a
// conflict; deleted ones go unless the other side changed them (a
// conflict). Ours' order first, then theirs' additions.
func mergeKeyed[T any](kind string, base, ours, theirs []T, id func(T) string, same func(a, b T) bool) ([]T, []string) {
	byID := func(items []T) map[string]T {
		m := make(map[string]T, len(items))
		for _, it := range items {
			m[id(it)] = it
		}
		return m
	}
	b, o, t := byID(base), byID(ours), byID(theirs)
	var out []T
	var conflicts []string
	consider := func(k string) {
		bi, inB := b[k]
		oi, inO := o[k]
		ti, inT := t[k]
		switch {
		case !inB && inO && inT && !same(oi, ti):
			conflicts = append(conflicts, kind+" "+k+": added on both sides differently")
		case !inB && inO:
			out = append(out, oi)
		case !inB:
			out = append(out, ti)
		case inO && inT:
			switch {
			case same(oi, bi):
				out = append(out, ti)
			case same(ti, bi) || same(oi, ti):
				out = append(out, oi)
			default:
				conflicts = append(conflicts, kind+" "+k+": changed on both sides")
			}
		case inO && !same(oi, bi), inT && !same(ti, bi):
			conflicts = append(conflicts, kind+" "+k+": changed on one side and deleted on the other")
		}
	}
	for _, it := range ours {
		consider(id(it))
	}
	for _, it := range theirs {
		if _, ok := o[id(it)]; !ok {
			consider(id(it))
		}
	}
	return out, conflicts
}
