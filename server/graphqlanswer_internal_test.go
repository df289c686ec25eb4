package server

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// writeAnswer writes what gqlgen's transport wrote (json.Marshal of the
// response), for every field of a response and data needing escapes.
func TestWriteAnswerAsJSONMarshal(t *testing.T) {
	yes := true
	errs := gqlerror.List{{Message: "no <such> & space", Path: ast.Path{ast.PathName("space")}, Extensions: map[string]any{"code": "NOT_FOUND", "data": nil}}}
	for _, resp := range []*graphql.Response{
		nil,
		{},
		{Data: json.RawMessage(`{"space":{"id":"s1","title":"Docs"}}`)},
		{Data: json.RawMessage(`{"a":"<b>&amp;</b>","c":"line\u2028sep\u2029x","é":"\u00e9 ok","n":[1,2.5,-3e7,true,false,null]}`)},
		{Data: json.RawMessage("{\"a\":\"\xe2\x80\xa8 and \xe2\x80\xa9 and \xe2\x80\xa7 and \xe2\x82\xac\"}")},
		{Data: json.RawMessage("{ \"a\" : [ 1 ,\t{\"b\\\\\":\"x y\\\" z\"} ] ,\"doc\":{\"k\":\"v\"}\n\r\n}\n")},
		{Errors: errs},
		{Errors: errs, Data: json.RawMessage(`{"space":null}`), Extensions: map[string]any{"cost": map[string]any{"requested": 3, "limit": nil}}},
		{Data: json.RawMessage(`{"x":1}`), Label: "l", Path: ast.Path{ast.PathName("a"), ast.PathIndex(2)}, HasNext: &yes, Extensions: map[string]any{"b": 1, "a": "<"}},
	} {
		want, err := json.Marshal(resp)
		if resp == nil {
			want, err = json.Marshal(&graphql.Response{})
		}
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		writeAnswer(&got, resp)
		if !bytes.Equal(got.Bytes(), want) {
			t.Errorf("writeAnswer:\n got %s\nwant %s", got.Bytes(), want)
		}
	}
}

// Broken data is refused where answers are checked (under -race), as
// gqlgen's transport refused it.
func TestWriteAnswerChecksDataWhenAsked(t *testing.T) {
	was := checkAnswers
	checkAnswers = true
	defer func() { checkAnswers = was }()
	defer func() {
		if recover() == nil {
			t.Error("invalid data written")
		}
	}()
	writeAnswer(&bytes.Buffer{}, &graphql.Response{Data: json.RawMessage(`{"a":`)})
}

// For any valid JSON (what the executor writes), writeCompact writes what
// json.Marshal writes for it as a json.RawMessage.
func FuzzWriteCompact(f *testing.F) {
	for _, s := range []string{`{"a":"<b>&</b>"}`, "{ \"a\" : [ 1 ,\t{\"b\\\\\":\"x y\\\" z\"} ] }\n", "[\"\xe2\x80\xa8\xe2\x80\xa9\xe2\x80\xa7\"]", `"\u003c"`, `null`, `{"é":"\"<"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 || !json.Valid(data) {
			return
		}
		want, err := json.Marshal(json.RawMessage(data))
		if err != nil {
			t.Skip()
		}
		var got bytes.Buffer
		writeCompact(&got, data)
		if !bytes.Equal(got.Bytes(), want) {
			t.Errorf("writeCompact(%q) = %q, want %q", data, got.Bytes(), want)
		}
	})
}
