package rest

import (
	"testing"

	"docsapi/graph/model"
)

// TestLocatedAgreesWithJSON: a resource that names its own location
// (located) gives the same Location header as the JSON probe would.
func TestLocatedAgreesWithJSON(t *testing.T) {
	sp := &model.Space{ID: "s1", Urls: model.SpaceURLs{Location: "http://127.0.0.1/v1/spaces/s1", App: "http://127.0.0.1/s/s1"}}
	var _ located = sp
	got := locationOf(sp)
	want := locationOf(*sp) // a value is not located: through its JSON
	if _, ok := any(*sp).(located); ok {
		t.Fatal("a Space value should not be located")
	}
	if got == "" || got != want {
		t.Fatalf("located %q, via JSON %q", got, want)
	}
}
