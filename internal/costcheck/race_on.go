//go:build race

package costcheck

// raceFactor: the race detector slows code down several times.
const raceFactor = 10
