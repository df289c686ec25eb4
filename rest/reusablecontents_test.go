package rest_test

import (
	"strings"
	"testing"

	"docsapi/apitest"
)

// Reusable contents answer {id, title, document}; the document is their
// body rendered as a JSON document; both are readable at every content
// level (active revision, a given revision, a change request) and through
// GraphQL, with the refusals of other content reads.
func TestReusableContents(t *testing.T) {
	env := apitest.New(t)
	f := newCRFixture(t, env)
	base := f.base()
	reader := env.NewUser("reader@acme.test", env.Org, "read")
	_, foreign := env.NewOrg("Other", "admin@other.test")
	env.Must(201, "POST", base+"/content/template", env.Admin.Token, map[string]any{"id": "knowledge-base"})
	rev := env.Must(200, "GET", base+"/content", reader.Token, nil).JSON()
	rc := rev["reusableContents"].([]any)[0].(map[string]any)
	apitest.Keys(t, rc, "id", "title", "document")
	id, doc := rc["id"].(string), rc["document"].(string)
	if rc["title"] != "Team contacts" || len(doc) != 20 {
		t.Fatalf("reusable content %v", rc)
	}
	// The change request was opened before the template: its head has none.
	cr := env.Must(201, "POST", base+"/change-requests", env.Admin.Token, map[string]any{"subject": "Later"}).JSON()["id"].(string)
	env.Run(t, []apitest.Scenario{
		{Name: "active revision", Method: "GET", Path: base + "/content/reusable-contents/" + id, Token: reader.Token, Status: 200,
			Check: func(r apitest.Response) { sameJSON(t, "reusable content", rc, r.JSON()) }},
		{Name: "by revision", Method: "GET", Path: base + "/revisions/" + rev["id"].(string) + "/reusable-contents/" + id, Token: reader.Token, Status: 200, Contains: []string{`"document":"` + doc + `"`}},
		{Name: "in a change request opened after", Method: "GET", Path: base + "/change-requests/" + cr + "/content/reusable-contents/" + id, Token: reader.Token, Status: 200, Contains: []string{`"title":"Team contacts"`}},
		{Name: "not in the older change request", Method: "GET", Path: base + "/change-requests/" + f.cr + "/content/reusable-contents/" + id, Token: reader.Token, Status: 404},
		{Name: "unknown reusable content", Method: "GET", Path: base + "/content/reusable-contents/nope", Token: reader.Token, Status: 404},
		{Name: "bad flag", Method: "GET", Path: base + "/content/reusable-contents/" + id + "?metadata=maybe", Token: reader.Token, Status: 400, Contains: names("metadata")},
		{Name: "another organization", Method: "GET", Path: base + "/content/reusable-contents/" + id, Token: foreign.Token, Status: 404},
		{Name: "no token", Method: "GET", Path: base + "/content/reusable-contents/" + id, Status: 401},
		{Name: "the body as a document", Method: "GET", Path: base + "/documents/" + doc, Token: reader.Token, Status: 200, Check: func(r apitest.Response) {
			d := r.JSON()
			apitest.Keys(t, d, "object", "data", "nodes")
			for _, frag := range []string{`"object":"document"`, `"type":"list-unordered"`, `"type":"bold"`, `On-call`, `support@example.com`} {
				if !strings.Contains(string(r.Body), frag) {
					t.Errorf("document lacks %s: %s", frag, r.Body)
				}
			}
		}},
		{Name: "schema next", Method: "GET", Path: base + "/documents/" + doc + "?schema=next", Token: reader.Token, Status: 200},
		{Name: "unknown schema", Method: "GET", Path: base + "/documents/" + doc + "?schema=v9", Token: reader.Token, Status: 400, Contains: names("schema")},
		{Name: "unknown document", Method: "GET", Path: base + "/documents/nope", Token: reader.Token, Status: 404},
		{Name: "document of another organization", Method: "GET", Path: base + "/documents/" + doc, Token: foreign.Token, Status: 404},
	})
	t.Run("graphql parity", func(t *testing.T) {
		data := gqlData(t, env, reader.Token, `query($s: ID!, $id: ID!, $d: ID!) { reusableContent(spaceId: $s, reusableContentId: $id) spaceDocument(spaceId: $s, documentId: $d) }`,
			map[string]any{"s": f.space, "id": id, "d": doc})
		sameJSON(t, "reusable content", rc, data["reusableContent"])
		sameJSON(t, "document", env.Must(200, "GET", base+"/documents/"+doc, reader.Token, nil).JSON(), data["spaceDocument"])
		gqlRefusal(t, env, foreign.Token, `query($s: ID!, $d: ID!) { spaceDocument(spaceId: $s, documentId: $d) }`, map[string]any{"s": f.space, "d": doc}, "NOT_FOUND", 404)
	})
}
