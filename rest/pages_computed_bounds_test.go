package rest_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"docsapi/apitest"
)

// A computed page of a spec whose Markdown is larger than a page may be is
// cut at the page cap, after its last whole section, with a notice; every
// reader gets the same page, however many read it at once.
func TestComputedPageIsCappedAtThePageSize(t *testing.T) {
	env := apitest.New(t)
	var spec strings.Builder
	spec.WriteString(`{"openapi":"3.0.3","info":{"title":"Large","version":"1"},"paths":{`)
	for i := range 3000 { // about 1.5 MB of Markdown in full
		if i > 0 {
			spec.WriteString(",")
		}
		fmt.Fprintf(&spec, `"/r%d":{"get":{"operationId":"get%d","description":"%s","responses":{"200":{"description":"OK"}}}}`, i, i, strings.Repeat("words ", 80))
	}
	spec.WriteString(`}}`)
	createSpec(t, env, "large", map[string]any{"text": spec.String()})
	processAll(t, env)
	space := newSpace(t, env, env.Org)
	page := addPage(t, env, space, map[string]any{"title": "API", "type": "COMPUTED", "computed": computedSource("large", true)})
	var wg sync.WaitGroup
	bodies := make([]string, 3)
	for i := range bodies {
		wg.Go(func() {
			p := env.Must(200, "GET", "/v1/spaces/"+space+"/content/page/"+page, env.Admin.Token, nil).JSON()
			bodies[i], _ = p["markdown"].(string)
		})
	}
	wg.Wait()
	md := bodies[0]
	if len(md) > 1<<20 || len(md) < 1<<19 {
		t.Fatalf("%d bytes of Markdown, want up to (and near) the 1 MiB page cap", len(md))
	}
	if !strings.Contains(md, "This page ends here") || !strings.Contains(md, "1048576 bytes") {
		t.Errorf("no notice naming the cap at the end: %q", md[len(md)-300:])
	}
	if bodies[1] != md || bodies[2] != md {
		t.Error("parallel readers got different pages")
	}
}
