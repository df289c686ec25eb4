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
// small, or a position would pass limit, the whole list is numbered again,
// step apart.
func Gapped(stored []int, step, limit int) []int {
	if pos, ok := fillBetween(stored, keptIncreasing(stored), step, limit); ok {
		return pos
	}
	pos := make([]int, len(stored))
	for i := range pos {
		pos[i] = (i + 1) * step
	}
	return pos
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
// around it; false when a gap cannot hold them or limit would be passed.
func fillBetween(old []int, kept []bool, step, limit int) ([]int, bool) {
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
			return nil, false
		}
		gap := (high - low) / (j - i + 1)
		if gap < 1 {
			return nil, false
		}
		for k := i; k < j; k++ {
			pos[k] = low + (k-i+1)*gap
		}
		low = pos[j-1]
		i = j
	}
	return pos, true
}

// Between is the position Gapped gives one new item between the kept
// positions low and next (0 or less: no neighbour on that side), without
// reading the rest of the list; false when the gap cannot hold it or limit
// would be passed (the list must then be numbered again).
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
	pos, ok := fillBetween(stored, kept, step, limit)
	if !ok {
		return 0, false
	}
	return pos[at], true
}
