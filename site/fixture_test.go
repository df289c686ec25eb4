package site_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"testing"

	"github.com/golang-jwt/jwt/v5"

	"docsapi/apitest"
)

// everyBlock is a page with every block kind the Markdown converter makes.
const everyBlock = `Every kind of block a page holds, rendered for readers.

## Text and marks

Text with **bold**, *italic*, ~~struck~~ and ` + "`code`" + ` marks, a [link to another page](install.md#requirements) and an [external link](https://example.com/).

## Lists

- One
- Two
  - Nested

1. First
2. Second

- [x] Done
- [ ] To do

## Quotes and hints

> A quote from someone.

> [!NOTE]
> A hint for the reader.

> [!WARNING]
> Careful here.

## Code

` + "```go" + `
package main

func main() { println("hello") }
` + "```" + `

## Table

| Name | Value |
|------|:-----:|
| a    | 1     |
| b    | 2     |

## Images and files

![A diagram](diagram.png)

Download [the diagram](diagram.png).

---

The end.
`

// pngBytes is the seeded image: a 600x200 diagram of three boxes, large
// enough for a phone's pixel density (Lighthouse checks it).
var pngBytes = func() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 600, 200))
	draw.Draw(img, img.Bounds(), &image.Uniform{color.RGBA{0xf6, 0xf8, 0xfa, 0xff}}, image.Point{}, draw.Src)
	for i, c := range []color.RGBA{{0x34, 0x6d, 0xdb, 0xff}, {0x1a, 0x7f, 0x37, 0xff}, {0x9a, 0x67, 0x00, 0xff}} {
		draw.Draw(img, image.Rect(40+i*190, 60, 180+i*190, 140), &image.Uniform{c}, image.Point{}, draw.Src)
	}
	var b bytes.Buffer
	png.Encode(&b, img)
	return b.Bytes()
}()

// readerFixture is a published site: a Guide space (every block kind,
// nested pages, an image) with a Beta variant, and an API section.
type readerFixture struct {
	*apitest.Env
	site, siteID, base, basePath string // API path, id, published URL, its path
	guide, beta, api             string // space ids
	betaSS, betaPath             string
	apiPath                      string
}

func gql(t testing.TB, e *apitest.Env, q string, vars map[string]any) map[string]any {
	t.Helper()
	d, errs := e.GraphQL(e.Admin.Token, q, vars)
	if len(errs) > 0 {
		t.Fatalf("%s: %v", q, errs)
	}
	return d
}

func createPage(t testing.TB, e *apitest.Env, space string, input map[string]any) string {
	t.Helper()
	d := gql(t, e, `mutation($t: ContentTarget!, $i: CreatePageInput!) { createPage(target: $t, input: $i) { page { id } } }`,
		map[string]any{"t": map[string]any{"space": space}, "i": input})
	return d["createPage"].(map[string]any)["page"].(map[string]any)["id"].(string)
}

func newSpace(t testing.TB, e *apitest.Env, title string) string {
	t.Helper()
	return e.Must(201, "POST", "/v1/orgs/"+e.Org+"/spaces", e.Admin.Token, map[string]any{"title": title}).JSON()["id"].(string)
}

// seedGuide fills a space: an overview with every block kind, a group
// with nested pages, and n more pages.
func seedGuide(t testing.TB, e *apitest.Env, space string, n int) {
	t.Helper()
	gql(t, e, `mutation($t: ContentTarget!, $i: UploadFileInput!) { uploadFile(target: $t, input: $i) { revision } }`,
		map[string]any{"t": map[string]any{"space": space}, "i": map[string]any{"name": "diagram.png", "contentType": "image/png", "data": base64.StdEncoding.EncodeToString(pngBytes)}})
	createPage(t, e, space, map[string]any{"title": "Overview", "slug": "overview", "description": "What the guide covers.", "markdown": everyBlock})
	install := createPage(t, e, space, map[string]any{"title": "Install", "slug": "install", "markdown": "Install it.\n\n## Requirements\n\nA computer.\n\n## Steps\n\nRun `make`.\n"})
	createPage(t, e, space, map[string]any{"title": "On Linux", "slug": "linux", "parent": install, "markdown": "Use your package manager: searchable-penguin.\n"})
	for i := range n {
		createPage(t, e, space, map[string]any{"title": fmt.Sprintf("Topic %d", i), "slug": fmt.Sprintf("topic-%d", i),
			"markdown": fmt.Sprintf("Topic %d explains one thing.\n\n## Details\n\nMore about topic %d.\n", i, i)})
	}
}

func newReaderFixture(t testing.TB, visibility string) *readerFixture {
	t.Helper()
	e := apitest.New(t)
	f := &readerFixture{Env: e}
	f.guide, f.beta, f.api = newSpace(t, e, "Guide"), newSpace(t, e, "Guide Beta"), newSpace(t, e, "API")
	seedGuide(t, e, f.guide, 2)
	createPage(t, e, f.beta, map[string]any{"title": "Beta overview", "slug": "overview", "markdown": "The beta guide.\n"})
	createPage(t, e, f.api, map[string]any{"title": "Reference", "slug": "reference", "markdown": "The API reference.\n"})
	admin := e.Admin.Token
	f.site = "/v1/orgs/" + e.Org + "/sites/" + e.Must(201, "POST", "/v1/orgs/"+e.Org+"/sites", admin,
		map[string]any{"title": "Acme Docs", "type": "ultimate", "visibility": visibility, "spaces": []string{f.guide, f.beta}}).JSON()["id"].(string)
	f.siteID = f.site[strings.LastIndex(f.site, "/")+1:]
	e.Must(201, "POST", f.site+"/sections", admin, map[string]any{"spaceId": f.api, "title": "API"})
	e.Must(200, "POST", f.site+"/publish", admin, nil)
	var st struct {
		Structure []struct {
			ID, Path   string
			Default    bool
			SiteSpaces []struct {
				ID, Path string
				Space    struct{ ID string }
			}
		}
	}
	json.Unmarshal(e.Must(200, "GET", f.site+"/structure", admin, nil).Body, &st)
	for _, sec := range st.Structure {
		for _, ss := range sec.SiteSpaces {
			switch ss.Space.ID {
			case f.beta:
				f.betaSS, f.betaPath = ss.ID, ss.Path
			case f.api:
				f.apiPath = sec.Path
			}
		}
	}
	basename := e.Must(200, "GET", f.site, admin, nil).JSON()["basename"].(string)
	f.basePath = "/sites/" + e.Org + "/" + basename
	f.base = e.HTTP.URL + f.basePath
	return f
}

// client is a browser-like client: cookies kept, redirects not followed.
func (f *readerFixture) client(t testing.TB) *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

type page struct {
	status int
	header http.Header
	body   string
}

func get(t testing.TB, c *http.Client, u string, headers ...string) page {
	t.Helper()
	req, _ := http.NewRequest("GET", u, nil)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return page{res.StatusCode, res.Header, string(b)}
}

func visitorToken(t testing.TB, secret string, claims jwt.MapClaims) string {
	t.Helper()
	s, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString([]byte(secret))
	if err != nil {
		t.Fatal(err)
	}
	return s
}
