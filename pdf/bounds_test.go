package pdf

import (
	"bytes"
	"context"
	"errors"
	"fmt"
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
