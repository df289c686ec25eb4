package site_test

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"docsapi/site"
)

// withCookies is a request of u carrying cookies (what a visitor's
// browser, or anyone, may send).
func withCookies(t *testing.T, c *http.Client, u string, cookies ...*http.Cookie) page {
	t.Helper()
	req, err := http.NewRequest("GET", u, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, ck := range cookies {
		req.AddCookie(ck)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return page{status: resp.StatusCode, header: resp.Header}
}

// Arbitrary cookies neither fill the cache with copies of a page nor go
// around it: a public page is rendered once, whatever cookies come with
// the requests that follow (a visitor cookie that is no valid apiToken
// reads as the public). (A share cookie that names no share link answers
// 404, not cached, as the API refuses an unknown key.)
func TestCookiesDoNotKeyTheCache(t *testing.T) {
	f := newReaderFixture(t, "public")
	c := f.client(t)
	first := get(t, c, f.base+"/install")
	if first.status != 200 {
		t.Fatalf("%d", first.status)
	}
	// Each request with cookies is measured on its own, right after a
	// request without (which renders the page again if a write moved the
	// change version meanwhile): on PostgreSQL any commit in the cluster
	// moves it, and 50 requests in a row are rarely still.
	renders := int64(0)
	for i := range 50 {
		renders += rendersWhileStill(t, f, func() int64 {
			get(t, c, f.base+"/install")
			before := site.Renders()
			v := "garbage-" + strconv.Itoa(i)
			r := withCookies(t, c, f.base+"/install", &http.Cookie{Name: "docsapi_visit", Value: v}, &http.Cookie{Name: "tracker", Value: v})
			if r.status != 200 || r.header.Get("ETag") != first.header.Get("ETag") {
				t.Fatalf("with cookies %d: %d", i, r.status)
			}
			return site.Renders() - before
		})
	}
	if renders != 0 {
		t.Errorf("%d renders for 50 requests of a cached page with arbitrary cookies", renders)
	}
}

// rendersWhileStill runs measure (which counts the renders it expects) and
// returns its count, measuring again (up to five times) while the
// database's change version moved meanwhile: a write rightly renders a
// cached page again, and on PostgreSQL every commit moves the version (an
// asynchronous delivery after the fixture's writes too).
func rendersWhileStill(t *testing.T, f *readerFixture, measure func() int64) int64 {
	t.Helper()
	ctx := context.Background()
	for range 5 {
		v0, err := f.DB.ChangeVersion(ctx)
		if err != nil {
			t.Fatal(err)
		}
		n := measure()
		if v1, err := f.DB.ChangeVersion(ctx); err != nil {
			t.Fatal(err)
		} else if v1 == v0 {
			return n
		}
		t.Logf("the change version moved during the measurement (%d renders); measuring again", n)
	}
	t.Fatal("the change version moved during each of five measurements")
	return 0
}

// Visitors with the same claims share a class (and its cached pages),
// whatever apiToken their cookie holds; other claims are another class.
func TestVisitorClassIsTheClaims(t *testing.T) {
	f := newReaderFixture(t, "visitor-auth")
	f.adaptive(t)
	secret := f.visitorSecret(t)
	open := func(claims jwt.MapClaims) *http.Client {
		c := f.client(t)
		claims["exp"] = f.Clock.Now().Add(time.Hour).Unix()
		if r := get(t, c, f.base+"/?jwt_token="+url.QueryEscape(visitorToken(t, secret, claims))); r.status != 303 {
			t.Fatalf("token: %d", r.status)
		}
		f.Clock.Advance(time.Second) // the next apiToken differs
		return c
	}
	a, b := open(jwt.MapClaims{"beta": false}), open(jwt.MapClaims{"beta": false})
	n := rendersWhileStill(t, f, func() int64 {
		if r := get(t, a, f.base+"/install"); r.status != 200 {
			t.Fatalf("a: %d", r.status)
		}
		before := site.Renders()
		if r := get(t, b, f.base+"/install"); r.status != 200 {
			t.Fatalf("b: %d", r.status)
		}
		return site.Renders() - before
	})
	if n != 0 {
		t.Errorf("the same claims under another apiToken rendered again (%d)", n)
	}
	other := open(jwt.MapClaims{"beta": true})
	before := site.Renders()
	if r := get(t, other, f.base+"/install"); r.status != 200 {
		t.Fatalf("other: %d", r.status)
	}
	if n := site.Renders() - before; n != 1 {
		t.Errorf("other claims: %d renders, want their own (1)", n)
	}
}
