package playground_test

import (
	"context"
	"docsapi/internal/browsertest"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"docsapi/apitest"
)

// chromium finds Debian's browser ($DOCSAPI_CHROMIUM wins). Without it the
// test skips on a developer's machine and fails in CI (CI=true), where
// .ci/run installs it, so that CI proves the playground works.

// TestPlaygroundInBrowser opens /graphql in headless Chromium, types a
// token, runs the example query and finds its result in the page; it
// opens the schema explorer and finds a description from the .graphqls
// files; and every request the page made went to the docsapi server on
// loopback, with no Content Security Policy violation.
func TestPlaygroundInBrowser(t *testing.T) {
	env := apitest.New(t)
	env.Must(201, "POST", "/v1/orgs/"+env.Org+"/spaces", env.Admin.Token, map[string]any{"title": "Handbook"})
	server, _ := url.Parse(env.HTTP.URL)

	opts := browsertest.Options(t, 1200, 720)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ctx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelAlloc()
	ctx, cancelBrowser := chromedp.NewContext(ctx)
	defer cancelBrowser()

	var mu sync.Mutex
	var requests, problems []string
	chromedp.ListenTarget(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *network.EventRequestWillBeSent:
			requests = append(requests, e.Request.Method+" "+e.Request.URL)
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.APITypeError {
				for _, a := range e.Args {
					problems = append(problems, string(a.Value)+a.Description)
				}
			}
		case *log.EventEntryAdded: // CSP violations are reported here
			problems = append(problems, string(e.Entry.Source)+": "+e.Entry.Text)
		case *runtime.EventExceptionThrown:
			problems = append(problems, e.ExceptionDetails.Text+" "+exceptionText(e.ExceptionDetails))
		}
	})

	var result, docs string
	err := chromedp.Run(ctx,
		network.Enable(),
		log.Enable(),
		chromedp.Navigate(env.HTTP.URL+"/graphql"),
		chromedp.WaitVisible(`#token`, chromedp.ByID),
		chromedp.WaitVisible(`.graphiql-execute-button`, chromedp.ByQuery),
		chromedp.Sleep(700*time.Millisecond), // time for a schema fetch, were one made without a token
		chromedp.ActionFunc(func(context.Context) error {
			// Before a token is given the page asks the server nothing: a
			// schema fetch would greet the user with a 401.
			mu.Lock()
			defer mu.Unlock()
			for _, r := range requests {
				if strings.HasPrefix(r, "POST ") {
					return fmt.Errorf("before any token the page sent %s", r)
				}
			}
			return nil
		}),
		chromedp.SendKeys(`#token`, env.Admin.Token, chromedp.ByID),
		chromedp.Sleep(700*time.Millisecond), // the field's debounce re-renders with the token
		chromedp.Click(`.graphiql-execute-button`, chromedp.ByQuery),
		chromedp.Poll(`(document.querySelector('.graphiql-response') || {innerText: ''}).innerText.includes('Handbook')`, nil,
			chromedp.WithPollingTimeout(30*time.Second)),
		chromedp.Text(`.graphiql-response`, &result, chromedp.ByQuery),
	)
	if err != nil {
		t.Fatalf("running the example query: %v (requests %v, problems %v)", err, requests, problems)
	}
	if shot := os.Getenv("DOCSAPI_PLAYGROUND_SCREENSHOT"); shot != "" {
		var png []byte
		if err := chromedp.Run(ctx, chromedp.CaptureScreenshot(&png)); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(shot, png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	err = chromedp.Run(ctx,
		chromedp.Click(`button[aria-label="Show Documentation Explorer"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`.graphiql-doc-explorer`, chromedp.ByQuery),
		chromedp.Click(`//a[contains(@class, "graphiql-doc-explorer-type-name") and text()="Query"]`, chromedp.BySearch),
		chromedp.Poll(`document.querySelector('.graphiql-doc-explorer').innerText.includes('viewer')`, nil,
			chromedp.WithPollingTimeout(20*time.Second)),
		chromedp.Text(`.graphiql-doc-explorer`, &docs, chromedp.ByQuery),
	)
	if err != nil {
		t.Fatalf("opening the schema explorer: %v", err)
	}

	for _, want := range []string{`"title": "Acme"`, `"title": "Handbook"`, `"email": "admin@acme.test"`} {
		if !strings.Contains(result, want) {
			t.Errorf("result lacks %s:\n%s", want, result)
		}
	}
	if !strings.Contains(docs, "The user the request's token belongs to") {
		t.Errorf("the schema explorer lacks the descriptions of the .graphqls files:\n%s", docs)
	}

	mu.Lock()
	defer mu.Unlock()
	sawAsset, sawQuery := false, false
	for _, r := range requests {
		method, raw, _ := strings.Cut(r, " ")
		u, err := url.Parse(raw)
		if err != nil {
			t.Errorf("request to an unparsable URL %q", raw)
			continue
		}
		if u.Scheme == "data" {
			continue // fonts and the icon, inside the stylesheet and the page
		}
		if u.Host != server.Host {
			t.Errorf("the page made a request to %s: only %s (loopback) is allowed", raw, server.Host)
		}
		sawAsset = sawAsset || u.Path == "/graphql/assets/vendor/graphiql.min.js"
		sawQuery = sawQuery || (method == "POST" && u.Path == "/graphql")
	}
	t.Logf("%d requests, all to %s; result %d bytes", len(requests), server.Host, len(result))
	if !sawAsset || !sawQuery {
		t.Errorf("requests seen do not include the assets and a query: %v", requests)
	}
	for _, p := range problems {
		if strings.Contains(p, "Content Security Policy") || strings.Contains(p, "Refused to") {
			t.Errorf("browser console: %s", p)
		}
	}
}

func exceptionText(d *runtime.ExceptionDetails) string {
	if d.Exception != nil {
		return d.Exception.Description
	}
	return ""
}

// TestPlaygroundRunsSubscription: the playground runs a subscription over
// a WebSocket (the token in connection_init) and shows the event a REST
// write causes, with no Content Security Policy violation.
func TestPlaygroundRunsSubscription(t *testing.T) {
	env := apitest.New(t)
	space := env.Must(201, "POST", "/v1/orgs/"+env.Org+"/spaces", env.Admin.Token, map[string]any{"title": "Handbook"}).JSON()["id"].(string)

	opts := browsertest.Options(t, 1200, 720)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ctx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelAlloc()
	ctx, cancelBrowser := chromedp.NewContext(ctx)
	defer cancelBrowser()
	var mu sync.Mutex
	var problems []string
	chromedp.ListenTarget(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *log.EventEntryAdded:
			problems = append(problems, string(e.Entry.Source)+": "+e.Entry.Text)
		case *runtime.EventExceptionThrown:
			problems = append(problems, e.ExceptionDetails.Text+" "+exceptionText(e.ExceptionDetails))
		}
	})
	query := `subscription Live { commentUpdated(spaceId: "` + space + `") { id body { markdown } } }`
	err := chromedp.Run(ctx,
		log.Enable(),
		chromedp.Navigate(env.HTTP.URL+"/graphql"),
		chromedp.WaitVisible(`#token`, chromedp.ByID),
		chromedp.SendKeys(`#token`, env.Admin.Token, chromedp.ByID),
		chromedp.Sleep(700*time.Millisecond),
		chromedp.WaitVisible(`.graphiql-query-editor .CodeMirror`, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelector('.graphiql-query-editor .CodeMirror').CodeMirror.setValue(`+strconvQuote(query)+`)`, nil),
		chromedp.Sleep(700*time.Millisecond), // GraphiQL reads the new operation's name
		chromedp.Click(`.graphiql-execute-button`, chromedp.ByQuery),
	)
	if err != nil {
		t.Fatalf("starting the subscription: %v (problems %v)", err, problems)
	}
	deadline := time.Now().Add(20 * time.Second)
	for env.Server.Resolver.Live.Subscribers() == 0 {
		if time.Now().After(deadline) {
			var shown, sent string
			chromedp.Run(ctx, chromedp.Text(`.graphiql-response`, &shown, chromedp.ByQuery),
				chromedp.Evaluate(`document.querySelector('.graphiql-query-editor .CodeMirror').CodeMirror.getValue()`, &sent))
			t.Fatalf("the playground did not subscribe: it shows %q for %q (problems %v)", shown, sent, problems)
		}
		time.Sleep(20 * time.Millisecond)
	}
	env.Must(200, "POST", "/v1/spaces/"+space+"/comments", env.Admin.Token, map[string]any{"body": map[string]any{"markdown": "Seen live"}})
	var result string
	err = chromedp.Run(ctx,
		chromedp.Poll(`(document.querySelector('.graphiql-response') || {innerText: ''}).innerText.includes('Seen live')`, nil,
			chromedp.WithPollingTimeout(20*time.Second)),
		chromedp.Text(`.graphiql-response`, &result, chromedp.ByQuery),
	)
	if err != nil {
		t.Fatalf("waiting for the event: %v (problems %v)", err, problems)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, p := range problems {
		if strings.Contains(p, "Content Security Policy") || strings.Contains(p, "Refused to") {
			t.Errorf("browser console: %s", p)
		}
	}
}

func strconvQuote(s string) string { b, _ := json.Marshal(s); return string(b) }
