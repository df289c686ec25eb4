package rest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/url"
	"slices"
	"testing"
	"time"

	"docsapi/apitest"
	"docsapi/graph"
)

// TestInstallationTokenSpacesRandomScripts is a property test of an
// installation token's view of spaces (its selection is never loaded
// whole). Random scripts of writes (install on a space, uninstall,
// trash, restore, purge, move, create, transfer to another organization,
// switch the installation between all and selected spaces), and after every
// write the token's list of the organization's spaces (paged, read both as
// the ordered range of the installation's targets and as the scan with the
// per-row condition) and its GET of every space ever created must equal the
// brute-force answer: the live spaces of the organization, in tree order
// (the admin's list), kept when the installation covers them (all, or the
// set of targets the script tracks). The same token's list of each of
// three members' spaces (members/{userId}/spaces: a guest granted random
// spaces, a read member, the admin), in creation order both ways, must be
// the admin's creation-ordered list kept where the installation covers the
// space and the member's own GET of it answers 200 (the installation's
// targets in creation order, migration 0031d), whichever view is read
// first (SetMemberSideFirst). Runs on SQLite, and on
// PostgreSQL under DOCSAPI_TEST_DB (test/pg/cluster.sh).
func TestInstallationTokenSpacesRandomScripts(t *testing.T) {
	scripts, steps := 3, 40
	if testing.Short() {
		scripts, steps = 1, 15
	}
	for script := range scripts {
		runInstallationReachScript(t, script, steps)
	}
}

