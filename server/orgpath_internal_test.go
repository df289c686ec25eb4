package server

import (
	"strings"
	"testing"
)

// TestOrgOfPath: the organization a write's path names, read before the
// request is routed (readCounters), and nothing for any other path.
func TestOrgOfPath(t *testing.T) {
	for path, want := range map[string]string{
		"/v1/orgs/abc/teams":        "abc",
		"/v1/orgs/abc":              "abc",
		"/v1/orgs/abc/":             "abc",
		"/v1/orgs/abc/members/u1/x": "abc",
		"/v1/orgs/":                 "",
		"/v1/orgs":                  "",
		"/v1/spaces/abc":            "",
		"/v2/orgs/abc":              "",
		"/v1/orgsabc":               "",
	} {
		if got := orgOfPath(path); got != want {
			t.Errorf("orgOfPath(%q) = %q, want %q", path, got, want)
		}
	}
}

// FuzzOrgOfPath: any path gives a single segment of it, or nothing.
func FuzzOrgOfPath(f *testing.F) {
	for _, p := range []string{"/v1/orgs/abc/teams", "/v1/orgs//", "/v1/orgs/" + strings.Repeat("x", 1000), ""} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, path string) {
		org := orgOfPath(path)
		if org == "" {
			return
		}
		if strings.Contains(org, "/") || !strings.HasPrefix(path, "/v1/orgs/"+org) {
			t.Fatalf("orgOfPath(%q) = %q", path, org)
		}
	})
}
