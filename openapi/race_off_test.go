//go:build !race

package openapi

// slowdown scales the time bounds of tests (see race_on_test.go).
const slowdown = 1
