package rest_test

import (
	"bytes"
	"context"
	"net/url"
	"testing"

	"docsapi/apitest"
	"docsapi/storage"
)

// GET organization and GET space keep their encoded answers between
// writes (answers.go). A stored answer must never reach another caller
// (permissions differ, outsiders get 404) nor outlive a write, whether the
// write went through this server or through another database handle (a
// second process).
func TestStoredAnswersFollowCallersAndWrites(t *testing.T) {
	env := apitest.New(t)
	space := newSpace(t, env, env.Org)
	reader := env.NewUser("reader@acme.test", env.Org, "read")
	_, outsider := env.NewOrg("Other", "admin@other.test")
	other, err := storage.Open(env.DBPath, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	ctx := context.Background()

	for _, tc := range []struct {
		name, path string
		retitle    func(db *storage.DB, title string) error
		canAdmin   func(perms map[string]any) bool
	}{
		{"space", "/v1/spaces/" + space,
			func(db *storage.DB, title string) error {
				return db.UpdateSpace(ctx, space, storage.SpacePatch{Title: &title})
			},
			func(p map[string]any) bool { return p["admin"] == true }},
		{"organization", "/v1/orgs/" + env.Org,
			func(db *storage.DB, title string) error {
				return db.UpdateOrganization(ctx, env.Org, storage.OrganizationPatch{Title: &title})
			},
			func(p map[string]any) bool { return p["admin"] == true || p["canAdmin"] == true }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			get := func(token string) apitest.Response {
				t.Helper()
				return env.Must(200, "GET", tc.path, token, nil)
			}
			perms := func(r apitest.Response) map[string]any {
				t.Helper()
				p, ok := r.JSON()["permissions"].(map[string]any)
				if !ok {
					t.Fatalf("no permissions in %s", r.Body)
				}
				return p
			}
			first := get(env.Admin.Token)
			again := get(env.Admin.Token)
			if !bytes.Equal(first.Body, again.Body) || first.Header.Get("ETag") != again.Header.Get("ETag") {
				t.Fatalf("repeat GET differs:\n%s\n%s", first.Body, again.Body)
			}
			// Another caller after the admin's answer was stored: their own
			// permissions, and the admin's answer is still the admin's.
			for range 2 {
				if p := perms(get(reader.Token)); tc.canAdmin(p) {
					t.Fatalf("reader got the admin's permissions: %v", p)
				}
				if p := perms(get(env.Admin.Token)); !tc.canAdmin(p) {
					t.Fatalf("admin got the reader's permissions: %v", p)
				}
				if r := env.Do("GET", tc.path, outsider.Token, nil); r.Status != 404 {
					t.Fatalf("outsider: status %d, want 404: %s", r.Status, r.Body)
				}
			}
			// If-None-Match with the stored ETag: 304 until a write.
			tag := first.Header.Get("ETag")
			if r := env.Do("GET", tc.path, env.Admin.Token, nil, "If-None-Match", tag); r.Status != 304 {
				t.Fatalf("If-None-Match: status %d, want 304", r.Status)
			}
			for _, w := range []struct {
				by string
				db *storage.DB
			}{{"this server's handle", env.DB}, {"another handle", other}} {
				title := tc.name + " retitled by " + w.by
				if err := tc.retitle(w.db, title); err != nil {
					t.Fatal(err)
				}
				for _, token := range []string{env.Admin.Token, reader.Token} {
					if got := get(token).JSON()["title"]; got != title {
						t.Fatalf("after a write by %s: title %q, want %q", w.by, got, title)
					}
				}
				r := env.Do("GET", tc.path, env.Admin.Token, nil, "If-None-Match", tag)
				if r.Status != 200 || r.Header.Get("ETag") == tag {
					t.Fatalf("after a write by %s: status %d, ETag %s (was %s)", w.by, r.Status, r.Header.Get("ETag"), tag)
				}
				tag = r.Header.Get("ETag")
			}
		})
	}

	// A role change made elsewhere changes the reader's permissions at once.
	before := env.Must(200, "GET", "/v1/spaces/"+space, reader.Token, nil).JSON()["permissions"].(map[string]any)
	admin := "admin"
	if err := other.UpdateMemberRole(ctx, env.Org, reader.ID, &admin); err != nil {
		t.Fatal(err)
	}
	after := env.Must(200, "GET", "/v1/spaces/"+space, reader.Token, nil).JSON()["permissions"].(map[string]any)
	if before["admin"] == true || after["admin"] != true {
		t.Fatalf("reader made admin elsewhere: permissions %v then %v", before, after)
	}
}

// FuzzStoredAnswers: any id and query string on the two routes whose
// answers are stored; refusals stay refusals (never a 500), and the real
// space's stored answer stays the one a fresh computation gives (a query
// string, here a harmless one, bypasses the store).
func FuzzStoredAnswers(f *testing.F) {
	fx := newFuzzFixture(f)
	space := "/v1/spaces/" + fx.ids["spaceId"]
	f.Add(fx.ids["spaceId"], "")
	f.Add(fx.ids["organizationId"], "shareKey=x")
	f.Add("../orgs", "a=%zz")
	f.Fuzz(func(t *testing.T, id, query string) {
		for _, base := range []string{"/v1/spaces/", "/v1/orgs/"} {
			p := base + url.PathEscape(id)
			if query != "" {
				p += "?" + url.PathEscape(query)
			}
			status, answer := fx.send(t, "GET", p, nil)
			checkAnswer(t, base, status, answer)
		}
		_, stored := fx.send(t, "GET", space, nil)
		_, fresh := fx.send(t, "GET", space+"?fresh", nil)
		if !bytes.Equal(stored, fresh) {
			t.Fatalf("stored answer differs from a fresh one:\n%s\n%s", stored, fresh)
		}
	})
}
