package site_test

import (
	"context"
	"docsapi/internal/browsertest"
	"docsapi/internal/samltest"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/golang-jwt/jwt/v5"
)

// Browser tests of the reader site, in Debian's headless Chromium with the
// playground test's options (playground/browser_test.go). With
// DOCSAPI_SITE_SCREENSHOTS=<folder> the light and dark screenshots of the
// docs (site-light.png, site-dark.png) are written there.

// browser is a headless Chromium recording every request and every
// console problem of its pages.
type browser struct {
	ctx      context.Context
	mu       sync.Mutex
	requests []string
	problems []string
}

func newBrowser(t *testing.T, extra ...chromedp.ExecAllocatorOption) *browser {
	opts := append(browsertest.Options(t, 1280, 800), extra...)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	ctx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancelBrowser := chromedp.NewContext(ctx)
	t.Cleanup(cancelBrowser)
	b := &browser{ctx: ctx}
	chromedp.ListenTarget(ctx, func(ev any) {
		b.mu.Lock()
		defer b.mu.Unlock()
		switch e := ev.(type) {
		case *network.EventRequestWillBeSent:
			b.requests = append(b.requests, e.Request.URL)
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.APITypeError || e.Type == runtime.APITypeWarning {
				for _, a := range e.Args {
					b.problems = append(b.problems, "console: "+string(a.Value)+a.Description)
				}
			}
		case *log.EventEntryAdded:
			// Network entries are the statuses the tests ask for (404, 401).
			if e.Entry.Source != log.SourceNetwork {
				b.problems = append(b.problems, string(e.Entry.Source)+": "+e.Entry.Text)
			}
		case *runtime.EventExceptionThrown:
			b.problems = append(b.problems, "exception: "+e.ExceptionDetails.Text)
		}
	})
	if err := chromedp.Run(ctx, network.Enable(), log.Enable()); err != nil {
		t.Fatal(err)
	}
	return b
}

func (b *browser) run(t *testing.T, what string, actions ...chromedp.Action) {
	t.Helper()
	if err := chromedp.Run(b.ctx, actions...); err != nil {
		b.mu.Lock()
		defer b.mu.Unlock()
		t.Fatalf("%s: %v (problems %v)", what, err, b.problems)
	}
}

// check fails on console problems and on requests anywhere but host.
func (b *browser) check(t *testing.T, host string) {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, p := range b.problems {
		t.Errorf("browser console: %s", p)
	}
	for _, raw := range b.requests {
		u, err := url.Parse(raw)
		if err != nil || u.Scheme != "data" && u.Host != host {
			t.Errorf("the page made a request to %s: only %s is allowed", raw, host)
		}
	}
	t.Logf("%d requests, all to %s", len(b.requests), host)
	b.problems, b.requests = nil, nil
}

// h1 waits for the page's title to be want.
func h1(want string) chromedp.Action {
	return until(`(document.querySelector('article h1') || {textContent: ''}).textContent === ` + jsString(want))
}

