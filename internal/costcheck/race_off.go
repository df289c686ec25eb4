//go:build !race

package costcheck

const raceFactor = 1
