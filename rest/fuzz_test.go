package rest_test

import (
	"hash/fnv"
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

// pick is the operation named op ("POST /v1/orgs/{organizationId}/sites"),
// or for any other text one chosen by its hash: seeds name operations
// stably while routes come and go, and mutated names still reach them all.
func pick(ops []fuzzOp, op string) fuzzOp {
	for _, o := range ops {
		if o.Method+" "+o.Path == op {
			return o
		}
	}
	h := fnv.New32a()
	h.Write([]byte(op))
	return ops[int(h.Sum32()%uint32(len(ops)))]
}

// FuzzRESTBodies: any bytes as the JSON body of any operation taking one
// (op picks the operation), against real resources of the caller's
// organization. The organization already has 100 sites titled "Docs":
// the seed creating one more reproduces the finding that generated
// basenames stopped at 100 suffixes (a 500).
func FuzzRESTBodies(f *testing.F) {
	fx := newFuzzFixture(f)
	for range 100 {
		fx.env.Must(201, "POST", "/v1/orgs/"+fx.ids["organizationId"]+"/sites", fx.env.Admin.Token, map[string]any{"title": "Docs"})
	}
	ops := bodyOps(fx)
	f.Fuzz(func(t *testing.T, op string, body []byte) {
		o := pick(ops, op)
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
	f.Fuzz(func(t *testing.T, op, page, limit string) {
		o := pick(ops, op)
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
