//go:build !race

package server_test

// slowdown: see race_on_test.go.
const slowdown = 1
