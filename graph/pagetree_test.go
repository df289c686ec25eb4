package graph

import (
	"bytes"
	"encoding/json"
	"testing"

	"docsapi/graph/model"
)

// FuzzPageTreeJSON: a page tree written for a plain selection is valid
// JSON holding each page's strings as they are, whatever they contain,
// and nil lists are null, not [].
func FuzzPageTreeJSON(f *testing.F) {
	for _, s := range []string{"Page", "quote \" back \\ slash", "\u2028\u2029 <&>", "\x00\x1f\x7f", "é 😀", "\xff invalid"} {
		f.Add(s, s+"/x")
	}
	f.Fuzz(func(t *testing.T, title, path string) {
		if len(title) > 1<<12 || len(path) > 1<<12 {
			return
		}
		child := &model.RevisionPage{ID: "c", Title: path, Kind: "link", Type: "link"}
		page := &model.RevisionPage{ID: "p", Title: title, Path: &path, Kind: "sheet", Type: "document", Pages: []*model.RevisionPage{child}}
		fields := []pageTreeField{pageField("t", "title", nil), pageField("path", "path", nil), pageField("kind", "type", nil),
			pageField("pages", "pages", []pageTreeField{pageField("id", "id", nil), pageField("title", "title", nil), pageField("pages", "pages", nil)})}
		var b bytes.Buffer
		pageTreeJSON{pages: []*model.RevisionPage{page}, fields: fields}.MarshalGQL(&b)
		var got []struct {
			T, Path, Kind string
			Pages         []struct {
				ID, Title string
				Pages     *[]any
			}
		}
		if err := json.Unmarshal(b.Bytes(), &got); err != nil {
			t.Fatalf("%q: %v", b.String(), err)
		}
		want := func(s string) string { // what a JSON decoder makes of s: invalid UTF-8 as U+FFFD
			v, _ := json.Marshal(s)
			var out string
			json.Unmarshal(v, &out)
			return out
		}
		if len(got) != 1 || got[0].T != want(title) || got[0].Path != want(path) || got[0].Kind != "DOCUMENT" ||
			len(got[0].Pages) != 1 || got[0].Pages[0].Title != want(path) || got[0].Pages[0].Pages != nil {
			t.Fatalf("%q / %q: %s", title, path, b.String())
		}
	})
}