func runInstallationReachScript(t *testing.T, script, steps int) {
	env := apitest.New(t)
	rng := rand.New(rand.NewPCG(uint64(script), 33))
	// A member's spaces through the token read the member's ranges first
	// (script 0, the one of -short), the side naming fewer spaces, or the
	// installation's targets first: the same lists.
	env.DB.SetMemberSideFirst([]*bool{new(true), nil, new(false)}[script%3])
	otherOrg, foreign := env.NewOrg("Other", "admin@other.test")
	env.Must(200, "POST", "/v1/orgs/"+otherOrg+"/invites", foreign.Token, map[string]any{"emails": []any{map[string]any{"email": env.Admin.Email, "role": "admin"}}})
	publish(env, env.Admin, "reach", env.Org, map[string]any{"scopes": []string{"space:metadata:read"}})
	instID := install(env, env.Admin, "reach", env.Org)
	inst := "/v1/integrations/reach/installations/" + instID
	env.Must(200, "PATCH", inst, env.Admin.Token, map[string]any{"space_selection": "selected"})
	token := env.Must(200, "POST", inst+"/tokens", env.Admin.Token, nil).JSON()["token"].(string)
	org := "/v1/orgs/" + env.Org

	var cols []string
	for range 4 {
		cols = append(cols, env.Must(201, "POST", org+"/collections", env.Admin.Token, map[string]any{"title": "C"}).JSON()["id"].(string))
	}
	randomParent := func() any {
		if rng.IntN(3) == 0 {
			return nil
		}
		return cols[rng.IntN(len(cols))]
	}
	// The brute-force state: every space ever made here, which are live,
	// trashed, gone, and the installation's targets.
	var spaces []string
	live, trashed, targets := map[string]bool{}, map[string]bool{}, map[string]bool{}
	all := false
	newSpace := func() string {
		body := map[string]any{"title": "S"}
		if p := randomParent(); p != nil {
			body["parent"] = p
		}
		// Creation times that tie, go forward and go back (ids do not
		// follow them), so that the creation order is the stored times'.
		env.Clock.Advance(time.Duration(rng.IntN(5)-2) * time.Millisecond)
		id := createSpaceAs(env, env.Admin.Token, env.Org, body)
		spaces, live[id] = append(spaces, id), true
		return id
	}
	for range 30 {
		newSpace()
	}
	elsewhere := createSpaceAs(env, foreign.Token, otherOrg, nil)
	pick := func(in map[string]bool, want bool) (string, bool) {
		var ids []string
		for _, id := range spaces {
			if in[id] == want {
				ids = append(ids, id)
			}
		}
		if len(ids) == 0 {
			return "", false
		}
		return ids[rng.IntN(len(ids))], true
	}
	// The members whose spaces the token lists: a guest who sees the
	// spaces granted to them (random grants, and op 12), a read member,
	// the admin.
	guest := env.NewUser("guest@acme.test", env.Org, "guest")
	reader := env.NewUser("reader@acme.test", env.Org, "read")
	members := []apitest.User{guest, reader, env.Admin}
	grant := func(id string, role any) {
		env.Must(204, "PATCH", "/v1/spaces/"+id+"/permissions/users/"+guest.ID, env.Admin.Token, map[string]any{"role": role})
	}
	for range 8 {
		if id, ok := pick(live, true); ok {
			grant(id, "read")
		}
	}
	for range 5 {
		if id, ok := pick(targets, false); ok && live[id] {
			env.Must(201, "POST", inst+"/spaces", env.Admin.Token, map[string]any{"space": id})
			targets[id] = true
		}
	}

	check := func(after string) {
		t.Helper()
		// The tree order: the admin's list (every live space).
		order := listIDs(t, env, env.Admin.Token, org+"/spaces", 1000)
		var want []string
		for _, id := range order {
			if !live[id] {
				t.Fatalf("script %d after %s: the admin lists %s, which the script holds not live", script, after, id)
			}
			if all || targets[id] {
				want = append(want, id)
			}
		}
		for _, merged := range []bool{true, false} {
			env.DB.SetListRanges(&merged)
			got := listIDs(t, env, token, org+"/spaces", 1+rng.IntN(7))
			if !slices.Equal(got, want) {
				t.Fatalf("script %d after %s (ranges %v): the token lists %v, want %v", script, after, merged, got, want)
			}
		}
		// Each member's spaces through the token: the admin's list in
		// creation order, kept where the installation covers the space and
		// the member reads it.
		created := memberSpaceIDs(t, env, env.Admin.Token, org+"/members/"+env.Admin.ID+"/spaces", "asc", 1000)
		for _, m := range members {
			var want []string
			for _, id := range created {
				if (all || targets[id]) && env.Do("GET", "/v1/spaces/"+id, m.Token, nil).Status == 200 {
					want = append(want, id)
				}
			}
			for _, merged := range []bool{true, false} {
				env.DB.SetListRanges(&merged)
				path := org + "/members/" + m.ID + "/spaces"
				if got := memberSpaceIDs(t, env, token, path, "asc", 1+rng.IntN(7)); !slices.Equal(got, want) {
					t.Fatalf("script %d after %s (ranges %v): the token lists %s's spaces %v, want %v", script, after, merged, m.Email, got, want)
				}
				got := memberSpaceIDs(t, env, token, path, "desc", 1+rng.IntN(7))
				slices.Reverse(got)
				if !slices.Equal(got, want) {
					t.Fatalf("script %d after %s (ranges %v): the token lists %s's spaces newest first %v, want %v reversed", script, after, merged, m.Email, got, want)
				}
			}
		}
		env.DB.SetListRanges(nil)
		for _, id := range append(slices.Clone(spaces), elsewhere, "nosuchspace") {
			status := 404
			if live[id] && (all || targets[id]) {
				status = 200
			}
			if r := env.Do("GET", "/v1/spaces/"+id, token, nil); r.Status != status {
				t.Fatalf("script %d after %s: GET space (live %v, target %v, all %v): %d, want %d: %s", script, after, live[id], targets[id], all, r.Status, status, r.Body)
			}
		}
	}
	check("setup")
	for step := range steps {
		var what string
		switch op := rng.IntN(13); op {
		case 0, 1, 2: // install on a live space
			id, ok := pick(targets, false)
			if !ok || !live[id] {
				continue
			}
			what = "installed on a space"
			env.Must(201, "POST", inst+"/spaces", env.Admin.Token, map[string]any{"space": id})
			targets[id] = true
		case 3: // uninstall
			id, ok := pick(targets, true)
			if !ok || !live[id] {
				continue
			}
			what = "uninstalled from a space"
			env.Must(205, "DELETE", inst+"/spaces/"+id, env.Admin.Token, nil)
			delete(targets, id)
		case 4, 5: // trash (the target rests until restored or purged)
			id, ok := pick(live, true)
			if !ok {
				continue
			}
			what = "space trashed"
			env.Must(205, "DELETE", "/v1/spaces/"+id, env.Admin.Token, nil)
			delete(live, id)
			trashed[id] = true
		case 6: // restore
			id, ok := pick(trashed, true)
			if !ok {
				continue
			}
			what = "space restored"
			env.Must(200, "POST", "/v1/spaces/"+id+"/restore", env.Admin.Token, nil)
			delete(trashed, id)
			live[id] = true
		case 7: // purge the trash: the targets go with their spaces
			what = "trash purged"
			env.Clock.Advance(graph.TrashRetention + 1)
			if _, err := env.Server.Resolver.PurgeTrash(context.Background()); err != nil {
				t.Fatal(err)
			}
			for id := range trashed {
				delete(targets, id)
			}
			trashed = map[string]bool{}
			// Installation tokens last an hour: a fresh one past the retention.
			token = env.Must(200, "POST", inst+"/tokens", env.Admin.Token, nil).JSON()["token"].(string)
		case 8, 9: // move (the target's copied sort key follows)
			id, ok := pick(live, true)
			if !ok {
				continue
			}
			what = "space moved"
			env.Must(200, "POST", "/v1/spaces/"+id+"/move", env.Admin.Token, map[string]any{"parent": randomParent()})
		case 10: // create, or transfer one away (its target goes)
			if rng.IntN(2) == 0 {
				what = "space created"
				newSpace()
				continue
			}
			id, ok := pick(live, true)
			if !ok {
				continue
			}
			what = "space transferred"
			env.Must(200, "POST", "/v1/spaces/"+id+"/transfer", env.Admin.Token, map[string]any{"organization": otherOrg})
			delete(live, id)
			delete(targets, id)
		case 11: // all spaces, or back to the selected ones
			all = !all
			what = fmt.Sprintf("selection all %v", all)
			sel := "selected"
			if all {
				sel = "all"
			}
			env.Must(200, "PATCH", inst, env.Admin.Token, map[string]any{"space_selection": sel})
		case 12: // grant the guest a space, or take a grant back
			id, ok := pick(live, true)
			if !ok {
				continue
			}
			what = "guest's grant changed"
			if rng.IntN(2) == 0 {
				grant(id, "read")
			} else {
				grant(id, nil)
			}
		}
		check(fmt.Sprintf("step %d, %s", step, what))
	}
}

