package main

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"docsapi/imagecheck/imagechecktest"
)

// Hostile renders: PDFs of change requests with decompression-bomb images,
// OpenAPI specs nested or referenced thousands of levels deep, and computed
// pages of specs whose Markdown is larger than a page may be.
func init() {
	hostileCases = append(hostileCases,
		pdfBombCase("PDF with a 15000x15000 one-bit PNG (27 KB) answers with a placeholder", 15000, 15000),
		pdfBombCase("PDF with a 65535x65535 one-bit PNG answers with a placeholder", 65535, 65535),
		hostileCase{
			name: "the same PDF fetched again is answered from the cache",
			request: func(s *hostileServer) *http.Request {
				for range 2 {
					http.Get(s.Values["pdf 15000x15000"])
				}
				req, _ := http.NewRequest("GET", s.Values["pdf 15000x15000"], nil)
				return req
			},
			status: 200,
		},
	)
	for _, n := range []int{3000, 30000} {
		hostileCases = append(hostileCases,
			specCase(fmt.Sprintf("OpenAPI spec of %d nested object schemas", n), fmt.Sprintf("nested-%d", n), nestedSchemas(n)),
			specCase(fmt.Sprintf("OpenAPI spec of a chain of %d $refs", n), fmt.Sprintf("chain-%d", n), refChain(n)))
	}
	for _, n := range []int{1400, 14000} {
		hostileCases = append(hostileCases, computedCase(n))
	}
}

// pdfBombCase uploads a bomb PNG of w x h into a change request, refers to
// it from a page, and fetches the change request's signed PDF link.
func pdfBombCase(name string, w, h int) hostileCase {
	key := fmt.Sprintf("pdf %dx%d", w, h)
	return hostileCase{
		name: name,
		setup: func(t *testing.T, s *hostileServer) {
			// A space of its own: the PDF holds every page of the space, and
			// the shared one holds other cases' largest pages.
			space := s.must(t, 201, "POST", "/v1/orgs/"+s.Org+"/spaces", s.Admin, map[string]any{"title": key})["id"].(string)
			cr := s.must(t, 201, "POST", "/v1/spaces/"+space+"/change-requests", s.Admin, map[string]any{"subject": key})["id"].(string)
			target := map[string]any{"space": space, "changeRequest": cr}
			hostileGraphQL(t, s, `mutation($t: ContentTarget!, $d: String!) { uploadFile(target: $t, input: {name: "bomb.png", data: $d}) { file { id } } }`,
				map[string]any{"t": target, "d": base64.StdEncoding.EncodeToString(imagechecktest.BombPNG(w, h))})
			hostileGraphQL(t, s, `mutation($t: ContentTarget!) { createPage(target: $t, input: {title: "Bomb", markdown: "Before.\n\n![bomb](bomb.png)\n\nAfter.\n"}) { page { id } } }`,
				map[string]any{"t": target})
			link := s.must(t, 200, "GET", "/v1/spaces/"+space+"/change-requests/"+cr+"/pdf", s.Admin, nil)["url"].(string)
			s.Values[key] = s.url + link[strings.Index(link, "/pdf/"):]
		},
		request: func(s *hostileServer) *http.Request {
			req, _ := http.NewRequest("GET", s.Values[key], nil)
			return req
		},
		status: 200,
	}
}

// specCase creates a spec from text; the case is its processing: the
// request is sent once the processor finished it (or after a second,
// when it is refused by the check below), and asks for the spec's state.
func specCase(name, slug, doc string) hostileCase {
	return hostileCase{
		name: name + " is refused by processing within 1 s",
		request: func(s *hostileServer) *http.Request {
			// Not timed by the table: the create, then the processing.
			start := time.Now()
			status, _, _, _ := s.send("POST", "/v1/orgs/"+s.Org+"/openapi", s.Admin, map[string]any{"slug": slug, "source": map[string]any{"text": doc}})
			for status == 201 && time.Since(start) < hostileTime {
				_, spec, _, _ := s.send("GET", "/v1/orgs/"+s.Org+"/openapi/"+slug, s.Admin, nil)
				if spec["processingState"] == "complete" && spec["lastProcessErrorCode"] == "PARSE_ERROR" {
					return s.request("GET", "/v1/orgs/"+s.Org+"/openapi/"+slug, s.Admin, "", nil)
				}
				time.Sleep(20 * time.Millisecond)
			}
			// Created but not refused within the bound: a path that answers
			// 404 names the failure.
			return s.request("GET", "/v1/orgs/"+s.Org+"/openapi/"+slug+"-not-refused-within-1s", s.Admin, "", nil)
		},
		status: 200,
	}
}

