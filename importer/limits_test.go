package importer

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
)

func zipOf(t *testing.T, entries map[string]string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for name, body := range entries {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate})
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(body))
	}
	zw.Close()
	return b.Bytes()
}

// TestZipLimits: path tricks and bombs are refused as bad content (a 400),
// before anything is imported.
func TestZipLimits(t *testing.T) {
	// The byte bounds scaled down (the same code paths, without building
	// 120 MiB archives under the race detector).
	defer func(entry int64) { maxZipEntry = entry }(maxZipEntry)
	maxZipEntry = 20 << 10
	lim := Limits{MaxFiles: 300, MaxBytes: 100 << 10}
	many := map[string]string{}
	for i := range lim.MaxFiles + 1 {
		many[strings.Repeat("d/", i%3)+"p"+strconv.Itoa(i)+".txt"] = ""
	}
	bomb := map[string]string{}
	for i := range 6 {
		bomb["big"+strconv.Itoa(i)+".md"] = strings.Repeat("\x00", int(maxZipEntry)-1) // 6 entries just under the entry bound exceed the total
	}
	for name, entries := range map[string]map[string]string{
		"climbs out":        {"docs/../../etc/passwd.md": "x"},
		"climbs out first":  {"../x.md": "x"},
		"absolute":          {"/etc/x.md": "x"},
		"windows drive":     {"C:/x.md": "x"},
		"backslash":         {"a\\..\\x.md": "x"},
		"control character": {"a\x00b.md": "x"},
		"too deep":          {strings.Repeat("d/", maxZipDepth+1) + "x.md": "x"},
		"name too long":     {strings.Repeat("n", maxZipName+1) + ".md": "x"},
		"too many entries":  many,
		"too large in all":  bomb,
		"one entry too big": {"big.md": strings.Repeat("a", int(maxZipEntry)+1)},
	} {
		_, err := ZipWith(context.Background(), zipOf(t, entries), lim)
		var bad *Error
		if !errors.As(err, &bad) {
			t.Errorf("%s: %v, want bad content", name, err)
		}
	}
	// Deep enough and long enough names are fine.
	if _, err := Zip(context.Background(), zipOf(t, map[string]string{strings.Repeat("d/", maxZipDepth) + "x.md": "# X"})); err != nil {
		t.Fatal(err)
	}
}

type staticFetcher map[string]*Resource

func (s staticFetcher) Fetch(_ context.Context, u string) (*Resource, error) {
	if r, ok := s[u]; ok {
		return r, nil
	}
	return nil, errors.New("not found")
}

// TestHTMLLimits: a document over the size bound is refused; images stop
// at the image limit.
func TestHTMLLimits(t *testing.T) {
	huge := &Resource{URL: "https://example.com/", ContentType: "text/html", Body: []byte("<p>" + strings.Repeat("a", maxHTMLDocument) + "</p>")}
	var bad *Error
	if _, err := HTML(context.Background(), staticFetcher{}, huge, Limits{}); !errors.As(err, &bad) {
		t.Fatalf("huge document: %v", err)
	}
	var page strings.Builder
	f := staticFetcher{}
	for i := range 30 {
		u := "https://example.com/i" + strconv.Itoa(i) + ".png"
		page.WriteString(`<img src="` + u + `">`)
		f[u] = &Resource{URL: u, ContentType: "image/png", Body: []byte("png")}
	}
	res, err := HTML(context.Background(), f, &Resource{URL: "https://example.com/", ContentType: "text/html", Body: []byte("<main>" + page.String() + "</main>")}, Limits{MaxImages: 7})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Files) != 7 {
		t.Fatalf("%d images imported, want 7", len(res.Files))
	}
}
