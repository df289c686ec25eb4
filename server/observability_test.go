package server_test

import (
	"context"
	"strings"
	"testing"

	"docsapi/apitest"
	"docsapi/server"
)

func TestMetricsAfterTraffic(t *testing.T) {
	env := apitest.New(t)
	env.Server.Metrics.Queue("deliveries", func(context.Context) (int, error) { return 3, nil })
	org := "/v1/orgs/" + env.Org
	env.Must(200, "GET", org, env.Admin.Token, nil)
	env.Must(404, "GET", "/v1/orgs/nope", env.Admin.Token, nil)
	env.Must(201, "PUT", org+"/teams", env.Admin.Token, map[string]any{"title": "Writers"})
	if _, errs := env.GraphQL(env.Admin.Token, `{ organization(id: "nope") { id } }`, nil); len(errs) != 1 || errs[0].Code() != "NOT_FOUND" {
		t.Fatalf("graphql errors %v", errs)
	}

	r := env.Must(200, "GET", "/metrics", "", nil)
	body := string(r.Body)
	for _, want := range []string{
		`docsapi_http_requests_total{method="GET",route="/v1/orgs/{organizationId}",status="200"} 1`,
		`docsapi_http_requests_total{method="GET",route="/v1/orgs/{organizationId}",status="404"} 1`,
		`docsapi_http_requests_total{method="PUT",route="/v1/orgs/{organizationId}/teams",status="201"} 1`,
		`docsapi_http_request_duration_seconds_bucket{method="GET",route="/v1/orgs/{organizationId}",status="200",le="0.005"}`,
		`docsapi_http_request_duration_seconds_count{method="POST",route="/graphql",status="200"} 1`,
		`docsapi_errors_total{code="NOT_FOUND",transport="http"} 1`,
		`docsapi_errors_total{code="NOT_FOUND",transport="graphql"} 1`,
		`docsapi_db_pool_max_open_connections{pool="write"} 1`,
		`docsapi_db_pool_open_connections{pool="read"}`,
		`docsapi_db_pool_in_use_connections{pool="write"}`,
		`docsapi_db_pool_wait_count_total{pool="read"}`,
		`docsapi_db_write_wait_seconds_count`,
		`docsapi_db_write_duration_seconds_count{outcome="commit"}`,
		`docsapi_db_commit_duration_seconds_count`,
		`docsapi_db_commit_batch_size_bucket{le="1"}`,
		`docsapi_db_commit_batch_size_count`,
		`docsapi_job_queue_depth{queue="deliveries"} 3`,
		`go_goroutines`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	if strings.Contains(body, `route="/v1/orgs/nope"`) {
		t.Error("raw paths must not become route labels")
	}
}

func TestMetricsOnTheirOwnListener(t *testing.T) {
	env := apitest.New(t, apitest.Options{Config: func(c *server.Config) { c.MetricsAddr = "127.0.0.1:0" }})
	env.Must(404, "GET", "/metrics", "", nil)
}

func TestAPIInformation(t *testing.T) {
	env := apitest.New(t)
	r := env.Must(200, "GET", "/v1/", env.Admin.Token, nil)
	apitest.Keys(t, r.JSON(), "version", "build")
}
