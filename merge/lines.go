// Package merge is the three-way merge of change requests: line by line for
// page bodies (diff3) and page by page for the page tree and files.
//
// The line merge is diff3 as described by Khanna, Kuber and Pierce ("A
// Formal Investigation of Diff3"): both sides are diffed against the base
// (a Myers longest common subsequence of lines); lines matched in all three
// are stable, and each unstable chunk between them takes the side that
// changed it, or either side when both made the same change. Two different
// changes in one chunk (including changes to adjacent lines, as git does)
// are a conflict.
package merge

import "strings"

// maxEdits bounds the Myers search (edit distance between two bodies after
// their common prefix and suffix). Beyond it the middle is taken as wholly
// changed: a merge of it then needs one side to have left it alone.
const maxEdits = 4000

// Lines merges ours and theirs, two edits of base. ok is false when they
// changed the same lines differently.
func Lines(base, ours, theirs string) (merged string, ok bool) {
	switch {
	case ours == theirs || theirs == base:
		return ours, true
	case ours == base:
		return theirs, true
	}
	b, o, t := splitLines(base), splitLines(ours), splitLines(theirs)
	ids := lineIDs{}
	bi, oi, ti := ids.of(b), ids.of(o), ids.of(t)
	mo, mt := matches(bi, oi), matches(bi, ti)

	var out strings.Builder
	i, x, y := 0, 0, 0
	for i < len(b) || x < len(o) || y < len(t) {
		// Stable run: base lines matched at the current place of both sides.
		k := 0
		for i+k < len(b) && mo[i+k] == x+k && mt[i+k] == y+k {
			k++
		}
		if k > 0 {
			for _, l := range b[i : i+k] {
				out.WriteString(l)
			}
			i, x, y = i+k, x+k, y+k
			continue
		}
		// Unstable chunk up to the next base line both sides kept.
		ni, nx, ny := len(b), len(o), len(t)
		for j := i; j < len(b); j++ {
			if mo[j] >= 0 && mt[j] >= 0 {
				ni, nx, ny = j, mo[j], mt[j]
				break
			}
		}
		cb, co, ct := b[i:ni], o[x:nx], t[y:ny]
		switch {
		case equal(co, cb) || equal(co, ct):
			writeAll(&out, ct)
		case equal(ct, cb):
			writeAll(&out, co)
		default:
			return "", false
		}
		i, x, y = ni, nx, ny
	}
	return out.String(), true
}

func writeAll(b *strings.Builder, lines []string) {
	for _, l := range lines {
		b.WriteString(l)
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// splitLines cuts text after each newline, keeping the newlines, so that
// joining the lines gives the text back.
func splitLines(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

// lineIDs numbers distinct lines so that diffs compare integers.
type lineIDs map[string]int

func (m lineIDs) of(lines []string) []int {
	out := make([]int, len(lines))
	for i, l := range lines {
		id, ok := m[l]
		if !ok {
			id = len(m)
			m[l] = id
		}
		out[i] = id
	}
	return out
}

// matches maps each line of a to the line of b it is matched with in a
// longest common subsequence, or -1.
func matches(a, b []int) []int {
	m := make([]int, len(a))
	for i := range m {
		m[i] = -1
	}
	// Common prefix and suffix first: most edits leave most of a page alone.
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		m[pre] = pre
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		m[len(a)-1-suf] = len(b) - 1 - suf
		suf++
	}
	for _, p := range myers(a[pre:len(a)-suf], b[pre:len(b)-suf]) {
		m[pre+p[0]] = pre + p[1]
	}
	return m
}

// myers returns the matched index pairs of a shortest edit script from a
// to b (Myers' O(ND) algorithm, keeping only the band -d..d of each step),
// or none when the edit distance exceeds maxEdits.
func myers(a, b []int) [][2]int {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		return nil
	}
	limit := min(n+m, maxEdits)
	off := limit + 1
	v := make([]int, 2*limit+3)
	var trace [][]int // trace[d]: v before step d, for k in -d-1..d+1
	for d := 0; d <= limit; d++ {
		snap := make([]int, 2*d+3)
		copy(snap, v[off-d-1:off+d+2])
		trace = append(trace, snap)
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			v[off+k] = x
			if x >= n && y >= m {
				return backtrack(trace, n, m)
			}
		}
	}
	return nil
}

func backtrack(trace [][]int, x, y int) [][2]int {
	var pairs [][2]int
	for d := len(trace) - 1; d >= 0; d-- {
		v := trace[d]
		get := func(k int) int { return v[k+d+1] }
		k := x - y
		var prevK int
		if k == -d || (k != d && get(k-1) < get(k+1)) {
			prevK = k + 1
		} else {
			prevK = k - 1
		}
		prevX := get(prevK)
		prevY := prevX - prevK
		for x > prevX && y > prevY {
			pairs = append(pairs, [2]int{x - 1, y - 1})
			x, y = x-1, y-1
		}
		if d > 0 {
			x, y = prevX, prevY
		}
	}
	return pairs
}
