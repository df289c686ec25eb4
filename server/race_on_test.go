//go:build race

package server_test

// slowdown scales the time bounds of the tests: under -race (about ten
// times slower, more under a loaded machine) a bound checks only that
// nothing runs away.
const slowdown = 10
