package openapi

import (
	"context"
	"net/url"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// MaxDepth bounds the nesting of a document, counting a local $ref as the
// levels of what it names: kin-openapi decodes every nested schema again
// for each schema above it (3,000 nested object schemas, 222 KB: 28 s and
// 1 GB) and validates each component down the whole chain of $refs below
// it, so its cost grows with size times depth. Real descriptions stay far
// below: a schema three objects deep in a response is about 14 levels.
const MaxDepth = 128

// Under MaxDepth, a document's cost still grows with its size times the
// levels of its objects: 8 MB of schemas 60 deep each take a minute to
// read. So the levels of all its objects and arrays together (its depth
// work) may exceed MaxDepthWork only by MaxAverageDepth levels per object
// or array: about what a real description of that size holds (a 2 MB one
// averages 6), and a tenth of what the minute-long one needed.
const (
	MaxDepthWork    = 1 << 20
	MaxAverageDepth = 16
)

// checkDepth refuses a document nested deeper than MaxDepth (see there),
// in time and memory linear in its size.
func checkDepth(data []byte) error {
	tooDeep := parseErr("the document is nested more than %d levels deep (counting each $ref as the levels of what it refers to): docsapi processes OpenAPI documents up to that depth", MaxDepth)
	doc, err := DecodeJSON(data, FormatOf(data))
	if err != nil {
		// The decoders stop at 10,000 levels, both saying "max depth".
		if strings.Contains(err.Error(), "max depth") {
			return tooDeep
		}
		return parseErr("not a readable OpenAPI document: %v", err)
	}
	c := depthCheck{root: doc, heights: map[string]int{}}
	if _, ok := c.height(doc, 0); !ok {
		return tooDeep
	}
	if allowed := MaxDepthWork + MaxAverageDepth*c.containers; c.work > allowed {
		return parseErr("the document nests too much: its objects and arrays sit %d levels deep together, over the %d docsapi processes for its size (%d, and %d more per object or array)", c.work, allowed, MaxDepthWork, MaxAverageDepth)
	}
	return nil
}

type depthCheck struct {
	work       int // the sum of the levels of every object and array
	containers int // the objects and arrays
	root       any
	heights    map[string]int // $ref -> height of its target; -1 while measured (a cycle counts 0)
}

// height is the height of v, reached at level; false once a path goes
// deeper than MaxDepth (the walk stops there, so its recursion is bounded).
func (c *depthCheck) height(v any, level int) (int, bool) {
	if level > MaxDepth {
		return 0, false
	}
	h := 0
	switch v := v.(type) {
	case map[string]any:
		c.work += level
		c.containers++
		if ref, ok := v["$ref"].(string); ok && strings.HasPrefix(ref, "#") {
			rh, ok := c.refHeight(ref, level)
			if !ok || level+rh > MaxDepth {
				return 0, false
			}
			h = rh
		}
		for _, child := range v {
			ch, ok := c.height(child, level+1)
			if !ok {
				return 0, false
			}
			h = max(h, ch+1)
		}
	case []any:
		c.work += level
		c.containers++
		for _, child := range v {
			ch, ok := c.height(child, level+1)
			if !ok {
				return 0, false
			}
			h = max(h, ch+1)
		}
	}
	return h, true
}

// refHeight is the height of what a local $ref names, measured once.
func (c *depthCheck) refHeight(ref string, level int) (int, bool) {
	if h, ok := c.heights[ref]; ok {
		return max(h, 0), true
	}
	target, found := pointer(c.root, ref)
	if !found {
		return 0, true // kin-openapi reports it
	}
	c.heights[ref] = -1
	h, ok := c.height(target, level)
	if !ok {
		return 0, false
	}
	c.heights[ref] = h
	return h, true
}

// pointer resolves a local reference (#/a/b~1c) in doc.
func pointer(doc any, ref string) (any, bool) {
	frag := strings.TrimPrefix(ref, "#")
	if u, err := url.PathUnescape(frag); err == nil {
		frag = u
	}
	if frag == "" {
		return doc, true
	}
	if !strings.HasPrefix(frag, "/") {
		return nil, false
	}
	v := doc
	for _, tok := range strings.Split(frag[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch cur := v.(type) {
		case map[string]any:
			next, ok := cur[tok]
			if !ok {
				return nil, false
			}
			v = next
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(cur) {
				return nil, false
			}
			v = cur[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// load reads a document that passed checkDepth with kin-openapi.
func load(ctx context.Context, data []byte) (*openapi3.T, error) {
	if err := checkDepth(data); err != nil {
		return nil, err
	}
	return newLoader(ctx).LoadFromData(data)
}
