package main

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Hostile GraphQL documents: each shape the probe sent, and the
// same at ten times its size. Documents within the body limit get a 422
// from the document bounds before gqlgen parses or validates them; those
// over it a 413.
func init() {
	nestedSchema := `__schema{types{name fields{name args{name type{name ofType{name fields{name type{name ofType{name kind}}}}}}}}}`
	for _, scale := range []int{1, 10} {
		size := func(n int) int { return n * scale }
		x := ""
		if scale > 1 {
			x = " (x" + strconv.Itoa(scale) + ")"
		}
		aliases := func() string { return "{" + repeatNumbered(size(1000), "a%d:"+nestedSchema) + "}" }
		hostileCases = append(hostileCases,
			gqlCase("a million nested [ in an argument"+x, 2*size(1_000_000), func() string {
				return "{__typename(a:" + strings.Repeat("[", size(1_000_000)) + strings.Repeat("]", size(1_000_000)) + ")}"
			}),
			gqlCase("a million nested selections"+x, 3*size(1_000_000), func() string {
				return strings.Repeat("{a", size(1_000_000)) + strings.Repeat("}", size(1_000_000))
			}),
			gqlCase("half a million nested selections"+x, 3*size(500_000), func() string {
				return strings.Repeat("{a", size(500_000)) + strings.Repeat("}", size(500_000))
			}),
			gqlCase("1,000 aliases of a nested __schema"+x, 120*size(1000), aliases),
			hostileCase{
				name: "GraphQL: 1,000 aliases of a nested __schema, read-only token" + x,
				request: func(s *hostileServer) *http.Request {
					body, _ := json.Marshal(map[string]any{"query": aliases()})
					return s.request("POST", "/graphql", s.Reader, "application/json", body)
				},
				status: http.StatusUnprocessableEntity,
			},
			gqlCase("a fragment doubling 40 times"+x, 0, func() string { return fragmentDoubling(size(40)) }),
			gqlCase("7,000 spreads of unknown fragments"+x, 7*size(7000), func() string { return "{__typename " + repeatNumbered(size(7000), "...X%d") + "}" }),
			gqlCase("500 one-field fragments spread together"+x, 30*size(500), func() string {
				return "{" + repeatNumbered(size(500), "...A%d") + "}\n" + repeatNumbered(size(500), "fragment A%d on Query {f%d}")
			}),
			gqlCase("800,000 unknown fields"+x, 8*size(800_000), func() string { return "{" + repeatNumbered(size(800_000), "f%d") + "}" }),
		)
		for _, n := range []int{2000, 4000, 8000, 900_000} {
			hostileCases = append(hostileCases, gqlCase("__typename "+strconv.Itoa(n)+" times"+x, 11*size(n), func() string {
				return "{" + strings.Repeat("__typename ", size(n)) + "}"
			}))
		}
		batch := "[" + strings.TrimSuffix(strings.Repeat(`{"query":"{__typename}"},`, size(2)), ",") + "]"
		hostileCases = append(hostileCases,
			rawGraphQLCase("a batch of "+strconv.Itoa(size(2))+" operations", "application/json", batch, http.StatusBadRequest),
			rawGraphQLCase("malformed JSON body"+x, "application/json", `{"query":"`+strings.Repeat("{", size(10))+`"`, http.StatusBadRequest),
			rawGraphQLCase("text/plain body"+x, "text/plain", `{"query":"{`+strings.Repeat("__typename ", size(1))+`}"}`, http.StatusUnsupportedMediaType),
			hostileCase{
				name: "GraphQL: a mutation over GET" + x,
				request: func(s *hostileServer) *http.Request {
					q := "mutation{" + repeatNumbered(size(1), `s%d: createSpace(organizationId:"`+s.Org+`",input:{title:"t"}){id}`) + "}"
					return s.request("GET", "/graphql?query="+url.QueryEscape(q), s.Admin, "", nil)
				},
			},
		)
	}
}

// gqlCase is a POST as the admin of the document build makes (built when
// sent: the largest are 100 MB), of about bytes bytes: over the body limit
// it gets a 413, else a 422 from the document bounds.
func gqlCase(name string, bytes int, build func() string) hostileCase {
	status := http.StatusUnprocessableEntity
	if bytes > 10<<20 {
		status = http.StatusRequestEntityTooLarge
	}
	return hostileCase{name: "GraphQL: " + name, request: func(s *hostileServer) *http.Request { return s.graphql(build()) }, status: status}
}

// rawGraphQLCase is a POST of body as contentType to /graphql as the admin.
func rawGraphQLCase(name, contentType, body string, status int) hostileCase {
	return hostileCase{name: "GraphQL: " + name, status: status, request: func(s *hostileServer) *http.Request {
		return s.request("POST", "/graphql", s.Admin, contentType, []byte(body))
	}}
}

// repeatNumbered is n copies of s, with %d replaced by the copy's number.
func repeatNumbered(n int, s string) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strings.ReplaceAll(s, "%d", strconv.Itoa(i)))
	}
	return b.String()
}

// fragmentDoubling is n fragments each spreading the next twice: 2^n
// fields once expanded.
func fragmentDoubling(n int) string {
	var b strings.Builder
	b.WriteString("{...F0}\n")
	for i := range n {
		next := strconv.Itoa(i + 1)
		b.WriteString("fragment F" + strconv.Itoa(i) + " on Query {__typename ...F" + next + " ...F" + next + "}\n")
	}
	b.WriteString("fragment F" + strconv.Itoa(n) + " on Query {__typename}")
	return b.String()
}
