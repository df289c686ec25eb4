package main

import (
	"net/http"
	"strings"
)

// Hostile REST bodies: malformed and oversized JSON.
func init() {
	hostileCases = append(hostileCases,
		hostileCase{
			name: "malformed JSON body",
			request: func(s *hostileServer) *http.Request {
				return s.request("POST", "/v1/orgs/"+s.Org+"/spaces", s.Admin, "application/json", []byte(`{"title":`))
			},
			status: 400,
		},
		hostileCase{
			name: "body over the size limit",
			request: func(s *hostileServer) *http.Request {
				return s.request("POST", "/v1/orgs/"+s.Org+"/spaces", s.Admin, "application/json",
					[]byte(`{"title":"`+strings.Repeat("a", 11<<20)+`"}`))
			},
			status: 413,
		},
	)
}
