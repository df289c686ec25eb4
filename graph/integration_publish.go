package graph

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	_ "image/gif" // registers the decoders publish accepts
	_ "image/jpeg"
	_ "image/png"
	"net/url"
	"regexp"
	"sort"
	"strings"

	_ "golang.org/x/image/webp"

	"docsapi/apierr"
	"docsapi/graph/model"
	"docsapi/imagecheck"
	"docsapi/storage"
)

// Limits of published images: bytes after base64 decoding, and pixels.
const (
	maxImageBytes  = 5 << 20
	maxImagePixels = imagecheck.MaxPixels
)

var imageTypes = map[string]string{"png": "image/png", "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp"}

// decodeImage decodes a base64 image (a data: URL prefix is accepted) and
// checks it is a whole PNG, JPEG, GIF or WebP of sane size.
func decodeImage(field, b64 string) (*storage.ImageFile, error) {
	if i := strings.Index(b64, ";base64,"); strings.HasPrefix(b64, "data:") && i > 0 {
		b64 = b64[i+len(";base64,"):]
	}
	b64 = strings.TrimSpace(b64)
	var data []byte
	var err error
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if data, err = enc.DecodeString(b64); err == nil {
			break
		}
	}
	if err != nil || len(data) == 0 {
		return nil, apierr.Invalid(field, "must be a base64-encoded image")
	}
	if len(data) > maxImageBytes {
		return nil, apierr.Invalid(field, "must be at most %d bytes", maxImageBytes)
	}
	cfg, format, err := imagecheck.Config(data)
	var tooLarge *imagecheck.TooLargeError
	ct, ok := imageTypes[format]
	if err != nil && !errors.As(err, &tooLarge) || !ok {
		return nil, apierr.Invalid(field, "must be a PNG, JPEG, GIF or WebP image")
	}
	if tooLarge != nil {
		return nil, apierr.Invalid(field, "must be at most %d pixels", maxImagePixels)
	}
	// The header is sane: decode the whole image so truncated or corrupt
	// files are refused now rather than served.
	if _, _, err := image.Decode(bytes.NewReader(data)); err != nil {
		return nil, apierr.Invalid(field, "is not a valid %s image: %v", format, err)
	}
	return &storage.ImageFile{ContentType: ct, Width: cfg.Width, Height: cfg.Height, Data: data}, nil
}

// publication validates a publish body into what storage writes.
func publication(name, orgID string, in model.PublishIntegrationInput) (storage.IntegrationPublish, error) {
	p := storage.IntegrationPublish{Name: name, OrganizationID: orgID, Runtime: "v1", Visibility: "public", Target: "all"}
	required := func(field string, v *string) error {
		if v == nil {
			return apierr.Invalid(field, "is required")
		}
		return nil
	}
	if err := firstErr(required("title", in.Title), required("description", in.Description), required("script", in.Script)); err != nil {
		return p, err
	}
	if in.Scopes == nil {
		return p, apierr.Invalid("scopes", "is required (an array, possibly empty)")
	}
	p.Title, p.Description, p.Script = *in.Title, *in.Description, *in.Script
	if in.Summary != nil {
		p.Summary = *in.Summary
	}
	if err := firstErr(checkLen("title", p.Title, 2, 30), checkLen("description", p.Description, 0, 100),
		checkLen("summary", p.Summary, 0, 2048)); err != nil {
		return p, err
	}
	if in.Runtime != nil {
		if err := checkEnum("runtime", *in.Runtime, model.IntegrationRuntimes.List()); err != nil {
			return p, err
		}
		p.Runtime = string(*in.Runtime)
	}
	if in.Visibility != nil {
		if err := checkEnum("visibility", *in.Visibility, model.IntegrationVisibilities.List()); err != nil {
			return p, err
		}
		p.Visibility = string(*in.Visibility)
	}
	if in.Target != nil {
		if err := checkEnum("target", *in.Target, model.IntegrationTargets.List()); err != nil {
			return p, err
		}
		p.Target = string(*in.Target)
	}
	var err error
	if p.Scopes, err = enumList("scopes", in.Scopes, model.IntegrationScopes.List()); err != nil {
		return p, err
	}
	if p.Categories, err = enumList("categories", in.Categories, model.IntegrationCategories.List()); err != nil {
		return p, err
	}
	if in.Icon != nil {
		if p.Icon, err = decodeImage("icon", *in.Icon); err != nil {
			return p, err
		}
	}
	if len(in.PreviewImages) > 3 {
		return p, apierr.Invalid("previewImages", "must hold at most 3 images")
	}
	for i, b64 := range in.PreviewImages {
		img, err := decodeImage(fmt.Sprintf("previewImages[%d]", i), b64)
		if err != nil {
			return p, err
		}
		p.PreviewImages = append(p.PreviewImages, *img)
	}
	if p.Blocks, p.BlockDomains, err = blocksOf(in.Blocks); err != nil {
		return p, err
	}
	if p.ContentSources, err = contentSourcesOf(in.ContentSources); err != nil {
		return p, err
	}
	if p.ExternalLinks, err = externalLinksOf(in.ExternalLinks); err != nil {
		return p, err
	}
	if p.Configurations, err = configurationsOf(in.Configurations); err != nil {
		return p, err
	}
	if in.Secrets != nil {
		if len(in.Secrets) > 20 {
			return p, apierr.Invalid("secrets", "must hold at most 20 entries")
		}
		p.Secrets = map[string]string{}
		for k, v := range in.Secrets {
			s, ok := v.(string)
			if !ok || k == "" {
				return p, apierr.Invalid("secrets", "entry %q must be a string", k)
			}
			p.Secrets[k] = s
		}
	}
	p.CSP, err = cspOf(in.ContentSecurityPolicy)
	return p, err
}

