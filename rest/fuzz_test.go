package rest_test

import (
	"net/url"
	"testing"
)

// Native fuzz targets over the REST layer: each runs one server on loopback
// (per fuzzing process) and sends the input where outside input enters.
// Every answer must be below 500 and every refusal the API's error body.
// Seeds are in testdata/fuzz/<target>; `make fuzz` runs each for a while.

// bodyOps are the operations that take a JSON body, in a fixed order.
func bodyOps(fx *fuzzFixture) []fuzzOp {
	var out []fuzzOp
	for _, o := range fx.ops {
		if o.Body != nil {
			out = append(out, o)
		}
	}
	return out
}

// FuzzRESTBodies: any bytes as the JSON body of any operation taking one
// (op picks the operation), against real resources of the caller's
// organization.
func FuzzRESTBodies(f *testing.F) {
	fx := newFuzzFixture(f)
	ops := bodyOps(fx)
	f.Fuzz(func(t *testing.T, op uint16, body []byte) {
		o := ops[int(op)%len(ops)]
		status, answer := fx.send(t, o.Method, fx.path(o), body)
		checkAnswer(t, o.Method+" "+o.Path, status, answer)
	})
}

// pagedOps are the list operations (those taking page).
func pagedOps(fx *fuzzFixture) []fuzzOp {
	var out []fuzzOp
	for _, o := range fx.ops {
		if o.Paged && o.Method == "GET" {
			out = append(out, o)
		}
	}
	return out
}

// FuzzPageCursors: any page token and limit on any list.
func FuzzPageCursors(f *testing.F) {
	fx := newFuzzFixture(f)
	ops := pagedOps(fx)
	f.Fuzz(func(t *testing.T, op uint16, page, limit string) {
		o := ops[int(op)%len(ops)]
		status, answer := fx.send(t, "GET", fx.path(o)+query("page", page, "limit", limit), nil)
		checkAnswer(t, "GET "+o.Path, status, answer)
	})
}

// FuzzVisitorToken: any X-Visitor-Token on a published visitor-auth site.
func FuzzVisitorToken(f *testing.F) {
	fx := newFuzzFixture(f)
	published := "/v1/orgs/" + fx.ids["organizationId"] + "/sites/" + fx.ids["siteId"] + "/published"
	f.Fuzz(func(t *testing.T, token string) {
		status, answer := fx.send(t, "GET", published, nil, "X-Visitor-Token", token)
		checkAnswer(t, "visitor token", status, answer)
		if status == 200 {
			t.Fatalf("a fuzzed visitor token was accepted: %q", token)
		}
	})
}

// FuzzRenderRequest: any request parameter of an integration render.
func FuzzRenderRequest(f *testing.F) {
	fx := newFuzzFixture(f)
	f.Fuzz(func(t *testing.T, request string) {
		status, answer := fx.send(t, "GET", "/v1/integrations/chat/render?request="+url.QueryEscape(request), nil)
		checkAnswer(t, "render", status, answer)
	})
}

// FuzzConditionalHeaders: any If-Match / If-None-Match on a resource and
// any Idempotency-Key on a creation.
func FuzzConditionalHeaders(f *testing.F) {
	fx := newFuzzFixture(f)
	space := "/v1/spaces/" + fx.ids["spaceId"]
	teams := "/v1/orgs/" + fx.ids["organizationId"] + "/teams"
	f.Fuzz(func(t *testing.T, ifMatch, ifNoneMatch, key string) {
		status, answer := fx.send(t, "GET", space, nil, "If-None-Match", ifNoneMatch)
		if status != 304 {
			checkAnswer(t, "If-None-Match", status, answer)
		}
		status, answer = fx.send(t, "PATCH", space, []byte(`{"title":"Guide"}`), "If-Match", ifMatch)
		checkAnswer(t, "If-Match", status, answer)
		status, answer = fx.send(t, "PUT", teams, []byte(`{"title":"Fuzz"}`), "Idempotency-Key", key)
		checkAnswer(t, "Idempotency-Key", status, answer)
	})
}
