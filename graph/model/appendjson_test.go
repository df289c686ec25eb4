package model

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestAppendJSONMatchesEncodingJSON fills every field of each hand-encoded
// type with random values (strings with quotes, escapes, control
// characters, HTML, non-ASCII and invalid UTF-8; nil and non-nil pointers;
// nil, empty and full lists) and checks that AppendJSON writes exactly what
// encoding/json writes. It walks the fields by reflection, so a field added
// to a type without its AppendJSON fails here.
func TestAppendJSONMatchesEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		for _, v := range []JSONAppender{&User{}, &Member{}, &MemberList{}, &Space{}, &SpaceList{}, &LinkList{}, &ContentLocationList{}} {
			fill(rng, reflect.ValueOf(v).Elem(), 0)
			var want bytes.Buffer
			enc := json.NewEncoder(&want)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(v); err != nil {
				t.Fatal(err)
			}
			got := v.AppendJSON(nil)
			if !bytes.Equal(got, bytes.TrimSuffix(want.Bytes(), []byte("\n"))) {
				t.Fatalf("%T:\nAppendJSON    %s\nencoding/json %s", v, got, want.Bytes())
			}
		}
	}
}

var sampleStrings = []string{"", "plain-id_123", "2024-05-01T10:00:00.000Z", `quo"te`, `back\slash`, "tab\tnew\nline\r",
	"\x00\x1f\b\f", "<b>&amp;</b>", "héllo wörld", "emoji 🎉", "\u2028\u2029", "bad \xff\xfe utf8", "http://127.0.0.1:8080/v1/spaces/x"}

func fill(rng *rand.Rand, v reflect.Value, depth int) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(sampleStrings[rng.IntN(len(sampleStrings))])
	case reflect.Bool:
		v.SetBool(rng.IntN(2) == 0)
	case reflect.Int, reflect.Int64:
		v.SetInt(int64(rng.IntN(2_000_000)) - 1_000_000)
	case reflect.Float64:
		v.SetFloat(float64(rng.IntN(2_000_000))/7 - 100_000)
	case reflect.Interface: // JSON values held as any: a string, a number or nothing
		switch rng.IntN(3) {
		case 0:
			v.SetZero()
		case 1:
			v.Set(reflect.ValueOf(sampleStrings[rng.IntN(len(sampleStrings))]))
		default:
			v.Set(reflect.ValueOf(float64(rng.IntN(1000))))
		}
	case reflect.Map:
		if rng.IntN(2) == 0 || depth > 3 {
			v.SetZero()
			return
		}
		m := reflect.MakeMap(v.Type())
		for range rng.IntN(3) {
			k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
			fill(rng, k, depth+1)
			fill(rng, e, depth+1)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.Pointer:
		if rng.IntN(3) == 0 {
			v.SetZero()
			return
		}
		p := reflect.New(v.Type().Elem())
		fill(rng, p.Elem(), depth+1)
		v.Set(p)
	case reflect.Struct:
		for i := range v.NumField() {
			fill(rng, v.Field(i), depth+1)
		}
	case reflect.Slice:
		switch n := rng.IntN(4); {
		case n == 0 || depth > 3:
			v.SetZero()
		default:
			s := reflect.MakeSlice(v.Type(), n-1, n-1)
			for i := range s.Len() {
				fill(rng, s.Index(i), depth+1)
			}
			v.Set(s)
		}
	default:
		panic("fill: unhandled kind " + v.Kind().String())
	}
}

// TestLinkListAppendJSONMatchesEncodingJSON checks the shared encodings: a
// links page whose locations share the organization, space, version and
// pages writes what encoding/json writes.
func TestLinkListAppendJSONMatchesEncodingJSON(t *testing.T) {
	org := &Organization{Object: "organization", ID: "o1", Title: `Acme <"x">`}
	space := &Space{Object: "space", ID: "s1", Type: SpaceTypeDocument, Title: "Docs"}
	page := &RevisionPage{ID: "p1", Title: "Guide", Kind: "sheet", Type: "document", Pages: []*RevisionPage{}}
	rev := &VersionContext{Type: "revision", Revision: &Revision{Object: "revision", ID: "r1", Pages: []*RevisionPage{page}}}
	at := func() *ContentLocation {
		return &ContentLocation{Kind: "page", Organization: org, Space: space, VersionContext: rev, Page: page}
	}
	url := "https://example.com/a?b=<c>&d"
	list := &LinkList{Count: 3, Next: &Next{Page: "n"}, Stats: ContentReferencesStats{Total: 3, Broken: BrokenLinksTotals{Total: 1}},
		Items: []*ContentReferenceUsage{
			{Status: "ok", Relation: "reference", TargetReference: at(), LocationReferences: []*ContentLocation{at(), at()}},
			{Status: "broken", Relation: "reference", TargetReference: &ContentLocation{Kind: "url", URL: &url}, LocationReferences: []*ContentLocation{at()}},
			{Status: "ok", Relation: "reference", LocationReferences: []*ContentLocation{}},
		}}
	back := &ContentLocationList{Count: 2, Items: []*ContentLocation{at(), at()}}
	for _, v := range []JSONAppender{list, back} {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		if got := v.AppendJSON(nil); !bytes.Equal(got, bytes.TrimSuffix(want.Bytes(), []byte("\n"))) {
			t.Fatalf("%T:\nAppendJSON    %s\nencoding/json %s", v, got, want.Bytes())
		}
	}
}
