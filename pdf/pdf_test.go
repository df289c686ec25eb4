package pdf

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"

	lpdf "github.com/ledongthuc/pdf"
)

// Text extracts the text of a PDF (for tests of this package and of the
// API): every page's plain text, joined.
func Text(t testing.TB, data []byte) string {
	t.Helper()
	r, err := lpdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatalf("not a readable PDF: %v", err)
	}
	var b strings.Builder
	for i := 1; i <= r.NumPage(); i++ {
		p := r.Page(i)
		if p.V.IsNull() {
			continue
		}
		s, err := p.GetPlainText(nil)
		if err != nil {
			t.Fatalf("page %d: %v", i, err)
		}
		b.WriteString(s)
	}
	return b.String()
}

func TestRender(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 20, 10))
	img.Set(1, 1, color.RGBA{200, 0, 0, 255})
	var pngData bytes.Buffer
	png.Encode(&pngData, img)
	doc := Document{
		Title: "Handbook",
		Pages: []Page{
			{Title: "Getting started", Markdown: "# Install\n\nRun **the installer** and see [the site](https://example.com).\n\n- one\n- two\n\n1. first\n2. second\n\n```go\nfmt.Println(\"hi\")\n```\n\n> quoted\n\n![diagram](diagram.png)\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n---\n"},
			{Title: "Advanced usage", Depth: 1, Markdown: "Some `code` and *emphasis*. Café ünïcode → arrows.\n"},
			{Title: "FAQ", Markdown: "![missing](nowhere.png)\n"},
		},
		Image: func(dest string) ([]byte, string, bool) {
			if dest == "diagram.png" {
				return pngData.Bytes(), "image/png", true
			}
			return nil, "", false
		},
	}
	data, err := Render(context.Background(), doc)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(data, []byte("%PDF-")) {
		t.Fatalf("not a PDF: %q", data[:10])
	}
	text := Text(t, data)
	for _, want := range []string{"Handbook", "Getting started", "Advanced usage", "FAQ", "Install", "the installer", "the site", "fmt.Println", "quoted", "first", "Caf"} {
		if !strings.Contains(text, want) {
			t.Errorf("PDF text lacks %q:\n%s", want, text)
		}
	}
	if !bytes.Contains(data, []byte("/Subtype /Image")) {
		t.Error("the image was not embedded")
	}
	if !bytes.Contains(data, []byte("https://example.com")) {
		t.Error("the link was not written")
	}
}
