//go:build race

package storage

// raceDetector: the tests run under -race (about ten times slower), and the
// longest model tests run fewer operations.
const raceDetector = true
