package rest_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// BenchmarkSpaceAggregatePage is GET .../permissions/aggregate?limit=50 on
// a restricted-by-default space with a grant to a team, over 1,000 and
// 10,000 members: the page is computed in SQL, so the two should cost
// about the same (the total is counted once between writes).
func BenchmarkSpaceAggregatePage(b *testing.B) {
	for _, n := range []int{1_000, 10_000} {
		b.Run(fmt.Sprintf("members=%d", n), func(b *testing.B) {
			env, authz := benchEnv(b, n)
			token := strings.TrimPrefix(authz, "Bearer ")
			space := env.Must(201, "POST", "/v1/orgs/"+env.Org+"/spaces", token, map[string]any{"title": "Bench"}).JSON()["id"].(string)
			serve(b, env, authz, "GET", "/v1/spaces/"+space+"/permissions/aggregate?limit=50", "", http.StatusOK)
		})
	}
}
