package rest_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"docsapi/apitest"
	"docsapi/bench/seed"
	"docsapi/storage"
)

// BenchmarkInstallationSpacesPage is an installation token's 100-space page
// (GET /orgs/{id}/spaces?limit=100) when its installation is installed on
// 1% of the organization's spaces (every hundredth in tree order), at
// 10,000 and 100,000 spaces: the page reads the installation's targets in
// order (migration 0030j), so the two should cost the same.
// "after_write" renames a space before each read (not timed), so the page
// and its total are read afresh. Each reports p50-ms over its iterations;
// compare the sizes as a ratio.
func BenchmarkInstallationSpacesPage(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		env, org, admin, token, some := installationBenchEnv(b, n)
		path := "/v1/orgs/" + org + "/spaces?limit=100"
		for _, afterWrite := range []bool{false, true} {
			name := fmt.Sprintf("spaces=%d", n)
			if afterWrite {
				name += "/after_write"
			}
			b.Run(name, func(b *testing.B) {
				var times []time.Duration
				i := 0
				for b.Loop() {
					if afterWrite {
						b.StopTimer()
						i++
						env.Must(200, "PATCH", "/v1/spaces/"+some, admin, map[string]any{"title": fmt.Sprintf("Renamed %d", i)})
						b.StartTimer()
					}
					start := time.Now()
					req := httptest.NewRequest("GET", path, nil)
					req.Header.Set("Authorization", "Bearer "+token)
					w := httptest.NewRecorder()
					env.Server.ServeHTTP(w, req)
					times = append(times, time.Since(start))
					if w.Code != http.StatusOK {
						b.Fatalf("%d %s", w.Code, w.Body)
					}
				}
				slices.Sort(times)
				b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50-ms")
			})
		}
	}
}

// installationBenchEnv seeds n spaces (bench/seed) and an installation of
// an integration with space:metadata:read installed on every hundredth of
// them in tree order; it returns the organization, its admin's token, the
// installation's token and one space to rename.
func installationBenchEnv(b *testing.B, n int) (env *apitest.Env, org, admin, token, some string) {
	ctx := context.Background()
	env = apitest.New(b)
	e, err := seed.Bootstrap(ctx, env.DB, "Bench")
	if err != nil {
		b.Fatal(err)
	}
	if err := seed.Spaces(ctx, e, n); err != nil {
		b.Fatal(err)
	}
	org, admin = e.Org, e.Token
	u := apitest.User{Token: admin}
	publish(env, u, "bench", org, map[string]any{"scopes": []string{"space:metadata:read"}})
	id := install(env, u, "bench", org)
	inst := "/v1/integrations/bench/installations/" + id
	env.Must(200, "PATCH", inst, admin, map[string]any{"space_selection": "selected"})
	var ids []string
	p := storage.PageQuery{Limit: 1000}
	for {
		page, err := env.DB.ListSpaces(ctx, storage.SpaceFilter{OrganizationID: org}, nil, p)
		if err != nil {
			b.Fatal(err)
		}
		for _, s := range page.Items {
			ids = append(ids, s.ID)
		}
		if page.Next == nil {
			break
		}
		p.After = page.Next
	}
	if len(ids) < n {
		b.Fatalf("%d spaces seeded, want %d", len(ids), n)
	}
	for i := 0; i < len(ids); i += 100 {
		env.Must(201, "POST", inst+"/spaces", admin, map[string]any{"space": ids[i]})
	}
	token = env.Must(200, "POST", inst+"/tokens", admin, nil).JSON()["token"].(string)
	return env, org, admin, token, ids[len(ids)/2]
}
