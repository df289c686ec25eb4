package rest_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"image"
	"image/color"
	"image/png"
	"maps"
	"testing"

	"docsapi/apitest"
	"docsapi/storage"
)

// webp1x1 is a 1×1 lossless WebP image.
const webp1x1 = "UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA=="

// pngB64 is a w×h PNG, base64-encoded.
func pngB64(w, h int) string {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	img.Set(0, 0, color.RGBA{R: 200, A: 255})
	var buf bytes.Buffer
	png.Encode(&buf, img)
	return base64.StdEncoding.EncodeToString(buf.Bytes())
}

// publishBody is a valid publication for org; extra fields override.
func publishBody(org string, extra map[string]any) map[string]any {
	b := map[string]any{
		"title": "Acme Chat", "description": "Chat with your docs", "script": "export default {}",
		"scopes": []string{"space:content:read"}, "organization": org,
	}
	maps.Copy(b, extra)
	return b
}

// publish publishes an integration as user and returns its JSON.
func publish(env *apitest.Env, u apitest.User, name, org string, extra map[string]any) map[string]any {
	env.T.Helper()
	return env.Must(200, "POST", "/v1/integrations/"+name, u.Token, publishBody(org, extra)).JSON()
}

// install installs name on org and returns the installation id.
func install(env *apitest.Env, u apitest.User, name, org string) string {
	env.T.Helper()
	return env.Must(201, "POST", "/v1/integrations/"+name+"/installations", u.Token, map[string]any{"organization": org}).JSON()["id"].(string)
}

// newSpace creates a space in org as the token's holder and returns its id.
func createSpaceAs(env *apitest.Env, token, org string, body map[string]any) string {
	env.T.Helper()
	if body == nil {
		body = map[string]any{"title": "Handbook"}
	}
	return env.Must(201, "POST", "/v1/orgs/"+org+"/spaces", token, body).JSON()["id"].(string)
}

// drain runs every due delivery, as the background worker would.
func drain(t *testing.T, env *apitest.Env) int {
	t.Helper()
	n, err := env.Server.Resolver.Deliveries.Drain(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// events lists an integration's events (newest first).
func events(env *apitest.Env, u apitest.User, name string) []map[string]any {
	env.T.Helper()
	var l struct {
		Items []map[string]any `json:"items"`
	}
	env.Must(200, "GET", "/v1/integrations/"+name+"/events", u.Token, nil).Decode(env.T, &l)
	return l.Items
}

// eventDetail reads one event with its trace.
func eventDetail(env *apitest.Env, u apitest.User, name, id string) (map[string]any, []map[string]any) {
	env.T.Helper()
	var d struct {
		Event map[string]any `json:"event"`
		Trace struct {
			Logs []map[string]any `json:"logs"`
		} `json:"trace"`
	}
	env.Must(200, "GET", "/v1/integrations/"+name+"/events/"+id, u.Token, nil).Decode(env.T, &d)
	return d.Event, d.Trace.Logs
}

// countRows counts a table's rows through a connection of its own.
func countRows(t *testing.T, env *apitest.Env, table string) int {
	t.Helper()
	db, err := storage.OpenRaw(env.DBPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT COUNT(*) FROM ` + table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