// until polls a script until it is true, across navigations (a click
// that loads a page destroys the context a plain Poll runs in).
func until(script string) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		deadline := time.Now().Add(10 * time.Second)
		for {
			var ok bool
			if err := chromedp.Evaluate(script, &ok).Do(ctx); err == nil && ok {
				return nil
			}
			if time.Now().After(deadline) {
				var where string
				chromedp.Evaluate(`location.href + ' | ' + document.title + ' | ' + (document.getElementById('results') || {innerText: ''}).innerText`, &where).Do(ctx)
				return fmt.Errorf("timed out waiting for %s (at %s)", script, where)
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
}

func jsString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

func screenshot(t *testing.T, b *browser, name string) {
	dir := os.Getenv("DOCSAPI_SITE_SCREENSHOTS")
	if dir == "" {
		return
	}
	var png []byte
	b.run(t, "screenshot", chromedp.Sleep(200*time.Millisecond), chromedp.CaptureScreenshot(&png))
	if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestReaderInBrowser(t *testing.T) {
	b := newBrowser(t)
	f := newReaderFixture(t, "public")
	host := strings.TrimPrefix(f.HTTP.URL, "http://")
	b.run(t, "the site root",
		emulation.SetEmulatedMedia().WithFeatures([]*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "light"}}),
		chromedp.Navigate(f.base),
		h1("Overview"),
		// Every block kind is on the page.
		chromedp.WaitVisible(`pre.chroma span.kd`, chromedp.ByQuery),
		chromedp.WaitVisible(`.hint-warning`, chromedp.ByQuery),
		chromedp.WaitVisible(`table th`, chromedp.ByQuery),
		chromedp.WaitVisible(`.images img[alt="A diagram"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`ul.tasks input[type=checkbox]`, chromedp.ByQuery),
		chromedp.WaitVisible(`.code .copy`, chromedp.ByQuery), // shown by the script
		until(`document.querySelector('.images img').complete && document.querySelector('.images img').naturalWidth === 600`),
	)
	screenshot(t, b, "site-light.png")
	b.run(t, "navigation",
		chromedp.Click(`a[rel=next]`, chromedp.ByQuery), h1("Install"),
		chromedp.Click(`nav.side a[href$="/install/linux"]`, chromedp.ByQuery), h1("On Linux"),
		chromedp.WaitVisible(`nav.side a[aria-current=page]`, chromedp.ByQuery),
		chromedp.Click(`nav.crumbs a[href$="/install"]`, chromedp.ByQuery), h1("Install"),
		chromedp.Click(`nav.toc a[href="#steps"]`, chromedp.ByQuery),
	)
	b.run(t, "search, keyboard first",
		chromedp.KeyEvent("/"),
		until(`document.activeElement.id === 'q'`),
		// DevTools sends the key's character as an event of its own, which
		// the page's preventDefault does not cancel as a real key's is.
		chromedp.Sleep(100*time.Millisecond),
		chromedp.Evaluate(`document.getElementById("q").value = ""`, nil),
		chromedp.SendKeys(`#q`, "penguin", chromedp.ByID),
		// Results come as one types (a short prefix matches more pages):
		// the last query's list has the page first.
		chromedp.Sleep(400*time.Millisecond),
		until(`(document.querySelector('#results a') || {textContent: ''}).textContent.includes('On Linux')`),
		chromedp.KeyEvent(kb.ArrowDown), chromedp.KeyEvent(kb.Enter),
		h1("On Linux"),
	)
	b.run(t, "theme switch",
		chromedp.Click(`#theme`, chromedp.ByID), // system -> light
		until(`document.documentElement.dataset.theme === 'light'`),
		chromedp.Click(`#theme`, chromedp.ByID), // light -> dark
		until(`document.documentElement.dataset.theme === 'dark'`),
	)
	b.run(t, "the theme is kept", chromedp.Navigate(f.base), h1("Overview"),
		until(`document.documentElement.dataset.theme === 'dark' && getComputedStyle(document.body).backgroundColor === 'rgb(13, 17, 23)'`),
		chromedp.Evaluate(`window.scrollTo(0, document.getElementById('quotes-and-hints').offsetTop - 80)`, nil))
	screenshot(t, b, "site-dark.png")
	b.run(t, "variant switch",
		chromedp.Click(`details.variants summary`, chromedp.ByQuery),
		chromedp.Click(`//details[@class="variants"]//a[text()="Guide Beta"]`, chromedp.BySearch),
		h1("Beta overview"),
		chromedp.Click(`nav.tabs a[href$="/`+f.apiPath+`"]`, chromedp.ByQuery), h1("Reference"),
	)
	b.run(t, "a missing page", chromedp.Navigate(f.base+"/no/such/page"), h1("Page not found"))
	b.check(t, host)
}

func TestReaderAccessInBrowser(t *testing.T) {
	b := newBrowser(t)
	f := newReaderFixture(t, "share-link")
	key := f.shareKey(t, map[string]any{"name": "Partner", "password": "open sesame"})
	b.run(t, "password-protected share link",
		chromedp.Navigate(f.base+"/install?share="+url.QueryEscape(key)),
		chromedp.WaitVisible(`#password`, chromedp.ByID),
		chromedp.SendKeys(`#password`, "open sesame", chromedp.ByID),
		chromedp.Submit(`form.password`, chromedp.ByQuery),
		h1("Install"),
		chromedp.Navigate(f.base+"/install/linux"), h1("On Linux"),
	)
	b.check(t, strings.TrimPrefix(f.HTTP.URL, "http://"))

	v := newReaderFixture(t, "visitor-auth")
	v.adaptive(t)
	secret := v.visitorSecret(t)
	exp := v.Clock.Now().Add(time.Hour).Unix()
	plain := visitorToken(t, secret, jwt.MapClaims{"exp": exp})
	beta := visitorToken(t, secret, jwt.MapClaims{"exp": exp, "beta": true})
	var loc string
	b.run(t, "visitor token, variant hidden by its condition",
		chromedp.Navigate(v.base+"/?jwt_token="+plain), h1("Overview"),
		chromedp.Location(&loc),
		chromedp.Navigate(v.base+"/"+v.betaPath), h1("Page not found"),
	)
	if strings.Contains(loc, "jwt_token") {
		t.Errorf("the token stayed in the URL: %s", loc)
	}
	b.run(t, "visitor token, variant shown",
		chromedp.Navigate(v.base+"/?jwt_token="+beta), h1("Overview"),
		chromedp.Navigate(v.base+"/"+v.betaPath), h1("Beta overview"),
	)
	b.check(t, strings.TrimPrefix(v.HTTP.URL, "http://"))
}

// TestMemberAppViewInBrowser: a space's urls.app opens the sign-in page,
// a member types a personal API token, and lands on the page they asked
// for, read from the space; the token never appears in an address.
func TestMemberAppViewInBrowser(t *testing.T) {
	b := newBrowser(t)
	f := newReaderFixture(t, "public")
	var loc string
	b.run(t, "sign in to the app view",
		chromedp.Navigate(f.HTTP.URL+"/app/spaces/"+f.guide+"/install"),
		chromedp.WaitVisible(`#token`, chromedp.ByID),
		chromedp.SendKeys(`#token`, f.Admin.Token, chromedp.ByID),
		chromedp.Submit(`form.password`, chromedp.ByQuery),
		h1("Install"),
		chromedp.Location(&loc),
	)
	if strings.Contains(loc, f.Admin.Token) || !strings.HasSuffix(loc, "/app/spaces/"+f.guide+"/install") {
		t.Errorf("after signing in: %s", loc)
	}
	b.check(t, strings.TrimPrefix(f.HTTP.URL, "http://"))
}

// TestMemberAppViewSSOInBrowser: in Chromium, a member signs in to the app
// view through the organization's identity provider, served at another
// site (idp.test, resolved to loopback), so the answer comes back as a
// cross-site POST as from Okta: the SameSite=Lax cookies of the flow must
// still carry the sign-in to the page asked for.
func TestMemberAppViewSSOInBrowser(t *testing.T) {
	f := newReaderFixture(t, "public")
	var signIn http.Handler = http.NotFoundHandler()
	idp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { signIn.ServeHTTP(w, r) }))
	t.Cleanup(idp.Close)
	_, port, _ := strings.Cut(strings.TrimPrefix(idp.URL, "http://"), ":")
	ip := samltest.New(t, "http://idp.test:"+port+"/saml")
	signIn = ip.SignInPage("jane@example.com")
	f.Must(201, "POST", "/v1/orgs/"+f.Org+"/saml", f.Admin.Token, map[string]any{"label": "Okta",
		"entityID": ip.EntityID(), "ssoURL": ip.SSOURL(), "certificate": ip.CertPEM, "defaultRole": "read"})
	b := newBrowser(t, chromedp.Flag("host-resolver-rules", "MAP idp.test 127.0.0.1, MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"))
	var loc string
	b.run(t, "sign in to the app view with SSO",
		chromedp.Navigate(f.HTTP.URL+"/app/spaces/"+f.guide+"/install"),
		chromedp.WaitVisible(`.sso a`, chromedp.ByQuery),
		chromedp.Click(`.sso a`, chromedp.ByQuery),
		h1("Install"),
		chromedp.Location(&loc),
	)
	if strings.Contains(loc, "dapi_") || loc != f.HTTP.URL+"/app/spaces/"+f.guide+"/install" {
		t.Errorf("after signing in: %s", loc)
	}
	b.mu.Lock()
	sawIdP := slices.ContainsFunc(b.requests, func(u string) bool { return strings.HasPrefix(u, "http://idp.test:"+port+"/saml/sso?") })
	b.requests = slices.DeleteFunc(b.requests, func(u string) bool { return strings.HasPrefix(u, "http://idp.test:") })
	b.mu.Unlock()
	if !sawIdP {
		t.Error("the browser never went to the identity provider")
	}
	b.check(t, strings.TrimPrefix(f.HTTP.URL, "http://"))
}

