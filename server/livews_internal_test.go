package server

import (
	"encoding/json"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// gqlgenMessage is gqlgen's graphql-transport-ws message as its transport
// encodes it (graphqltransportwsMessage, its fields in their order).
type gqlgenMessage struct {
	Payload json.RawMessage `json:"payload,omitempty"`
	ID      string          `json:"id,omitempty"`
	Type    string          `json:"type"`
}

// TestNextFrameAsGqlgen: a next message built around a payload's bytes
// (nextFrame, also with a shared payload) is byte for byte what gqlgen's
// transport writes for the same response (json.Marshal of the response,
// then of the message): ids and data needing escapes included.
func TestNextFrameAsGqlgen(t *testing.T) {
	hasNext := false
	for _, tc := range []struct {
		id   string
		resp *graphql.Response
	}{
		{"1", &graphql.Response{Data: json.RawMessage(`{"commentUpdated":{"id":"a","body":{"markdown":"x"}}}`)}},
		{`we"ird<&>\id é`, &graphql.Response{Data: json.RawMessage(`{"a":"<b>&amp;</b> \u2028 é"}`)}},
		{"e", &graphql.Response{Errors: gqlerror.List{{Message: "no <access>", Extensions: map[string]any{"code": "FORBIDDEN", "status": 403}}}, Data: json.RawMessage(`null`)}},
		{"x", &graphql.Response{Data: json.RawMessage(`{ "spaced" : [1, 2] }`), Extensions: map[string]any{"cost": map[string]any{"requested": 3}}, HasNext: &hasNext}},
	} {
		payload, err := json.Marshal(tc.resp)
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(gqlgenMessage{Payload: payload, ID: tc.id, Type: "next"})
		if err != nil {
			t.Fatal(err)
		}
		if got := nextFrame(tc.id, payload); string(got) != string(want) {
			t.Errorf("nextFrame\n%s\ngqlgen\n%s", got, want)
		}
		if !json.Valid(want) {
			t.Errorf("invalid JSON %s", want)
		}
	}
}

// FuzzNextFrame: for any subscription id (a client's string) and any
// answer, the frame is valid JSON and byte for byte gqlgen's.
func FuzzNextFrame(f *testing.F) {
	f.Add("1", `{"a":"b"}`)
	f.Add("we\"ird\u2028<id>", `{"x":[1,2,{"y":null}],"z":"\u00e9<&>"}`)
	f.Add("\xff\xfe", `"\ud800"`)
	f.Fuzz(func(t *testing.T, id, data string) {
		if !json.Valid([]byte(data)) {
			return
		}
		payload, err := json.Marshal(&graphql.Response{Data: json.RawMessage(data)})
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(gqlgenMessage{Payload: payload, ID: id, Type: "next"})
		if err != nil {
			t.Fatal(err)
		}
		got := nextFrame(id, payload)
		if string(got) != string(want) || !json.Valid(got) {
			t.Fatalf("nextFrame\n%q\ngqlgen\n%q", got, want)
		}
	})
}
