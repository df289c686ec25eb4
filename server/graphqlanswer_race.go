//go:build race

package server

// Under the race detector (make test) every GraphQL answer's data is
// checked to be valid JSON before it is written, as gqlgen's transport did.
func init() { checkAnswers = true }
