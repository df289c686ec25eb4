package rest_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"docsapi/apitest"
	"docsapi/delivery"
	"docsapi/server"
)

// hookReceiver is a webhook endpoint on loopback: it records every request
// (path, headers, raw body) and answers status (200 unless set).
type hookReceiver struct {
	srv *httptest.Server

	mu     sync.Mutex
	status int
	got    []hookRequest
}

type hookRequest struct {
	Path   string
	Header http.Header
	Body   []byte
}

func newHookReceiver(t *testing.T) *hookReceiver {
	rc := &hookReceiver{}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.got = append(rc.got, hookRequest{Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
		status := rc.status
		rc.mu.Unlock()
		if status == 0 {
			status = 200
		}
		w.WriteHeader(status)
		io.WriteString(w, "answer")
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *hookReceiver) answer(status int) {
	rc.mu.Lock()
	rc.status = status
	rc.mu.Unlock()
}

// received returns the requests made to path so far.
func (rc *hookReceiver) received(path string) []hookRequest {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	var out []hookRequest
	for _, g := range rc.got {
		if g.Path == path {
			out = append(out, g)
		}
	}
	return out
}

// payload decodes a delivery's body.
func (h hookRequest) payload(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(h.Body, &m); err != nil {
		t.Fatalf("delivery body %s: %v", h.Body, err)
	}
	return m
}

// verify checks the request's signature the way a receiver does.
func (h hookRequest) verify(env *apitest.Env, secret string) error {
	return delivery.Verify(secret, h.Header, h.Body, env.Clock.Now(), 5*time.Minute)
}

// drainHooks makes every webhook delivery attempt due now.
func drainHooks(t *testing.T, env *apitest.Env) int {
	t.Helper()
	n, err := env.Server.Resolver.Webhooks.Drain(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// newHook registers a webhook and returns its id and secret.
func newHook(t *testing.T, env *apitest.Env, url string, events []string, extra map[string]any) (string, string) {
	t.Helper()
	body := map[string]any{"url": url, "events": events}
	for k, v := range extra {
		body[k] = v
	}
	w := env.Must(201, "POST", "/v1/orgs/"+env.Org+"/webhooks", env.Admin.Token, body).JSON()
	return w["id"].(string), w["secret"].(string)
}

func TestWebhookEndpoints(t *testing.T) {
	env := apitest.New(t)
	admin, hooks := env.Admin.Token, "/v1/orgs/"+env.Org+"/webhooks"
	editor := env.NewUser("editor@acme.test", env.Org, "edit")
	otherOrg, otherAdmin := env.NewOrg("Other", "admin@other.test")

	res := env.Must(201, "POST", hooks, admin, map[string]any{"url": "https://hooks.example.com/in", "events": []string{"space.created", "page.changed"},
		"description": "CI"})
	created := res.JSON()
	apitest.Keys(t, created, "object", "id", "url", "description", "events", "active", "createdAt", "updatedAt", "disabledReason", "disabledAt",
		"previousSecretExpiresAt", "secret", "urls")
	id := created["id"].(string)
	if created["object"] != "webhook" || created["active"] != true || !strings.HasPrefix(created["secret"].(string), "whsec_") || len(created["secret"].(string)) < 40 {
		t.Fatalf("created: %v", created)
	}
	if loc := res.Header.Get("Location"); loc != env.HTTP.URL+hooks+"/"+id {
		t.Fatalf("Location %q", loc)
	}

	// The secret is shown once: never in reads.
	one := env.Must(200, "GET", hooks+"/"+id, admin, nil)
	if strings.Contains(string(one.Body), created["secret"].(string)) || one.JSON()["secret"] != nil {
		t.Fatalf("GET shows the secret: %s", one.Body)
	}
	list := env.Must(200, "GET", hooks, admin, nil)
	if strings.Contains(string(list.Body), created["secret"].(string)) || list.JSON()["count"] != float64(1) {
		t.Fatalf("list: %s", list.Body)
	}

	patched := env.Must(200, "PATCH", hooks+"/"+id, admin, map[string]any{"events": []string{"comment.created"}, "active": false}).JSON()
	if patched["active"] != false || len(patched["events"].([]any)) != 1 || patched["description"] != "CI" {
		t.Fatalf("patched: %v", patched)
	}

	// Keyset pagination, oldest first.
	for i := range 3 {
		env.Must(201, "POST", hooks, admin, map[string]any{"url": "http://hooks.example.com/" + string(rune('a'+i)), "events": []string{"space.deleted"}})
	}
	page1 := env.Must(200, "GET", hooks+"?limit=3", admin, nil).JSON()
	next := page1["next"].(map[string]any)["page"].(string)
	page2 := env.Must(200, "GET", hooks+"?limit=3&page="+next, admin, nil).JSON()
	if len(page1["items"].([]any)) != 3 || len(page2["items"].([]any)) != 1 || page1["items"].([]any)[0].(map[string]any)["id"] != id {
		t.Fatalf("pages: %v / %v", page1, page2)
	}

	// Roles: members below admin are refused; others see nothing.
	for _, c := range []struct {
		method, path string
		body         any
	}{{"GET", hooks, nil}, {"POST", hooks, map[string]any{"url": "https://x.test", "events": []string{"space.created"}}},
		{"GET", hooks + "/" + id, nil}, {"PATCH", hooks + "/" + id, map[string]any{"active": true}}, {"DELETE", hooks + "/" + id, nil},
		{"POST", hooks + "/" + id + "/secret/rotate", nil}, {"GET", hooks + "/" + id + "/deliveries", nil}, {"POST", hooks + "/" + id + "/ping", nil},
		{"POST", hooks + "/" + id + "/deliveries/nope/replay", nil}} {
		if r := env.Do(c.method, c.path, editor.Token, c.body); r.Status != 403 {
			t.Errorf("editor %s %s: %d %s", c.method, c.path, r.Status, r.Body)
		} else {
			apitest.ErrorShape(t, r)
		}
		if r := env.Do(c.method, c.path, "", c.body); r.Status != 401 {
			t.Errorf("anonymous %s %s: %d", c.method, c.path, r.Status)
		}
		want := 404
		if c.method == "DELETE" {
			want = 204 // what the caller may not see counts as not existing
		}
		if r := env.Do(c.method, c.path, otherAdmin.Token, c.body); r.Status != want {
			t.Errorf("another organization's admin %s %s: %d %s", c.method, c.path, r.Status, r.Body)
		}
		// Through their own organization, our webhook is unknown.
		own := strings.Replace(c.path, env.Org, otherOrg, 1)
		if c.path == hooks || c.method == "POST" && c.path == hooks {
			continue
		}
		if r := env.Do(c.method, own, otherAdmin.Token, c.body); r.Status != want {
			t.Errorf("another organization's admin via their org %s %s: %d %s", c.method, own, r.Status, r.Body)
		}
	}
	if r := env.Do("GET", hooks+"/nope", admin, nil); r.Status != 404 {
		t.Fatalf("unknown webhook: %d", r.Status)
	}
	if r := env.Do("GET", hooks+"/nope/deliveries", admin, nil); r.Status != 404 {
		t.Fatalf("deliveries of an unknown webhook: %d", r.Status)
	}

	// Bad input: a 400 naming the field, nothing written.
	for body, field := range map[string]string{
		`{"events":["space.created"]}`:                                                                         "url",
		`{"url":"ftp://x.test","events":["space.created"]}`:                                                    "url",
		`{"url":"/relative","events":["space.created"]}`:                                                       "url",
		`{"url":"https://x.test"}`:                                                                             "events",
		`{"url":"https://x.test","events":[]}`:                                                                 "events",
		`{"url":"https://x.test","events":["space.created","nope"]}`:                                           "events[1]",
		`{"url":"https://x.test","events":["space.created","space.created"]}`:                                  "events[1]",
		`{"url":"https://x.test","events":["ping"]}`:                                                           "events[0]",
		`{"url":"https://x.test","events":["space.created"],"description":"` + strings.Repeat("d", 501) + `"}`: "description",
		`{"url":5,"events":["space.created"]}`:                                                                 "url",
		`{"url":"https://x.test","events":"space.created"}`:                                                    "events",
	} {
		r := env.Do("POST", hooks, admin, json.RawMessage(body))
		if r.Status != 400 || !strings.Contains(string(r.Body), field) {
			t.Errorf("POST %s: %d %s (want 400 naming %s)", body, r.Status, r.Body, field)
		}
	}
	for body, field := range map[string]string{`{}`: "body", `{"events":["x"]}`: "events[0]", `{"url":"nope"}`: "url", `{"active":"yes"}`: "active"} {
		r := env.Do("PATCH", hooks+"/"+id, admin, json.RawMessage(body))
		if r.Status != 400 || !strings.Contains(string(r.Body), field) {
			t.Errorf("PATCH %s: %d %s (want 400 naming %s)", body, r.Status, r.Body, field)
		}
	}
	if n := env.Must(200, "GET", hooks, admin, nil).JSON()["count"]; n != float64(4) {
		t.Fatalf("refused creations wrote webhooks: count %v", n)
	}

	// GraphQL: the same data and the same refusals.
	data, errs := env.GraphQL(admin, `query($o: ID!) { webhooks(organizationId: $o) { count items { id url events active secret } } webhookEvents }`, map[string]any{"o": env.Org})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	items := data["webhooks"].(map[string]any)["items"].([]any)
	if len(items) != 4 || items[0].(map[string]any)["id"] != id || items[0].(map[string]any)["secret"] != nil {
		t.Fatalf("graphql webhooks: %v", data)
	}
	if evs := data["webhookEvents"].([]any); len(evs) < 20 || evs[0] != "space.created" {
		t.Fatalf("webhookEvents: %v", evs)
	}
	_, errs = env.GraphQL(admin, `mutation($o: ID!) { createWebhook(organizationId: $o, input: {url: "https://x.test", events: ["space.created", "nope"]}) { id } }`, map[string]any{"o": env.Org})
	if len(errs) != 1 || errs[0].Code() != "BAD_REQUEST" && !strings.Contains(errs[0].Message, "events[1]") {
		t.Fatalf("graphql bad events: %+v", errs)
	}
	if !strings.Contains(errs[0].Message, "events[1]") {
		t.Fatalf("graphql bad events do not name events[1]: %+v", errs)
	}
	_, errs = env.GraphQL(editor.Token, `query($o: ID!) { webhooks(organizationId: $o) { count } }`, map[string]any{"o": env.Org})
	if len(errs) != 1 || errs[0].Code() != "FORBIDDEN" {
		t.Fatalf("graphql editor: %+v", errs)
	}
	_, errs = env.GraphQL(otherAdmin.Token, `query($o: ID!, $w: ID!) { webhook(organizationId: $o, webhookId: $w) { id } }`, map[string]any{"o": otherOrg, "w": id})
	if len(errs) != 1 || errs[0].Code() != "NOT_FOUND" {
		t.Fatalf("graphql other org: %+v", errs)
	}
	g, errs := env.GraphQL(admin, `mutation($o: ID!) { createWebhook(organizationId: $o, input: {url: "https://g.test/in", events: ["member.added"]}) { id secret active } }`, map[string]any{"o": env.Org})
	if len(errs) > 0 || g["createWebhook"].(map[string]any)["secret"] == nil {
		t.Fatalf("graphql create: %v %+v", g, errs)
	}

	env.Must(205, "DELETE", hooks+"/"+id, admin, nil)
	env.Must(204, "DELETE", hooks+"/"+id, admin, nil)
	env.Must(404, "GET", hooks+"/"+id, admin, nil)
}

// A space created through the API is delivered, signed, to the endpoints
// subscribed to space.created and active, and to no other.
func TestWebhookDeliveryOfAChange(t *testing.T) {
	env := apitest.New(t)
	rc := newHookReceiver(t)
	admin, hooks := env.Admin.Token, "/v1/orgs/"+env.Org+"/webhooks"
	id, secret := newHook(t, env, rc.srv.URL+"/subscribed", []string{"space.created"}, nil)
	newHook(t, env, rc.srv.URL+"/unsubscribed", []string{"page.changed"}, nil)
	newHook(t, env, rc.srv.URL+"/inactive", []string{"space.created"}, map[string]any{"active": false})
	// Another organization's endpoint hears nothing of this one.
	other, otherAdmin := env.NewOrg("Other", "admin@other.test")
	env.Must(201, "POST", "/v1/orgs/"+other+"/webhooks", otherAdmin.Token, map[string]any{"url": rc.srv.URL + "/other", "events": []string{"space.created"}})

	space := env.Must(201, "POST", "/v1/orgs/"+env.Org+"/spaces", admin, map[string]any{"title": "Guide"}).JSON()
	if n := drainHooks(t, env); n != 1 {
		t.Fatalf("attempts: %d, want 1", n)
	}
	got := rc.received("/subscribed")
	if len(got) != 1 {
		t.Fatalf("subscribed endpoint got %d deliveries", len(got))
	}
	for _, p := range []string{"/unsubscribed", "/inactive", "/other"} {
		if n := len(rc.received(p)); n != 0 {
			t.Errorf("%s got %d deliveries", p, n)
		}
	}
	d := got[0]
	if err := d.verify(env, secret); err != nil {
		t.Fatalf("signature: %v (headers %v)", err, d.Header)
	}
	// An independent check: HMAC-SHA256 over timestamp "." body.
	if d.Header.Get("X-Docsapi-Signature") != delivery.Sign(secret, mustInt(t, d.Header.Get("X-Docsapi-Timestamp")), d.Body) {
		t.Fatal("signature is not HMAC-SHA256(secret, timestamp.body)")
	}
	if d.verify(env, "whsec_other") == nil {
		t.Fatal("another secret verifies")
	}
	p := d.payload(t)
	apitest.Keys(t, p, "id", "type", "createdAt", "organization", "data")
	data := p["data"].(map[string]any)
	if p["type"] != "space.created" || p["organization"] != env.Org || data["object"] != "space" || data["id"] != space["id"] || data["title"] != "Guide" {
		t.Fatalf("payload: %v", p)
	}
	if d.Header.Get("X-Docsapi-Event-Id") != p["id"] || d.Header.Get("X-Docsapi-Event-Type") != "space.created" || d.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("headers: %v", d.Header)
	}

	list := env.Must(200, "GET", hooks+"/"+id+"/deliveries", admin, nil).JSON()
	items := list["items"].([]any)
	if len(items) != 1 {
		t.Fatalf("deliveries: %v", list)
	}
	one := items[0].(map[string]any)
	apitest.Keys(t, one, "object", "id", "eventId", "type", "status", "attempts", "responseStatus", "durationMs", "lastError", "lastAttemptAt", "nextAttemptAt", "createdAt")
	if one["status"] != "succeeded" || one["attempts"] != float64(1) || one["responseStatus"] != float64(200) || one["eventId"] != p["id"] ||
		one["type"] != "space.created" || one["nextAttemptAt"] != nil || one["durationMs"] == nil {
		t.Fatalf("delivery: %v", one)
	}
	// GraphQL lists the same.
	data2, errs := env.GraphQL(admin, `query($o: ID!, $w: ID!) { webhookDeliveries(organizationId: $o, webhookId: $w) { count items { id status responseStatus attempts } } }`,
		map[string]any{"o": env.Org, "w": id})
	if len(errs) > 0 || data2["webhookDeliveries"].(map[string]any)["items"].([]any)[0].(map[string]any)["id"] != one["id"] {
		t.Fatalf("graphql deliveries: %v %+v", data2, errs)
	}

	// Events the resolvers record for webhooks: a page edit, a change
	// request opened and merged, a comment posted and resolved.
	all, allSecret := newHook(t, env, rc.srv.URL+"/all", []string{"page.changed", "change-request.opened", "change-request.merged",
		"change-request.closed", "comment.created", "comment.resolved"}, nil)
	sp := "/v1/spaces/" + space["id"].(string)
	if _, errs := env.GraphQL(admin, `mutation($t: ContentTarget!) { createPage(target: $t, input: {title: "Intro", markdown: "Hello"}) { revision } }`,
		map[string]any{"t": map[string]any{"space": space["id"]}}); len(errs) > 0 {
		t.Fatal(errs)
	}
	cr := env.Must(201, "POST", sp+"/change-requests", admin, map[string]any{"subject": "Fix"}).JSON()
	comment := env.Must(200, "POST", sp+"/comments", admin, map[string]any{"body": map[string]any{"markdown": "Looks good"}}).JSON()
	env.Must(200, "PUT", sp+"/comments/"+comment["id"].(string), admin, map[string]any{"resolved": true})
	env.Must(200, "POST", sp+"/change-requests/"+cr["id"].(string)+"/merge", admin, nil)
	drainHooks(t, env)
	var types []string
	for _, r := range rc.received("/all") {
		if err := r.verify(env, allSecret); err != nil {
			t.Fatal(err)
		}
		types = append(types, r.payload(t)["type"].(string))
	}
	want := map[string]bool{"page.changed": true, "change-request.opened": true, "comment.created": true, "comment.resolved": true, "change-request.merged": true}
	for _, ty := range types {
		delete(want, ty)
	}
	if len(want) != 0 {
		t.Fatalf("events %v: missing %v", types, want)
	}
	_ = all
}

func mustInt(t *testing.T, s string) int64 {
	t.Helper()
	var n int64
	if err := json.Unmarshal([]byte(s), &n); err != nil {
		t.Fatalf("not a number: %q", s)
	}
	return n
}

// Failed attempts are retried on the clock with growing waits; a 4xx is
// not retried; an endpoint failing for 24 hours is disabled, visibly.
func TestWebhookRetriesAndDisabling(t *testing.T) {
	env := apitest.New(t)
	w := env.Server.Resolver.Webhooks
	w.Jitter = func() float64 { return 0.5 } // each wait is 3/4 of the backoff
	rc := newHookReceiver(t)
	admin, hooks := env.Admin.Token, "/v1/orgs/"+env.Org+"/webhooks"
	id, _ := newHook(t, env, rc.srv.URL+"/flaky", []string{"space.created"}, nil)
	deliveries := hooks + "/" + id + "/deliveries"

	rc.answer(503)
	env.Must(201, "POST", "/v1/orgs/"+env.Org+"/spaces", admin, map[string]any{"title": "A"})
	var waits []time.Duration
	for attempt := 1; attempt <= 4; attempt++ {
		if n := drainHooks(t, env); n != 1 {
			t.Fatalf("attempt %d: %d attempts made (now %s, deliveries %s)", attempt, n, env.Clock.Now(), env.Must(200, "GET", deliveries, admin, nil).Body)
		}
		d := env.Must(200, "GET", deliveries, admin, nil).JSON()["items"].([]any)[0].(map[string]any)
		if d["status"] != "pending" || d["attempts"] != float64(attempt) || d["responseStatus"] != float64(503) || !strings.Contains(d["lastError"].(string), "503") {
			t.Fatalf("after attempt %d: %v", attempt, d)
		}
		next, _ := time.Parse(time.RFC3339, d["nextAttemptAt"].(string))
		wait := next.Sub(env.Clock.Now())
		waits = append(waits, wait.Round(100*time.Millisecond))
		// Not due before its time.
		env.Clock.Advance(wait - time.Second)
		if n := drainHooks(t, env); n != 0 {
			t.Fatalf("retried %s early", time.Second)
		}
		env.Clock.Advance(time.Second)
	}
	for i, want := range []time.Duration{22500 * time.Millisecond, 45 * time.Second, 90 * time.Second, 180 * time.Second} {
		if waits[i] != want {
			t.Fatalf("waits %v: wait %d is not %s (30 s doubling, jittered to 3/4)", waits, i+1, want)
		}
	}
	if len(rc.received("/flaky")) != 4 {
		t.Fatalf("receiver got %d attempts", len(rc.received("/flaky")))
	}
	// The endpoint answers again: delivered, and the failure streak ends.
	rc.answer(200)
	drainHooks(t, env)
	if d := env.Must(200, "GET", deliveries, admin, nil).JSON()["items"].([]any)[0].(map[string]any); d["status"] != "succeeded" || d["attempts"] != float64(5) {
		t.Fatalf("after recovery: %v", d)
	}

	// A refusal (4xx other than 408/429) fails at once.
	rc.answer(410)
	env.Must(201, "POST", "/v1/orgs/"+env.Org+"/spaces", admin, map[string]any{"title": "B"})
	drainHooks(t, env)
	if d := env.Must(200, "GET", deliveries, admin, nil).JSON()["items"].([]any)[0].(map[string]any); d["status"] != "failed" || d["attempts"] != float64(1) || d["responseStatus"] != float64(410) {
		t.Fatalf("after a 410: %v", d)
	}

	// Failing for 24 hours: retried until then, then the delivery fails and
	// the endpoint is disabled with its reason.
	rc.answer(500)
	start := env.Clock.Now()
	env.Must(201, "POST", "/v1/orgs/"+env.Org+"/spaces", admin, map[string]any{"title": "C"})
	attempts := 0
	for i := 0; i < 200; i++ {
		attempts += drainHooks(t, env)
		at, ok, err := env.DB.NextWebhookDeliveryAt(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		env.Clock.Advance(at.Sub(env.Clock.Now()))
	}
	elapsed := env.Clock.Now().Sub(start)
	t.Logf("failing endpoint: %d attempts over %s before it was disabled", attempts, elapsed)
	if elapsed < 24*time.Hour || elapsed > 25*time.Hour || attempts < 20 || attempts > 60 {
		t.Fatalf("gave up after %s and %d attempts", elapsed, attempts)
	}
	hook := env.Must(200, "GET", hooks+"/"+id, admin, nil).JSON()
	if hook["active"] != false || !strings.Contains(fmtStr(hook["disabledReason"]), "failed for 24h") || hook["disabledAt"] == nil {
		t.Fatalf("endpoint after 24 hours of failure: %v", hook)
	}
	if d := env.Must(200, "GET", deliveries, admin, nil).JSON()["items"].([]any)[0].(map[string]any); d["status"] != "failed" {
		t.Fatalf("delivery after 24 hours: %v", d)
	}
	// Disabled: nothing more is queued for it.
	before := len(rc.received("/flaky"))
	env.Must(201, "POST", "/v1/orgs/"+env.Org+"/spaces", admin, map[string]any{"title": "D"})
	drainHooks(t, env)
	if len(rc.received("/flaky")) != before {
		t.Fatal("a disabled endpoint was sent an event")
	}
	// Turning it on again clears the reason.
	on := env.Must(200, "PATCH", hooks+"/"+id, admin, map[string]any{"active": true}).JSON()
	if on["active"] != true || on["disabledReason"] != nil || on["disabledAt"] != nil {
		t.Fatalf("re-enabled: %v", on)
	}
}

func fmtStr(v any) string { s, _ := v.(string); return s }

// Rotation: during the grace period deliveries carry both signatures,
// after it only the new one's; replay resends the same event; ping.
func TestWebhookRotationReplayPing(t *testing.T) {
	env := apitest.New(t)
	rc := newHookReceiver(t)
	admin, hooks := env.Admin.Token, "/v1/orgs/"+env.Org+"/webhooks"
	id, oldSecret := newHook(t, env, rc.srv.URL+"/in", []string{"space.created"}, nil)
	hook := hooks + "/" + id

	rotated := env.Must(200, "POST", hook+"/secret/rotate", admin, nil).JSON()
	newSecret := rotated["secret"].(string)
	if newSecret == oldSecret || !strings.HasPrefix(newSecret, "whsec_") || rotated["previousSecretExpiresAt"] == nil {
		t.Fatalf("rotated: %v", rotated)
	}
	if r := env.Must(200, "GET", hook, admin, nil); strings.Contains(string(r.Body), newSecret) {
		t.Fatal("GET shows the rotated secret")
	}
	ping := env.Must(202, "POST", hook+"/ping", admin, nil).JSON()
	if ping["type"] != "ping" || ping["status"] != "pending" {
		t.Fatalf("ping: %v", ping)
	}
	drainHooks(t, env)
	got := rc.received("/in")
	if len(got) != 1 || got[0].payload(t)["type"] != "ping" || got[0].payload(t)["id"] != ping["id"] {
		t.Fatalf("ping deliveries: %d", len(got))
	}
	if got[0].verify(env, newSecret) != nil || got[0].verify(env, oldSecret) != nil {
		t.Fatalf("during the grace period both secrets must verify: %q", got[0].Header.Get("X-Docsapi-Signature"))
	}
	if n := len(strings.Split(got[0].Header.Get("X-Docsapi-Signature"), ",")); n != 2 {
		t.Fatalf("%d signatures during the grace period", n)
	}

	// Replay: the same event id and body, a new attempt.
	env.Must(201, "POST", "/v1/orgs/"+env.Org+"/spaces", admin, map[string]any{"title": "A"})
	drainHooks(t, env)
	first := rc.received("/in")[1]
	eventID := first.payload(t)["id"].(string)
	replayed := env.Must(202, "POST", hook+"/deliveries/"+eventID+"/replay", admin, nil).JSON()
	if replayed["status"] != "pending" || replayed["eventId"] != eventID {
		t.Fatalf("replay: %v", replayed)
	}
	if r := env.Do("POST", hook+"/deliveries/"+eventID+"/replay", admin, nil); r.Status != 409 {
		t.Fatalf("replay of a pending delivery: %d", r.Status)
	}
	drainHooks(t, env)
	again := rc.received("/in")[2]
	if string(again.Body) != string(first.Body) || again.Header.Get("X-Docsapi-Event-Id") != eventID || again.Header.Get("X-Docsapi-Delivery-Attempt") != "2" {
		t.Fatalf("replay sent %s (attempt %s), first %s", again.Body, again.Header.Get("X-Docsapi-Delivery-Attempt"), first.Body)
	}
	env.Must(404, "POST", hook+"/deliveries/nope/replay", admin, nil)
	_, errs := env.GraphQL(admin, `mutation($o: ID!, $w: ID!) { replayWebhookDelivery(organizationId: $o, webhookId: $w, deliveryId: "nope") { id } }`,
		map[string]any{"o": env.Org, "w": id})
	if len(errs) != 1 || errs[0].Code() != "NOT_FOUND" {
		t.Fatalf("graphql replay of an unknown delivery: %+v", errs)
	}

	// After the grace period only the new secret signs.
	env.Clock.Advance(24*time.Hour + time.Minute)
	env.Must(202, "POST", hook+"/ping", admin, nil)
	drainHooks(t, env)
	last := rc.received("/in")[3]
	if last.verify(env, newSecret) != nil || last.verify(env, oldSecret) == nil {
		t.Fatalf("after the grace period: %q", last.Header.Get("X-Docsapi-Signature"))
	}
	if env.Must(200, "GET", hook, admin, nil).JSON()["previousSecretExpiresAt"] != nil {
		t.Fatal("previousSecretExpiresAt shown after the grace period")
	}

	// An inactive endpoint is sent nothing: ping and replay are refused.
	env.Must(200, "PATCH", hook, admin, map[string]any{"active": false})
	env.Must(409, "POST", hook+"/ping", admin, nil)
	env.Must(409, "POST", hook+"/deliveries/"+eventID+"/replay", admin, nil)
}

// The fetch guard: without --allow-private-fetch a loopback endpoint is
// refused at delivery, recorded as failed and not retried.
func TestWebhookFetchGuard(t *testing.T) {
	env := apitest.New(t, apitest.Options{Config: func(c *server.Config) { c.AllowPrivateFetch = false }})
	rc := newHookReceiver(t)
	id, _ := newHook(t, env, rc.srv.URL+"/in", []string{"space.created"}, nil)
	env.Must(201, "POST", "/v1/orgs/"+env.Org+"/spaces", env.Admin.Token, map[string]any{"title": "A"})
	drainHooks(t, env)
	if len(rc.received("/in")) != 0 {
		t.Fatal("a loopback endpoint was reached without --allow-private-fetch")
	}
	d := env.Must(200, "GET", "/v1/orgs/"+env.Org+"/webhooks/"+id+"/deliveries", env.Admin.Token, nil).JSON()["items"].([]any)[0].(map[string]any)
	if d["status"] != "failed" || d["attempts"] != float64(1) || !strings.Contains(fmtStr(d["lastError"]), "fetch guard") {
		t.Fatalf("guarded delivery: %v", d)
	}
}

// FuzzWebhookBody: any body to create or change a webhook is a 201/200 or
// a 400 with the error body, never a 500; the secret never comes back from
// a change.
func FuzzWebhookBody(f *testing.F) {
	env := apitest.New(f, apitest.Options{Config: func(c *server.Config) { c.Outbound = noNetwork{} }})
	hooks := "/v1/orgs/" + env.Org + "/webhooks"
	hook := hooks + "/" + env.Must(201, "POST", hooks, env.Admin.Token, map[string]any{"url": "https://x.test", "events": []string{"space.created"}}).JSON()["id"].(string)
	fx := &fuzzFixture{env: env}
	for _, seed := range []string{`{"url":"https://x.test/a","events":["space.created","page.changed"]}`, `{"url":"http://[::1]:80/","events":["ping"]}`,
		`{"events":[]}`, `{"events":[1,2]}`, `{"url":null,"events":null,"active":null,"description":null}`, `{"active":false,"description":"é"}`,
		`{"url":"https://` + strings.Repeat("a", 2100) + `","events":["space.created"]}`, `{"url":"javascript:alert(1)"}`, `[]`, `{`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, req := range [][2]string{{"POST", hooks}, {"PATCH", hook}} {
			status, answer := fx.send(t, req[0], req[1], body)
			checkAnswer(t, req[0]+" webhook", status, answer)
			if status != 200 && status != 201 && status != 400 {
				t.Fatalf("%s %q: %d %s", req[0], body, status, answer)
			}
			if req[0] == "PATCH" && strings.Contains(string(answer), "whsec_") {
				t.Fatalf("PATCH %q shows the secret: %s", body, answer)
			}
		}
	})
}

// The background worker is woken by a commit that queues a delivery: with
// an hour-long poll, the delivery still arrives at once.
func TestWebhookWorkerWakesOnQueue(t *testing.T) {
	env := apitest.New(t)
	rc := newHookReceiver(t)
	newHook(t, env, rc.srv.URL+"/in", []string{"space.created"}, nil)
	w := env.Server.Resolver.Webhooks
	w.Policy.Poll = time.Hour
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); w.Run(ctx) }()
	defer func() { cancel(); <-done }()
	time.Sleep(50 * time.Millisecond) // the loop is asleep on its poll
	env.Must(201, "POST", "/v1/orgs/"+env.Org+"/spaces", env.Admin.Token, map[string]any{"title": "A"})
	deadline := time.Now().Add(5 * time.Second)
	for len(rc.received("/in")) == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if len(rc.received("/in")) != 1 {
		t.Fatal("the queued delivery was not sent within 5 s with an hour-long poll")
	}
}

// Retention: the sweep deletes the finished deliveries (succeeded or
// failed) whose last attempt is older than the retention, keeps pending
// ones and recent ones (a replay counts as a new attempt), and leaves every
// recent delivery of another organization alone; 0 keeps everything.
func TestWebhookDeliveryRetention(t *testing.T) {
	const days = 24 * time.Hour
	env := apitest.New(t, apitest.Options{Config: func(c *server.Config) { c.WebhookDeliveryRetention = 30 * days }})
	ok, gone := newHookReceiver(t), newHookReceiver(t)
	gone.answer(410) // refused: failed at once, not retried
	admin, hooks := env.Admin.Token, "/v1/orgs/"+env.Org+"/webhooks"
	a, _ := newHook(t, env, ok.srv.URL+"/a", []string{"space.created"}, nil)
	b, _ := newHook(t, env, gone.srv.URL+"/b", []string{"space.created"}, nil)
	other, otherAdmin := env.NewOrg("Other", "admin@other.test")
	o := env.Must(201, "POST", "/v1/orgs/"+other+"/webhooks", otherAdmin.Token, map[string]any{"url": ok.srv.URL + "/o", "events": []string{"space.created"}}).JSON()["id"].(string)
	deliveries := func(org, token, hook string) []string {
		t.Helper()
		var ids []string
		for _, it := range env.Must(200, "GET", "/v1/orgs/"+org+"/webhooks/"+hook+"/deliveries", token, nil).JSON()["items"].([]any) {
			d := it.(map[string]any)
			ids = append(ids, d["eventId"].(string)+":"+d["status"].(string))
		}
		return ids
	}
	create := func(org, token string) {
		t.Helper()
		env.Must(201, "POST", "/v1/orgs/"+org+"/spaces", token, map[string]any{"title": "S"})
	}

	create(env.Org, admin) // day 0: expires (a succeeded, b failed)
	create(env.Org, admin) // day 0: replayed later, so kept
	drainHooks(t, env)
	env.Clock.Advance(20 * days)
	create(other, otherAdmin.Token) // day 20: recent at the purge
	drainHooks(t, env)
	env.Clock.Advance(11 * days)
	aBefore, bBefore := deliveries(env.Org, admin, a), deliveries(env.Org, admin, b)
	if len(aBefore) != 2 || len(bBefore) != 2 || !strings.HasSuffix(aBefore[0], ":succeeded") || !strings.HasSuffix(bBefore[0], ":failed") {
		t.Fatalf("before the purge: a %v, b %v", aBefore, bBefore)
	}
	// Day 31: the second day-0 delivery of a is replayed and sent again
	// (finished today), b's is replayed and still pending.
	replay := func(hook, delivery string) {
		env.Must(202, "POST", hooks+"/"+hook+"/deliveries/"+strings.Split(delivery, ":")[0]+"/replay", admin, nil)
	}
	replay(a, aBefore[0])
	drainHooks(t, env)
	replay(b, bBefore[0])
	create(env.Org, admin) // day 31: queued after the replays, still pending
	aNew, bNew := deliveries(env.Org, admin, a)[0], deliveries(env.Org, admin, b)[0]

	n, err := env.Server.PurgeWebhookDeliveries(context.Background())
	if err != nil || n != 2 {
		t.Fatalf("purge: %d, %v; want 2", n, err)
	}
	if got, want := deliveries(env.Org, admin, a), []string{aNew, aBefore[0]}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("a after the purge: %v, want %v", got, want)
	}
	bPending := strings.Split(bBefore[0], ":")[0] + ":pending"
	if got, want := deliveries(env.Org, admin, b), []string{bNew, bPending}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("b after the purge: %v, want %v", got, want)
	}
	if got := deliveries(other, otherAdmin.Token, o); len(got) != 1 {
		t.Fatalf("the other organization's recent delivery: %v", got)
	}
	env.Must(404, "POST", hooks+"/"+a+"/deliveries/"+strings.Split(aBefore[1], ":")[0]+"/replay", admin, nil) // purged: nothing to replay

	// 40 days on, every finished delivery is gone; pending ones stay.
	drainHooks(t, env) // b's replay and the day-31 deliveries finish now
	env.Clock.Advance(40 * days)
	if n, err := env.Server.PurgeWebhookDeliveries(context.Background()); err != nil || n != 5 {
		t.Fatalf("second purge: %d, %v; want 5", n, err)
	}
	for _, h := range []struct{ org, token, id string }{{env.Org, admin, a}, {env.Org, admin, b}, {other, otherAdmin.Token, o}} {
		if got := deliveries(h.org, h.token, h.id); len(got) != 0 {
			t.Fatalf("webhook %s after the second purge: %v", h.id, got)
		}
	}

	keep := apitest.New(t) // no retention: kept for ever
	k, _ := newHook(t, keep, ok.srv.URL+"/k", []string{"space.created"}, nil)
	keep.Must(201, "POST", "/v1/orgs/"+keep.Org+"/spaces", keep.Admin.Token, map[string]any{"title": "S"})
	drainHooks(t, keep)
	keep.Clock.Advance(10 * 365 * days)
	if n, err := keep.Server.PurgeWebhookDeliveries(context.Background()); err != nil || n != 0 {
		t.Fatalf("purge without retention: %d, %v", n, err)
	}
	if r := keep.Must(200, "GET", "/v1/orgs/"+keep.Org+"/webhooks/"+k+"/deliveries", keep.Admin.Token, nil).JSON()["items"].([]any); len(r) != 1 {
		t.Fatalf("kept deliveries: %d", len(r))
	}
}