// enumList validates and de-duplicates a list of enum values.
func enumList[T interface {
	~string
	IsValid() bool
}](field string, in []T, allowed string) ([]string, error) {
	out := []string{}
	seen := map[T]bool{}
	for i, v := range in {
		if err := checkEnum(fmt.Sprintf("%s[%d]", field, i), v, allowed); err != nil {
			return nil, err
		}
		if !seen[v] {
			seen[v] = true
			out = append(out, string(v))
		}
	}
	return out, nil
}

// recode decodes a free JSON input value into a typed Go value; type
// mismatches name the field.
func recode(field string, in any, out any) error {
	raw, _ := json.Marshal(in)
	if err := json.Unmarshal(raw, out); err != nil {
		return apierr.Invalid(field, "has the wrong shape: %s", strings.TrimPrefix(err.Error(), "json: "))
	}
	return nil
}

func blocksOf(in any) (json.RawMessage, []string, error) {
	blocks := []model.IntegrationBlock{}
	if in != nil {
		if err := recode("blocks", in, &blocks); err != nil {
			return nil, nil, err
		}
	}
	ids := map[string]bool{}
	domains := map[string]bool{}
	for i, b := range blocks {
		f := fmt.Sprintf("blocks[%d]", i)
		if err := firstErr(checkLen(f+".id", b.ID, 1, 100), checkLen(f+".title", b.Title, 2, 40),
			checkLenPtr(f+".description", b.Description, 0, 150)); err != nil {
			return nil, nil, err
		}
		if ids[b.ID] {
			return nil, nil, apierr.Invalid(f+".id", "%q is used by another block", b.ID)
		}
		ids[b.ID] = true
		for j, pattern := range b.URLUnfurl {
			host := unfurlHost(pattern)
			if host == "" {
				return nil, nil, apierr.Invalid(fmt.Sprintf("%s.urlUnfurl[%d]", f, j), "must be a URL pattern such as https://example.com/**")
			}
			domains[host] = true
		}
		if b.Markdown != nil && (b.Markdown.Codeblock == "" || b.Markdown.Body == "") {
			return nil, nil, apierr.Invalid(f+".markdown", "needs codeblock and body")
		}
	}
	raw, _ := json.Marshal(blocks)
	return raw, sortedKeys(domains), nil
}

