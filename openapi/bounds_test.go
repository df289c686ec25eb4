package openapi

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// nestedSpec is a valid document whose one component schema nests n object
// schemas inline (each two levels: properties, then the property).
func nestedSpec(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"openapi":"3.0.3","info":{"title":"t","version":"1"},"paths":{},"components":{"schemas":{"S":`)
	for range n {
		b.WriteString(`{"type":"object","properties":{"a":`)
	}
	b.WriteString(`{"type":"string"}`)
	b.WriteString(strings.Repeat(`}}`, n))
	b.WriteString(`}}}`)
	return []byte(b.String())
}

// refChainSpec is a valid document of n component schemas, each with a
// property referring to the next.
func refChainSpec(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"openapi":"3.0.3","info":{"title":"t","version":"1"},"paths":{},"components":{"schemas":{`)
	for i := range n {
		fmt.Fprintf(&b, `"S%d":{"type":"object","properties":{"a":{"$ref":"#/components/schemas/S%d"}}},`, i, i+1)
	}
	fmt.Fprintf(&b, `"S%d":{"type":"string"}}}}`, n)
	return []byte(b.String())
}

// manyOperationsSpec is a valid document of n operations with a long
// description each.
func manyOperationsSpec(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"openapi":"3.0.3","info":{"title":"t","version":"1"},"paths":{`)
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"/r%d":{"get":{"operationId":"get%d","description":"%s","responses":{"200":{"description":"OK"}}}}`, i, i, strings.Repeat("words ", 80))
	}
	b.WriteString(`}}`)
	return []byte(b.String())
}

// deepWideSpec is a valid document of about size bytes: component schemas
// each nesting n object schemas inline.
func deepWideSpec(n, size int) []byte {
	one := string(nestedSpec(n))
	inner := one[strings.Index(one, `"S":`)+4 : len(one)-3]
	var b strings.Builder
	b.WriteString(`{"openapi":"3.0.3","info":{"title":"t","version":"1"},"paths":{},"components":{"schemas":{`)
	for i := 0; b.Len() < size; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"S%d":%s`, i, inner)
	}
	b.WriteString(`}}}`)
	return []byte(b.String())
}

// Each schema under MaxDepth, but all of them deep: 1 MB took 8 s to read
// before the depth-work bound.
func TestDepthWorkBound(t *testing.T) {
	start := time.Now()
	_, err := Parse(context.Background(), deepWideSpec(MaxDepth/2-4, 1<<20))
	var pe *ParseError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "nests too much") {
		t.Fatalf("not refused by the depth-work bound: %v", err)
	}
	if took := time.Since(start); took > slowdown*time.Second {
		t.Errorf("took %v", took)
	}
	// The same size, shallow, passes.
	if _, err := Parse(context.Background(), deepWideSpec(4, 256<<10)); err != nil {
		t.Fatalf("a shallow document was refused: %v", err)
	}
}

func TestDepthBound(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name string
		doc  []byte
		ok   bool
	}{
		{"nested under the bound", nestedSpec(MaxDepth/2 - 4), true},
		{"nested over the bound", nestedSpec(MaxDepth/2 + 1), false},
		{"nested 3,000", nestedSpec(3000), false},
		{"nested 30,000", nestedSpec(30000), false},
		{"$ref chain under the bound", refChainSpec(MaxDepth/4 - 2), true},
		{"$ref chain 3,000", refChainSpec(3000), false},
		{"$ref chain 30,000", refChainSpec(30000), false},
		{"$ref cycle", []byte(`{"openapi":"3.0.3","info":{"title":"t","version":"1"},"paths":{},"components":{"schemas":{"A":{"type":"object","properties":{"b":{"$ref":"#/components/schemas/B"}}},"B":{"type":"object","properties":{"a":{"$ref":"#/components/schemas/A"}}}}}}`), true},
		{"yaml nested over the bound", []byte("openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: {}\ncomponents:\n  schemas:\n    S: " + strings.Repeat("[", 200) + strings.Repeat("]", 200) + "\n"), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			_, err := Parse(ctx, c.doc)
			took := time.Since(start)
			var pe *ParseError
			switch {
			case c.ok && err != nil:
				t.Fatalf("refused: %v", err)
			case !c.ok && !errors.As(err, &pe):
				t.Fatalf("accepted, or not a parse error: %v", err)
			case !c.ok && !strings.Contains(err.Error(), fmt.Sprint(MaxDepth)):
				t.Errorf("the error does not name the limit: %v", err)
			}
			// Linear: 30,000 levels (about 1 MB) is refused as fast as a
			// small document is read.
			if took > slowdown*500*time.Millisecond {
				t.Errorf("took %v", took)
			}
		})
	}
}

func TestRenderMarkdownBoundedOutput(t *testing.T) {
	doc := manyOperationsSpec(3000) // about 1.5 MB of Markdown in full
	if _, err := Parse(context.Background(), doc); err != nil {
		t.Fatal(err)
	}
	full, err := RenderMarkdown(context.Background(), doc, true, 64<<20)
	if err != nil || len(full) < 1<<20 {
		t.Fatalf("full render: %d bytes, %v", len(full), err)
	}
	md, err := RenderMarkdown(context.Background(), doc, true, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if len(md) > 1<<20 || len(md) < 1<<19 {
		t.Fatalf("%d bytes, want at most (and near) 1 MiB", len(md))
	}
	if !strings.Contains(md, "This page ends here") || !strings.Contains(md, "1048576 bytes") {
		t.Errorf("no notice naming the limit at the end:\n%s", md[len(md)-400:])
	}
	if !strings.HasPrefix(full, md[:len(md)-600]) {
		t.Error("the truncated page is not a prefix of the full one")
	}
}

func TestRenderMarkdownStopsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := RenderMarkdown(ctx, manyOperationsSpec(100), true, 1<<20); !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
}