// listIDs reads every page of a list of spaces as token, limit a page, and
// checks that each page gives the same total as the number of items.
func listIDs(t *testing.T, env *apitest.Env, token, path string, limit int) []string {
	t.Helper()
	return pagedIDs(t, env, token, path, url.Values{"limit": {fmt.Sprint(limit)}}, func(it json.RawMessage) (string, error) {
		var s struct {
			ID string `json:"id"`
		}
		err := json.Unmarshal(it, &s)
		return s.ID, err
	})
}

// memberSpaceIDs is listIDs for a member's spaces (members/{userId}/spaces,
// items that wrap the space) in order ("asc" or "desc").
func memberSpaceIDs(t *testing.T, env *apitest.Env, token, path, order string, limit int) []string {
	t.Helper()
	return pagedIDs(t, env, token, path, url.Values{"limit": {fmt.Sprint(limit)}, "order": {order}}, func(it json.RawMessage) (string, error) {
		var e struct {
			Space struct {
				ID string `json:"id"`
			} `json:"space"`
		}
		err := json.Unmarshal(it, &e)
		return e.Space.ID, err
	})
}

// pagedIDs reads every page of the list at path with the query q, the id
// of each item by id, and checks that each page gives the same total as
// the number of items.
func pagedIDs(t *testing.T, env *apitest.Env, token, path string, q url.Values, id func(json.RawMessage) (string, error)) []string {
	t.Helper()
	var ids []string
	count := -1
	for range 1000 {
		var body struct {
			Items []json.RawMessage `json:"items"`
			Count int               `json:"count"`
			Next  *struct {
				Page string `json:"page"`
			} `json:"next"`
		}
		r := env.Must(200, "GET", path+"?"+q.Encode(), token, nil)
		if err := json.Unmarshal(r.Body, &body); err != nil {
			t.Fatal(err)
		}
		if count >= 0 && body.Count != count {
			t.Fatalf("%s: count moved between pages: %d then %d", path, count, body.Count)
		}
		count = body.Count
		for _, it := range body.Items {
			x, err := id(it)
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, x)
		}
		if body.Next == nil {
			if len(ids) != count {
				t.Fatalf("%s: %d items, count %d", path, len(ids), count)
			}
			return ids
		}
		q.Set("page", body.Next.Page)
	}
	t.Fatalf("%s: more than 1000 pages", path)
	return nil
}
