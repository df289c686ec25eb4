//go:build !race

package storage

// raceDetector: see race_on_test.go.
const raceDetector = false