// computedCase reads, as a document, a computed page of a spec of n
// operations (n = 14,000: 7 MB, 6.5 MB of Markdown in full). The setup
// waits for the spec's processing and makes the first read (which renders
// and caches the page, capped at the page size); the case is a later read.
func computedCase(n int) hostileCase {
	slug := fmt.Sprintf("ops-%d", n)
	return hostileCase{
		name: fmt.Sprintf("computed page of a spec of %d operations, read as a document", n),
		setup: func(t *testing.T, s *hostileServer) {
			s.must(t, 201, "POST", "/v1/orgs/"+s.Org+"/openapi", s.Admin, map[string]any{"slug": slug, "source": map[string]any{"text": manyOperations(n)}})
			deadline := time.Now().Add(time.Minute)
			for {
				spec := s.must(t, 200, "GET", "/v1/orgs/"+s.Org+"/openapi/"+slug, s.Admin, nil)
				if spec["processingState"] == "complete" {
					if spec["lastVersion"] == nil {
						t.Fatalf("the spec of %d operations was refused: %v", n, spec["lastProcessErrorMessage"])
					}
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the spec of %d operations is not processed after a minute", n)
				}
				time.Sleep(100 * time.Millisecond)
			}
			page := hostileGraphQL(t, s, `mutation($t: ContentTarget!, $c: JSONObject!) { createPage(target: $t, input: {title: "API", type: COMPUTED, computed: $c}) { page { id } } }`,
				map[string]any{"t": map[string]any{"space": s.Space}, "c": map[string]any{"type": "builtin:openapi",
					"dependencies": map[string]any{"spec": map[string]any{"ref": map[string]any{"kind": "openapi", "spec": slug}}}}})
			id := page["createPage"].(map[string]any)["page"].(map[string]any)["id"].(string)
			s.Values[slug] = id
			start := time.Now()
			s.must(t, 200, "GET", "/v1/spaces/"+s.Space+"/content/page/"+id, s.Admin, nil)
			t.Logf("first read of the computed page of %d operations: %v", n, time.Since(start))
		},
		request: func(s *hostileServer) *http.Request {
			return s.request("GET", "/v1/spaces/"+s.Space+"/content/page/"+s.Values[slug]+"?format=document", s.Reader, "", nil)
		},
		status: 200,
	}
}

// hostileGraphQL runs a GraphQL operation as the admin and returns its data.
func hostileGraphQL(t *testing.T, s *hostileServer, query string, vars map[string]any) map[string]any {
	t.Helper()
	status, out := s.call(t, "POST", "/graphql", s.Admin, map[string]any{"query": query, "variables": vars})
	if status != 200 || out["errors"] != nil {
		t.Fatalf("GraphQL %d: %v", status, out["errors"])
	}
	data, _ := out["data"].(map[string]any)
	return data
}

// nestedSchemas is a spec of one component schema nesting n object
// schemas inline.
func nestedSchemas(n int) string {
	var b strings.Builder
	b.WriteString(`{"openapi":"3.0.3","info":{"title":"nested","version":"1"},"paths":{},"components":{"schemas":{"S":`)
	for range n {
		b.WriteString(`{"type":"object","properties":{"a":`)
	}
	b.WriteString(`{"type":"string"}` + strings.Repeat(`}}`, n) + `}}}`)
	return b.String()
}

// refChain is a spec of n component schemas, each referring to the next.
func refChain(n int) string {
	var b strings.Builder
	b.WriteString(`{"openapi":"3.0.3","info":{"title":"chain","version":"1"},"paths":{},"components":{"schemas":{`)
	for i := range n {
		fmt.Fprintf(&b, `"S%d":{"type":"object","properties":{"a":{"$ref":"#/components/schemas/S%d"}}},`, i, i+1)
	}
	fmt.Fprintf(&b, `"S%d":{"type":"string"}}}}`, n)
	return b.String()
}

// manyOperations is a spec of n operations of about 500 bytes each.
func manyOperations(n int) string {
	var b strings.Builder
	b.WriteString(`{"openapi":"3.0.3","info":{"title":"many","version":"1"},"paths":{`)
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"/r%d":{"get":{"operationId":"get%d","description":"%s","responses":{"200":{"description":"OK"}}}}`, i, i, strings.Repeat("words ", 80))
	}
	b.WriteString(`}}`)
	return b.String()
}