// TestCustomizedSiteInBrowser: the site's header menu, footer and custom
// font (a system font wrapped as WOFF, uploaded as the organization's)
// work in Chromium, the font loaded from docsapi, nothing from elsewhere.
func TestCustomizedSiteInBrowser(t *testing.T) {
	b := newBrowser(t)
	ttf, err := os.ReadFile("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
	if err != nil {
		t.Skip("no DejaVu Sans to make the test's font from (Chromium's fonts-dejavu): ", err)
	}
	woff, err := woffOf(ttf)
	if err != nil {
		t.Fatal(err)
	}
	f := newReaderFixture(t, "public")
	f.customize(t, woff)
	var family string
	b.run(t, "a customized page",
		chromedp.Navigate(f.base+"/install/linux"), h1("On Linux"),
		chromedp.WaitVisible(`footer .copyright`, chromedp.ByQuery),
		chromedp.WaitVisible(`footer .fgroup a[href="https://example.com/about"]`, chromedp.ByQuery),
		// The font is used and loaded (document.fonts settles once the
		// face's file is fetched and decoded).
		until(`document.fonts.status === 'loaded' && [...document.fonts].some(f => f.family.includes('Acme Sans') && f.status === 'loaded')`),
		chromedp.Evaluate(`getComputedStyle(document.body).fontFamily`, &family),
		chromedp.Click(`details.hmenu summary`, chromedp.ByQuery),
		chromedp.Click(`//details[@class="hmenu"]//a[text()="Installing"]`, chromedp.BySearch),
		h1("Install"),
	)
	if !strings.HasPrefix(family, `"Acme Sans"`) {
		t.Errorf("body font %q", family)
	}
	// The footer's logo is an https image elsewhere, allowed for site
	// images (as the icon): the only request off the server, and expected.
	b.mu.Lock()
	kept := b.requests[:0]
	for _, r := range b.requests {
		if !strings.HasPrefix(r, "https://example.com/logo") {
			kept = append(kept, r)
		}
	}
	b.requests = kept
	b.mu.Unlock()
	b.check(t, strings.TrimPrefix(f.HTTP.URL, "http://"))
}
