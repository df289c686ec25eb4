package pdf

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"runtime"
	"strings"
	"testing"
	"time"

	lpdf "github.com/ledongthuc/pdf"

	"docsapi/imagecheck/imagechecktest"
)

func TestDecompressionBombIsNotDecoded(t *testing.T) {
	bomb := imagechecktest.BombPNG(15000, 15000)
	t.Logf("bomb: %d bytes", len(bomb))
	doc := Document{
		Title: "Bombs",
		Pages: []Page{{Title: "Page", Markdown: "Before.\n\n![alt](bomb.png)\n\nAfter.\n"}},
		Image: func(string) ([]byte, string, bool) { return bomb, "image/png", true },
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	data, err := Render(context.Background(), doc)
	took := time.Since(start)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; took > time.Second || alloc > 16<<20 {
		t.Errorf("took %v and allocated %d MB: the image was decoded", took, alloc>>20)
	}
	text := Text(t, data)
	if !strings.Contains(text, "15000x15000") || !strings.Contains(text, "After") {
		t.Errorf("no placeholder naming the image's size:\n%s", text)
	}
}

func TestSheetsAreBounded(t *testing.T) {
	page := strings.Repeat("A paragraph of text that fills a line or two of the sheet.\n\n", 2000)
	var pages []Page
	for i := range 200 {
		pages = append(pages, Page{Title: fmt.Sprint("Page ", i), Markdown: page})
	}
	data, err := Render(context.Background(), Document{Title: "Long", Pages: pages})
	if err != nil {
		t.Fatal(err)
	}
	r, err := lpdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if n := r.NumPage(); n > MaxSheets+1 {
		t.Fatalf("%d sheets, bound %d", n, MaxSheets)
	}
	last, err := r.Page(r.NumPage()).GetPlainText(nil)
	if err != nil || !strings.Contains(last, "The document ends here") {
		t.Errorf("no notice of the cut on the last sheet: %v\n%s", err, last)
	}
	t.Logf("%d sheets, %d bytes", r.NumPage(), len(data))
}

func TestRenderStopsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Render(ctx, Document{Title: "x", Pages: []Page{{Title: "p", Markdown: "text\n"}}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("%v", err)
	}
}

func TestImagesOfADocumentShareABudget(t *testing.T) {
	defer func(p, b int) { maxImagePixels, maxImageBytes = p, b }(maxImagePixels, maxImageBytes)
	maxImagePixels = 2 * 100 * 100
	img := image.NewRGBA(image.Rect(0, 0, 100, 100))
	var data bytes.Buffer
	png.Encode(&data, img)
	doc := Document{
		Title: "Images",
		Pages: []Page{{Title: "Page", Markdown: "![a](a.png)\n\n![b](b.png)\n\n![c](c.png)\n"}},
		Image: func(string) ([]byte, string, bool) { return data.Bytes(), "image/png", true },
	}
	out, err := Render(context.Background(), doc)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(out, []byte("/Subtype /Image")); n != 2 {
		t.Errorf("%d images embedded, want the 2 the budget holds", n)
	}
	if text := Text(t, out); !strings.Contains(text, "image c.png not shown") {
		t.Errorf("no placeholder for the image over the budget:\n%s", text)
	}
}