// unfurlHost is the host a urlUnfurl pattern matches (lower case, without
// a leading wildcard label), or "" when it is not a URL pattern.
func unfurlHost(pattern string) string {
	u, err := url.Parse(strings.ReplaceAll(pattern, "*", "x"))
	if err != nil || u.Host == "" {
		return ""
	}
	host := strings.ToLower(u.Hostname())
	if strings.HasPrefix(pattern[strings.Index(pattern, "//")+2:], "*.") {
		host = strings.TrimPrefix(host, "x.")
	}
	return host
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func contentSourcesOf(in any) (json.RawMessage, error) {
	sources := []model.IntegrationContentSource{}
	if in != nil {
		if err := recode("contentSources", in, &sources); err != nil {
			return nil, err
		}
	}
	for i, s := range sources {
		f := fmt.Sprintf("contentSources[%d]", i)
		if err := firstErr(checkLen(f+".id", s.ID, 1, 100), checkLen(f+".title", s.Title, 2, 40),
			checkLenPtr(f+".description", s.Description, 0, 150), checkLen(f+".configuration.componentId", s.Configuration.ComponentID, 1, 100)); err != nil {
			return nil, err
		}
	}
	raw, _ := json.Marshal(sources)
	return raw, nil
}

func externalLinksOf(in []*model.IntegrationExternalLinkInput) (json.RawMessage, error) {
	if len(in) > 5 {
		return nil, apierr.Invalid("externalLinks", "must hold at most 5 links")
	}
	links := []model.IntegrationExternalLink{}
	for i, l := range in {
		f := fmt.Sprintf("externalLinks[%d]", i)
		if l == nil {
			return nil, apierr.Invalid(f, "must be an object {url, label}")
		}
		if err := firstErr(checkURL(f+".url", l.URL, 2048), checkLen(f+".label", l.Label, 1, 100)); err != nil {
			return nil, err
		}
		links = append(links, model.IntegrationExternalLink{URL: l.URL, Label: l.Label})
	}
	raw, _ := json.Marshal(links)
	return raw, nil
}

// configurationsOf validates {account, space, site}: each a property schema
// {properties, required} or a component {componentId}.
func configurationsOf(in any) (json.RawMessage, error) {
	confs := map[string]map[string]any{}
	if in != nil {
		if err := recode("configurations", in, &confs); err != nil {
			return nil, err
		}
	}
	for level, conf := range confs {
		f := "configurations." + level
		if level != "account" && level != "space" && level != "site" {
			return nil, apierr.Invalid(f, "is not a configuration level (account, space, site)")
		}
		if conf == nil {
			delete(confs, level)
			continue
		}
		if _, ok := conf["componentId"]; ok {
			if id, ok := conf["componentId"].(string); !ok || id == "" {
				return nil, apierr.Invalid(f+".componentId", "must be a non-empty string")
			}
			continue
		}
		if _, err := parseConfigSchema(f, conf); err != nil {
			return nil, err
		}
	}
	raw, _ := json.Marshal(confs)
	return raw, nil
}

// configProperty is one property of a configuration schema.
type configProperty struct {
	Type          string   `json:"type"`
	Title         *string  `json:"title"`
	Description   *string  `json:"description"`
	Default       any      `json:"default"`
	Enum          []string `json:"enum"`
	CompletionURL *string  `json:"completion_url"`
	CallbackURL   *string  `json:"callback_url"`
	ButtonText    *string  `json:"button_text"`
}

type configSchema struct {
	Properties map[string]configProperty `json:"properties"`
	Required   []string                  `json:"required"`
}

var propertyNamePattern = regexp.MustCompile(`^[a-zA-Z0-9_.-]{1,100}$`)

// parseConfigSchema reads and checks a property schema.
func parseConfigSchema(f string, conf map[string]any) (configSchema, error) {
	var s configSchema
	if err := recode(f, conf, &s); err != nil {
		return s, err
	}
	if s.Properties == nil {
		return s, apierr.Invalid(f+".properties", "is required (or give componentId)")
	}
	for name, p := range s.Properties {
		pf := f + ".properties." + name
		if !propertyNamePattern.MatchString(name) {
			return s, apierr.Invalid(pf, "property names must match %s", propertyNamePattern)
		}
		if err := firstErr(checkLenPtr(pf+".title", p.Title, 0, 30), checkLenPtr(pf+".description", p.Description, 0, 100)); err != nil {
			return s, err
		}
		switch p.Type {
		case "string":
			if p.Default != nil {
				if _, ok := p.Default.(string); !ok {
					return s, apierr.Invalid(pf+".default", "must be a string")
				}
			}
		case "number":
			if _, ok := p.Default.(float64); p.Default != nil && !ok {
				return s, apierr.Invalid(pf+".default", "must be a number")
			}
		case "boolean":
			if _, ok := p.Default.(bool); p.Default != nil && !ok {
				return s, apierr.Invalid(pf+".default", "must be a boolean")
			}
		case "button":
			if p.CallbackURL == nil || p.ButtonText == nil {
				return s, apierr.Invalid(pf, "a button needs callback_url and button_text")
			}
		default:
			return s, apierr.Invalid(pf+".type", "must be one of string, number, boolean, button (got %q)", p.Type)
		}
		if p.Type != "string" && (p.Enum != nil || p.CompletionURL != nil) {
			return s, apierr.Invalid(pf, "enum and completion_url apply to string properties only")
		}
	}
	for i, name := range s.Required {
		if _, ok := s.Properties[name]; !ok {
			return s, apierr.Invalid(fmt.Sprintf("%s.required[%d]", f, i), "%q is not a property", name)
		}
	}
	return s, nil
}

// cspOf validates a content security policy: a header string, or a map
// from directive to value.
func cspOf(in any) (json.RawMessage, error) {
	switch v := in.(type) {
	case nil:
		return nil, nil
	case string:
		if strings.ContainsAny(v, "\r\n") || len(v) > 4096 {
			return nil, apierr.Invalid("contentSecurityPolicy", "must be a single header line of at most 4096 characters")
		}
		raw, _ := json.Marshal(v)
		return raw, nil
	case map[string]any:
		out := map[string]string{}
		for k, val := range v {
			s, ok := val.(string)
			if !ok || !cspDirective.MatchString(k) || strings.ContainsAny(s, "\r\n;") {
				return nil, apierr.Invalid("contentSecurityPolicy."+k, "must be a directive (lower case) with a string value")
			}
			out[k] = s
		}
		raw, _ := json.Marshal(out)
		return raw, nil
	}
	return nil, apierr.Invalid("contentSecurityPolicy", "must be a string or an object")
}

var cspDirective = regexp.MustCompile(`^[a-z][a-z-]{0,40}$`)
