// Package positions numbers ordered lists with gaps, so that a move or an
// insert changes the position of what moved and not of its neighbours.
// Pages among their siblings (storage) and the items of a site's structure
// (graph) are ordered this way.
package positions

import (
	"cmp"
	"slices"
)

// Gapped gives the items of a list, in list order, strictly increasing
// positions, changing as few as it can. stored holds each item's current
// position (0 or less: none, for a new item or one that came from another
// list). The longest run of items whose stored positions already increase
// keeps them; every other item takes a position spread evenly between its
// kept neighbours (after the last kept one: step apart). When a gap is too
// small, the items around it are spread again with it: a window of w kept
// neighbours on each side (w = 1, 2, 4, ...), the first whose span gives
// its items at least step/2 each (Window); so an insert where the gap ran
// out changes some neighbours, not the whole list. Only when the window
// would reach the end of the list, a position would pass limit, or more
// than maxWindows windows are needed, is the whole list numbered again,
// step apart.
func Gapped(stored []int, step, limit int) []int {
	kept := keptIncreasing(stored)
	// Each window costs a pass over the list: past maxWindows of them (a
	// list crowded all over) it is numbered again at once.
	for range maxWindows {
		pos, bad := fillBetween(stored, kept, step, limit)
		if bad < 0 {
			return pos
		}
		if !widen(stored, kept, bad, step, limit) {
			break
		}
	}
	pos := make([]int, len(stored))
	for i := range pos {
		pos[i] = (i + 1) * step
	}
	return pos
}

// maxWindows bounds the windows one Gapped spreads.
const maxWindows = 64

// widen un-keeps the smallest window around the items not kept from i on
// whose span spreads them (Window); false when none does short of the end
// of the list.
func widen(stored []int, kept []bool, i, step, limit int) bool {
	n := len(stored)
	j := i
	for j < n && !kept[j] {
		j++
	}
	for w := 1; ; w *= 2 {
		a, b := max(i-w, 0), min(j+w, n)
		for a > 0 && !kept[a-1] {
			a--
		}
		for b < n && !kept[b] {
			b++
		}
		if b == n {
			return false
		}
		low := 0
		if a > 0 {
			low = stored[a-1]
		}
		if _, ok := Window(low, stored[b], b-a, step, limit); ok {
			for k := a; k < b; k++ {
				kept[k] = false
			}
			return true
		}
	}
}

// Window is the positions Gapped gives m items numbered again between the
// kept positions low (0: none, the front of the list) and next: spread
// evenly, at least step/2 apart (at least 1); false when they would be
// closer or pass limit.
func Window(low, next, m, step, limit int) ([]int, bool) {
	if m <= 0 || next > limit {
		return nil, false
	}
	gap := (next - low) / (m + 1)
	if gap < max(step/2, 1) {
		return nil, false
	}
	pos := make([]int, m)
	for k := range pos {
		pos[k] = low + (k+1)*gap
	}
	return pos, true
}

// keptIncreasing marks a longest strictly increasing subsequence of the
// positive positions (patience sorting with predecessor links, O(k log k)).
func keptIncreasing(pos []int) []bool {
	var tails []int // index in pos of the smallest tail of each length
	prev := make([]int, len(pos))
	for i, p := range pos {
		prev[i] = -1
		if p <= 0 {
			continue
		}
		n, _ := slices.BinarySearchFunc(tails, p, func(j, p int) int { return cmp.Compare(pos[j], p) })
		if n > 0 {
			prev[i] = tails[n-1]
		}
		if n == len(tails) {
			tails = append(tails, i)
		} else {
			tails[n] = i
		}
	}
	kept := make([]bool, len(pos))
	if len(tails) > 0 {
		for i := tails[len(tails)-1]; i >= 0; i = prev[i] {
			kept[i] = true
		}
	}
	return kept
}

// fillBetween gives every item not kept a position between the kept ones
// around it; else the index of the first item not kept whose gap cannot
// hold it, or whose position would pass limit (-1: none).
func fillBetween(old []int, kept []bool, step, limit int) ([]int, int) {
	pos := make([]int, len(old))
	low := 0
	for i := 0; i < len(old); {
		if kept[i] {
			pos[i], low = old[i], old[i]
			i++
			continue
		}
		j := i
		for j < len(old) && !kept[j] {
			j++
		}
		high := low + (j-i+1)*step
		if j < len(old) {
			high = old[j]
		}
		if high > limit {
			return nil, i
		}
		gap := (high - low) / (j - i + 1)
		if gap < 1 {
			return nil, i
		}
		for k := i; k < j; k++ {
			pos[k] = low + (k-i+1)*gap
		}
		low = pos[j-1]
		i = j
	}
	return pos, -1
}

// Between is the position Gapped gives one new item between the kept
// positions low and next (0 or less: no neighbour on that side), without
// reading the rest of the list; false when the gap cannot hold it or limit
// would be passed (its neighbours must then be spread again: Window, as
// Gapped widens it, or the whole list numbered again).
func Between(low, next, step, limit int) (int, bool) {
	var stored []int
	var kept []bool
	if low > 0 {
		stored, kept = append(stored, low), append(kept, true)
	}
	at := len(stored)
	stored, kept = append(stored, 0), append(kept, false)
	if next > 0 {
		stored, kept = append(stored, next), append(kept, true)
	}
	pos, bad := fillBetween(stored, kept, step, limit)
	if bad >= 0 {
		return 0, false
	}
	return pos[at], true
}
