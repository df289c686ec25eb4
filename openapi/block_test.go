package openapi

import (
	"context"
	"errors"
	"strings"
	"testing"
)

const petsOperation = `{"openapi":"3.0.3","info":{"title":"Petstore","version":"1"},
"paths":{"/pets/{id}":{"put":{"summary":"Replace a pet","parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"string"}}],
"requestBody":{"required":true,"content":{"application/json":{"schema":{"$ref":"#/components/schemas/Pet"}}}},
"responses":{"200":{"description":"The pet, replaced"},"404":{"description":"No such pet"}}}}},
"components":{"schemas":{"Pet":{"type":"object","description":"A pet of the store.","properties":{"name":{"type":"string"}}}}}}`

func TestRenderOperation(t *testing.T) {
	md, err := RenderOperation(context.Background(), []byte(petsOperation), "put", "/pets/{id}", false)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## PUT /pets/{id}", "Replace a pet", "| `id` | path | string | yes |", "### Request body", "`application/json` | Pet", "| 404 | No such pet |"} {
		if !strings.Contains(md, want) {
			t.Errorf("lacks %q:\n%s", want, md)
		}
	}
	for _, miss := range [][2]string{{"get", "/pets/{id}"}, {"put", "/cats"}} {
		if _, err := RenderOperation(context.Background(), []byte(petsOperation), miss[0], miss[1], false); !errors.Is(err, ErrNoSuchOperation) {
			t.Errorf("%v: %v", miss, err)
		}
	}
	md, err = RenderOperation(context.Background(), []byte(webhooks31), "post", "newPet", true)
	if err != nil || !strings.Contains(md, "## POST newPet") {
		t.Errorf("webhook: %v\n%s", err, md)
	}
	md, err = RenderSchemas(context.Background(), []byte(petsOperation), []string{"Pet", "Missing"})
	if err != nil || !strings.Contains(md, "## Pet") || !strings.Contains(md, "A pet of the store.") || !strings.Contains(md, "`name`") {
		t.Errorf("schemas: %v\n%s", err, md)
	}
}
