// Package openapi parses and validates OpenAPI documents and runs the
// background processing of organizations' OpenAPI specs: fetch the source
// (through the guarded fetcher), parse, validate, store a version.
package openapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/oasdiff/yaml"
)

// Document is what processing learns about a valid OpenAPI document.
type Document struct {
	Title       string // info.title
	Version     string // info.version
	OpenAPI     string // the openapi field: 3.0.x or 3.1.x
	Format      string // json | yaml
	ContentHash string // sha256:<hex> of the bytes as received
}

// ParseError is a document that is not a valid OpenAPI 3.0 or 3.1
// description.
type ParseError struct{ Msg string }

func (e *ParseError) Error() string { return e.Msg }

func parseErr(format string, args ...any) error {
	return &ParseError{Msg: fmt.Sprintf(format, args...)}
}

// Hash is the content hash stored with a version; identical bytes make no
// new version.
func Hash(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// FormatOf tells JSON from YAML: JSON is a valid JSON object. A document
// that starts with "{" but is not JSON can still be YAML (a flow mapping
// such as {"openapi": 3.0A}); it is stored, and later decoded, as YAML
// (fuzzing found one stored as JSON, whose content then failed to decode).
func FormatOf(data []byte) string {
	if t := bytes.TrimLeft(data, " \t\r\n\ufeff"); len(t) > 0 && t[0] == '{' && json.Valid(t) {
		return "json"
	}
	return "yaml"
}

// newLoader reads one self-contained document: external $refs (other
// files, URLs: http://127.0.0.1/..., cloud metadata addresses) are refused,
// and should kin-openapi ever try to read one anyway, its reader refuses
// too instead of using an unguarded HTTP client or the file system.
func newLoader(ctx context.Context) *openapi3.Loader {
	loader := openapi3.NewLoader()
	loader.Context = ctx
	loader.IsExternalRefsAllowed = false
	loader.ReadFromURIFunc = func(_ *openapi3.Loader, u *url.URL) ([]byte, error) {
		return nil, fmt.Errorf("external reference %s: an OpenAPI document must be self-contained (docsapi reads no other file or URL)", u.Redacted())
	}
	return loader
}

// Parse loads and validates an OpenAPI 3.0 or 3.1 document, JSON or YAML.
// External $refs (other files, URLs) are refused: following them would be
// a server-side fetch outside the guard, and a stored version must be
// self-contained. Example values are not checked against their schemas
// (published specs often carry stale examples; they do not make the API
// description unusable).
func Parse(ctx context.Context, data []byte) (Document, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return Document{}, parseErr("the document is empty")
	}
	if err := checkDepth(data); err != nil {
		return Document{}, err
	}
	doc, err := newLoader(ctx).LoadFromData(data)
	if err != nil {
		return Document{}, parseErr("not a readable OpenAPI document: %v", err)
	}
	switch {
	case doc.OpenAPI == "":
		return Document{}, parseErr("the document has no openapi field: only OpenAPI 3.0 and 3.1 are supported (Swagger 2.0 is not)")
	case !strings.HasPrefix(doc.OpenAPI, "3.0") && !strings.HasPrefix(doc.OpenAPI, "3.1"):
		return Document{}, parseErr("openapi %q is not supported: only OpenAPI 3.0 and 3.1 are", doc.OpenAPI)
	}
	if err := doc.Validate(ctx, openapi3.DisableExamplesValidation()); err != nil {
		return Document{}, parseErr("invalid OpenAPI %s document: %v", doc.OpenAPI, err)
	}
	return Document{
		Title: doc.Info.Title, Version: doc.Info.Version, OpenAPI: doc.OpenAPI,
		Format: FormatOf(data), ContentHash: Hash(data),
	}, nil
}

// DecodeJSON returns a stored document as a JSON object, converting YAML.
func DecodeJSON(data []byte, format string) (map[string]any, error) {
	if format != "json" {
		j, err := yaml.YAMLToJSON(data)
		if err != nil {
			return nil, err
		}
		data = j
	}
	var out map[string]any
	err := json.Unmarshal(data, &out)
	return out, err
}
