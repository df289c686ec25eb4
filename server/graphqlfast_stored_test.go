package server_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"docsapi/storage"
)

// The fast path keeps its encoded answers between writes (graphqlfast.go,
// rest.AnswerCache): a stored answer must never reach another caller
// (permissions differ, an outsider is refused by gqlgen) nor outlive a
// write, whether the write went through this server or through another
// database handle (a second process).
func TestGraphQLFastPathStoredAnswers(t *testing.T) {
	env, spaces, reader := fastEnv(t)
	space := spaces[0]
	_, outsider := env.NewOrg("Elsewhere", "admin@elsewhere.test")
	other, err := storage.Open(env.DBPath, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	ctx := context.Background()
	body := map[string]any{"query": `query($id: ID!) { space(spaceId: $id) { id title permissions { admin edit } } }`, "variables": map[string]any{"id": space}}
	ask := func(token string) []byte {
		t.Helper()
		r := post(env, token, body)
		if r.Status != 200 {
			t.Fatalf("status %d: %s", r.Status, r.Body)
		}
		return r.Body
	}
	post(env, env.Admin.Token, body, viaGQLGen...) // gqlgen plans it
	admin := ask(env.Admin.Token)
	before := env.Server.GraphQLFastAnswers()
	if again := ask(env.Admin.Token); !bytes.Equal(admin, again) || env.Server.GraphQLFastAnswers() != before+1 {
		t.Fatalf("repeat differs or not fast:\n%s\n%s", admin, again)
	}
	for range 2 {
		if r := ask(reader); bytes.Contains(r, []byte(`"admin":true`)) || !bytes.Contains(r, []byte(`"admin":false`)) {
			t.Fatalf("reader got the admin's answer: %s", r)
		}
		if r := ask(env.Admin.Token); !bytes.Equal(r, admin) {
			t.Fatalf("admin got another answer: %s", r)
		}
		if r := post(env, outsider.Token, body); !bytes.Contains(r.Body, []byte(`"errors"`)) || bytes.Contains(r.Body, []byte(space+`","title"`)) {
			t.Fatalf("outsider: %s", r.Body)
		}
	}
	for _, w := range []struct {
		by string
		db *storage.DB
	}{{"this server's handle", env.DB}, {"another handle", other}} {
		title := "retitled by " + w.by
		if err := w.db.UpdateSpace(ctx, space, storage.SpacePatch{Title: &title}); err != nil {
			t.Fatal(err)
		}
		for _, token := range []string{env.Admin.Token, reader} {
			if r := ask(token); !strings.Contains(string(r), `"title":"`+title+`"`) {
				t.Fatalf("after a write by %s: %s", w.by, r)
			}
		}
	}
}
