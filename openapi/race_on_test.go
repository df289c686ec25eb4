//go:build race

package openapi

// slowdown scales the time bounds of tests: the race detector makes
// parsing several times slower.
const slowdown = 10
