package openapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"testing"

	"docsapi/auth"
	"docsapi/fetch"
	"docsapi/storage"
	"docsapi/storage/storagetest"
)

// bigSpec generates a valid OpenAPI 3.0 JSON document of about size bytes:
// resources with CRUD operations, parameters, request bodies and schemas
// referenced through components.
func bigSpec(size int, rev string) []byte {
	doc := map[string]any{
		"openapi": "3.0.3",
		"info":    map[string]any{"title": "Generated", "version": rev},
	}
	paths, schemas := map[string]any{}, map[string]any{}
	for i := 0; ; i++ {
		name := fmt.Sprintf("Resource%d", i)
		ref := map[string]any{"$ref": "#/components/schemas/" + name}
		props := map[string]any{}
		for j := range 12 {
			props[fmt.Sprintf("field%d", j)] = map[string]any{"type": "string", "description": fmt.Sprintf("Field %d of %s, a generated property with a description.", j, name), "maxLength": 256}
		}
		schemas[name] = map[string]any{"type": "object", "required": []string{"field0"}, "properties": props}
		ok := map[string]any{"description": "OK", "content": map[string]any{"application/json": map[string]any{"schema": ref}}}
		idParam := []any{map[string]any{"name": "id", "in": "path", "required": true, "schema": map[string]any{"type": "string"}}}
		paths[fmt.Sprintf("/resources%d", i)] = map[string]any{
			"get": map[string]any{"operationId": "list" + name, "summary": "List " + name,
				"parameters": []any{map[string]any{"name": "limit", "in": "query", "schema": map[string]any{"type": "integer", "minimum": 0, "maximum": 1000}}},
				"responses":  map[string]any{"200": map[string]any{"description": "OK", "content": map[string]any{"application/json": map[string]any{"schema": map[string]any{"type": "array", "items": ref}}}}}},
			"post": map[string]any{"operationId": "create" + name, "summary": "Create " + name,
				"requestBody": map[string]any{"required": true, "content": map[string]any{"application/json": map[string]any{"schema": ref}}},
				"responses":   map[string]any{"201": ok}},
		}
		paths[fmt.Sprintf("/resources%d/{id}", i)] = map[string]any{
			"get":    map[string]any{"operationId": "get" + name, "parameters": idParam, "responses": map[string]any{"200": ok, "404": map[string]any{"description": "Not found"}}},
			"delete": map[string]any{"operationId": "delete" + name, "parameters": idParam, "responses": map[string]any{"204": map[string]any{"description": "Deleted"}}},
		}
		if i%20 == 19 {
			doc["paths"], doc["components"] = paths, map[string]any{"schemas": schemas}
			b, _ := json.Marshal(doc)
			if len(b) >= size {
				return b
			}
		}
	}
}

// The generator makes valid documents (checked small: -race makes a 2 MB
// parse slow).
func TestBigSpecIsValid(t *testing.T) {
	data := bigSpec(200<<10, "1")
	d, err := Parse(context.Background(), data)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d bytes, %s %s", len(data), d.Title, d.OpenAPI)
}

func BenchmarkParse2MB(b *testing.B) {
	data := bigSpec(2<<20, "1")
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Parse(context.Background(), data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkProcess2MB is a whole run of a text source: claim, parse and
// validate, store the version (a new document each time).
func BenchmarkProcess2MB(b *testing.B) {
	ctx := context.Background()
	db, err := storage.Open(storagetest.Target(b), storage.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	_, hash := auth.NewToken()
	boot, err := db.CreateOrganizationWithAdmin(ctx, "Bench", "bench@example.com", "bench", hash)
	if err != nil {
		b.Fatal(err)
	}
	p := &Processor{Queue: db, Fetch: fetch.New(fetch.Options{}), Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	var bytes int
	i := 0
	for b.Loop() {
		b.StopTimer()
		data := bigSpec(2<<20, fmt.Sprint(i))
		bytes = len(data)
		i++
		if _, _, err := db.PutOpenAPISpec(ctx, boot.Organization.ID, "big", storage.OpenAPISource{Text: string(data)}); err != nil {
			b.Fatal(err)
		}
		var res Result
		p.After = func(r Result) { res = r }
		b.StartTimer()
		if _, err := p.RunPending(ctx); err != nil || res.NewVersion == "" {
			b.Fatalf("%v %+v", err, res)
		}
	}
	b.SetBytes(int64(bytes))
}
