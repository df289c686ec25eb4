package graph

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"
	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"docsapi/apierr"
	"docsapi/auth"
	"docsapi/conditions"
	"docsapi/graph/model"
	"docsapi/storage"
)

// Published content: who may read it (share keys, visitor tokens), the
// adaptive schema visitor claims are checked against, and the conditions
// that hide site spaces and sections from visitors.

// VisitorTokenHeader carries a visitor token on REST reads of published
// content (GraphQL: the visitorToken argument).
const VisitorTokenHeader = "X-Visitor-Token"

// siteCaches hold what published reads reuse: compiled conditions and
// compiled adaptive schemas (by schema text).
type siteCaches struct {
	once       sync.Once
	conditions *conditions.Cache
	schemas    *lru.Cache[string, *jsonschema.Schema]
}

var caches siteCaches

func (c *siteCaches) init() {
	c.once.Do(func() {
		c.conditions = conditions.NewCache(8192)
		c.schemas, _ = lru.New[string, *jsonschema.Schema](1024)
	})
}

// adaptiveShape is the published interface's SiteAdaptiveJSONSchema as a
// draft-07 schema: what PUT adaptive-schema accepts.
const adaptiveShape = `{
 "$schema": "http://json-schema.org/draft-07/schema#",
 "definitions": {
  "primitive": {"oneOf": [
   {"type": "object", "properties": {"type": {"const": "boolean"}, "description": {"type": "string"}}, "required": ["type", "description"], "additionalProperties": false},
   {"type": "object", "properties": {"type": {"const": "string"}, "enum": {"type": "array", "items": {"type": "string"}, "minItems": 1}, "description": {"type": "string"}}, "required": ["type", "enum", "description"], "additionalProperties": false},
   {"type": "object", "properties": {"type": {"const": "string"}, "description": {"type": "string"}}, "required": ["type", "description"], "additionalProperties": false},
   {"type": "object", "properties": {"type": {"const": "number"}, "description": {"type": "string"}}, "required": ["type", "description"], "additionalProperties": false}
  ]},
  "claim": {"oneOf": [
   {"$ref": "#/definitions/primitive"},
   {"type": "object", "properties": {"type": {"const": "array"}, "description": {"type": "string"}, "items": {"$ref": "#/definitions/primitive"}}, "required": ["type", "description", "items"], "additionalProperties": false},
   {"$ref": "#/definitions/claims"}
  ]},
  "claims": {"type": "object", "properties": {"type": {"const": "object"}, "description": {"type": "string"},
   "properties": {"type": "object", "additionalProperties": {"$ref": "#/definitions/claim"}}, "additionalProperties": {"const": false}},
   "required": ["type", "description", "properties", "additionalProperties"], "additionalProperties": false}
 },
 "type": "object",
 "properties": {
  "$schema": {"const": "http://json-schema.org/draft-07/schema#"},
  "type": {"const": "object"},
  "properties": {"type": "object",
   "properties": {"unsigned": {"type": "object", "properties": {"type": {"const": "object"}, "description": {"const": "Unsigned claims of the site visitor."},
    "properties": {"type": "object", "additionalProperties": {"$ref": "#/definitions/claim"}}, "additionalProperties": {"const": false}},
    "required": ["type", "description", "properties", "additionalProperties"], "additionalProperties": false}},
   "additionalProperties": {"$ref": "#/definitions/claim"}},
  "additionalProperties": {"const": false}
 },
 "required": ["type", "properties", "additionalProperties"],
 "additionalProperties": false
}`

var adaptiveShapeSchema = func() *jsonschema.Schema {
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(adaptiveShape))
	if err != nil {
		panic(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("docsapi:adaptive-shape", doc); err != nil {
		panic(err)
	}
	return c.MustCompile("docsapi:adaptive-shape")
}()

// compileSchema compiles a JSON Schema document as draft-07.
func compileSchema(doc any) (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft7)
	if err := c.AddResource("docsapi:adaptive", doc); err != nil {
		return nil, err
	}
	return c.Compile("docsapi:adaptive")
}

// jsonValue round-trips v through JSON so the schema library sees the
// value types it expects.
func jsonValue(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return jsonschema.UnmarshalJSON(bytes.NewReader(b))
}

// schemaProblem is the first leaf of a validation error: where and what.
func schemaProblem(err error) string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err.Error()
	}
	for len(ve.Causes) > 0 {
		ve = ve.Causes[0]
	}
	where := "/" + strings.Join(ve.InstanceLocation, "/")
	msg := ve.Error()
	if i := strings.LastIndex(msg, ": "); i >= 0 && strings.HasPrefix(msg, "at ") {
		msg = msg[i+2:]
	}
	return fmt.Sprintf("at %s: %s", where, msg)
}

// checkAdaptiveSchema refuses a schema that is not of the published shape
// or not a valid draft-07 schema; it returns the stored JSON text.
func checkAdaptiveSchema(in map[string]any) (string, error) {
	if in == nil {
		return "", apierr.Invalid("jsonSchema", "is required")
	}
	v, err := jsonValue(in)
	if err != nil {
		return "", apierr.Invalid("jsonSchema", "must be a JSON object")
	}
	if err := adaptiveShapeSchema.Validate(v); err != nil {
		return "", apierr.Invalid("jsonSchema", "is not an adaptive schema of the documented shape: %s", schemaProblem(err))
	}
	if _, err := compileSchema(v); err != nil {
		return "", apierr.Invalid("jsonSchema", "is not a valid JSON Schema draft-07: %s", err.Error())
	}
	b, _ := json.Marshal(in)
	return string(b), nil
}

// siteSchema is a site's compiled adaptive schema (cached by its text).
func siteSchema(text string) (*jsonschema.Schema, error) {
	caches.init()
	if s, ok := caches.schemas.Get(text); ok {
		return s, nil
	}
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(text))
	if err != nil {
		return nil, err
	}
	s, err := compileSchema(doc)
	if err != nil {
		return nil, err
	}
	caches.schemas.Add(text, s)
	return s, nil
}

func adaptiveSchemaModel(s storage.Site) *model.SiteAdaptiveSchema {
	var doc map[string]any
	json.Unmarshal([]byte(s.AdaptiveSchema), &doc)
	return &model.SiteAdaptiveSchema{Object: "site-adaptive-schema", JSONSchema: doc, UpdatedAt: model.Time(s.AdaptiveSchemaUpdatedAt)}
}

var jsIdentifier = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)

// claimPath appends a property access to a JavaScript path.
func claimPath(base, name string) string {
	if jsIdentifier.MatchString(name) {
		return base + "." + name
	}
	b, _ := json.Marshal(name)
	return base + "[" + string(b) + "]"
}

// templateConditions suggests one condition per claim of the schema (one
// per value for enums), walking nested objects and the unsigned group.
func templateConditions(schemaText string) []*model.SiteAdaptiveTemplateCondition {
	var doc map[string]any
	json.Unmarshal([]byte(schemaText), &doc)
	out := []*model.SiteAdaptiveTemplateCondition{}
	quote := func(v any) string { b, _ := json.Marshal(v); return strings.ReplaceAll(string(b), `"`, `'`) }
	var walk func(props map[string]any, base, label string)
	walk = func(props map[string]any, base, label string) {
		names := make([]string, 0, len(props))
		for n := range props {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, name := range names {
			claim, _ := props[name].(map[string]any)
			path, what := claimPath(base, name), label+name
			add := func(desc, cond string) {
				out = append(out, &model.SiteAdaptiveTemplateCondition{Description: desc, Condition: cond})
			}
			switch claim["type"] {
			case "boolean":
				add(fmt.Sprintf("Visitors whose %s is true", what), path+" === true")
			case "string":
				if values, ok := claim["enum"].([]any); ok {
					for _, v := range values {
						add(fmt.Sprintf("Visitors whose %s is %v", what, v), path+" === "+quote(v))
					}
				} else {
					add(fmt.Sprintf("Visitors with a %s", what), "Boolean("+path+")")
				}
			case "number":
				add(fmt.Sprintf("Visitors whose %s is above 0", what), path+" > 0")
			case "array":
				item, _ := claim["items"].(map[string]any)
				if values, ok := item["enum"].([]any); ok && len(values) > 0 {
					add(fmt.Sprintf("Visitors whose %s include %v", what, values[0]), path+".includes("+quote(values[0])+")")
				} else {
					add(fmt.Sprintf("Visitors with at least one %s", what), path+".length > 0")
				}
			case "object":
				sub, _ := claim["properties"].(map[string]any)
				walk(sub, path, what+".")
			}
		}
	}
	props, _ := doc["properties"].(map[string]any)
	if unsigned, ok := props["unsigned"].(map[string]any); ok {
		sub, _ := unsigned["properties"].(map[string]any)
		walk(sub, "visitor.claims.unsigned", "unsigned ")
	}
	rest := map[string]any{}
	for k, v := range props {
		if k != "unsigned" {
			rest[k] = v
		}
	}
	walk(rest, "visitor.claims", "")
	return out
}

// registeredClaims are the JWT's own claims, not the visitor's.
var registeredClaims = []string{"exp", "iat", "nbf", "iss", "aud", "jti", "sub"}

// siteVisitorClaims verifies a visitor token against a site's key: HS256,
// expiry required (five seconds of leeway). It returns the visitor's
// claims (the registered JWT claims removed).
func (r *Resolver) siteVisitorClaims(site storage.Site, token string) (map[string]any, error) {
	claims := jwt.MapClaims{}
	_, err := jwt.ParseWithClaims(token, claims, func(*jwt.Token) (any, error) { return []byte(site.VisitorSecret), nil },
		jwt.WithValidMethods([]string{"HS256"}), jwt.WithExpirationRequired(), jwt.WithLeeway(5*time.Second), jwt.WithTimeFunc(r.Now))
	switch {
	case err == nil:
	case errors.Is(err, jwt.ErrTokenExpired):
		return nil, apierr.Forbidden("visitor token: expired")
	case errors.Is(err, jwt.ErrTokenRequiredClaimMissing):
		return nil, apierr.Forbidden("visitor token: exp is required")
	case errors.Is(err, jwt.ErrTokenSignatureInvalid), errors.Is(err, jwt.ErrTokenUnverifiable):
		return nil, apierr.Forbidden("visitor token: not signed with the site's visitor key (HS256)")
	case errors.Is(err, jwt.ErrTokenNotValidYet):
		return nil, apierr.Forbidden("visitor token: not valid yet")
	default:
		return nil, apierr.Forbidden("visitor token: malformed (a JWT signed with HS256 is expected)")
	}
	out := map[string]any(claims)
	for _, k := range registeredClaims {
		delete(out, k)
	}
	return out, nil
}

// audience is a caller reading published content: the site, how URLs
// carry the share key, and the visitor's claims (nil without a token).
type audience struct {
	org      storage.Organization
	site     storage.Site
	shareKey *string
	claims   map[string]any
}

// audienceOf decides whether the caller may read a site's published
// content: the site is published, a given share key is an active link of
// the site (required for share-link sites), a visitor token (required for
// visitor-auth sites) is valid, and with adaptive content on its claims
// match the adaptive schema. Refusals: 404 for the site and share keys (a
// published site's existence is not revealed without its key), 403 for
// visitor tokens. A site's apiToken (published.go) reads its own site only,
// with the share key and claims it was minted for.
func (r *Resolver) audienceOf(ctx context.Context, orgID, siteID string, shareKey, visitorToken *string) (audience, error) {
	return r.audienceWith(ctx, orgID, siteID, shareKey, visitorToken, nil)
}

// audienceWith is audienceOf with the visitor's unsigned claims (URL
// resolution), kept as claims.unsigned.
func (r *Resolver) audienceWith(ctx context.Context, orgID, siteID string, shareKey, visitorToken *string, unsigned map[string]any) (audience, error) {
	var a audience
	c, err := readerOf(ctx)
	if err != nil {
		return a, err
	}
	if c.Site != nil && c.Site.SiteID != siteID {
		return a, errSiteTokenElsewhere()
	}
	if c.OrganizationID != "" && c.OrganizationID != orgID {
		return a, apierr.NotFound("site")
	}
	site, err := r.Store.Site(ctx, orgID, siteID)
	if err != nil {
		return a, notFoundAs(err, "site")
	}
	if !site.Published {
		return a, apierr.NotFound("site")
	}
	if c.Site != nil {
		// The token's key was unlocked when it was minted; it must still be live.
		if shareKey = c.Site.ShareKey; shareKey != nil {
			if l, err := r.liveShareLink(ctx, *shareKey); err != nil || l.SiteID != site.ID {
				return a, errUnknownShareKey()
			}
		}
		a.claims = c.Site.Claims
	} else {
		if err := r.checkShareKey(ctx, site, shareKey); err != nil {
			return a, err
		}
		if site.Visibility == "share-link" && shareKey == nil {
			return a, apierr.NotFound("site")
		}
		if visitorToken != nil && *visitorToken != "" {
			if a.claims, err = r.siteVisitorClaims(site, *visitorToken); err != nil {
				return a, err
			}
		} else if site.Visibility == "visitor-auth" {
			return a, apierr.Forbidden("this site needs a visitor token (header %s, or the visitorToken argument)", VisitorTokenHeader)
		}
		if len(unsigned) > 0 {
			if a.claims == nil {
				a.claims = map[string]any{}
			}
			a.claims["unsigned"] = unsigned
		}
		if site.AdaptiveContent && a.claims != nil {
			if err := checkClaims(site, a.claims); err != nil {
				return a, err
			}
		}
	}
	org, _, err := r.Store.OrganizationFor(ctx, orgID, c.UserID)
	if err != nil {
		return a, notFoundAs(err, "site")
	}
	return audience{org: org, site: site, shareKey: shareKey, claims: a.claims}, nil
}

// checkShareKey accepts no key, or the key of a live link of site unlocked
// by the request's password: every read that takes a share key comes here
// (sharedSpace too, through audienceOf).
func (r *Resolver) checkShareKey(ctx context.Context, site storage.Site, shareKey *string) error {
	if shareKey == nil {
		return nil
	}
	l, err := r.liveShareLink(ctx, *shareKey)
	if err != nil {
		return err
	}
	if l.SiteID != site.ID {
		return errUnknownShareKey()
	}
	return r.unlockShareLink(ctx, l)
}

// checkClaims validates visitor claims against the site's adaptive schema.
func checkClaims(site storage.Site, claims map[string]any) error {
	schema, err := siteSchema(site.AdaptiveSchema)
	if err != nil {
		return err
	}
	v, err := jsonValue(claims)
	if err != nil {
		return apierr.Forbidden("visitor token: claims are not JSON")
	}
	if err := schema.Validate(v); err != nil {
		return apierr.Forbidden("visitor token: claims do not match the site's adaptive schema %s", schemaProblem(err))
	}
	return nil
}

// publishedSite is the published-content-site for an audience.
func (r *Resolver) publishedSite(ctx context.Context, orgID, siteID string, shareKey, visitorToken *string) (*model.PublishedContentSite, error) {
	a, err := r.audienceOf(ctx, orgID, siteID, shareKey, visitorToken)
	if err != nil {
		return nil, err
	}
	st, err := r.Store.SiteStructure(ctx, siteID)
	if err != nil {
		return nil, notFoundAs(err, "site")
	}
	v := structureView{r: r, org: a.org, site: a.site, shareKey: a.shareKey, role: func(storage.Space) int { return roleRank["read"] }}
	v.visible = visibleTo(a.site, a.claims)
	site := r.siteModel(a.org, a.site)
	// siteSpaces holds only the site spaces with overrides (a reader falls
	// back to site): an entry per site space would double a large site's
	// answer for nothing.
	custom, err := r.publishedCustomizations(ctx, a.org, a.site, st)
	if err != nil {
		return nil, err
	}
	return &model.PublishedContentSite{
		Object: "published-content-site", Site: site, Structure: v.structure(st),
		Customizations: custom,
		// docsapi runs no integration scripts, so none adds a site script.
		Scripts: []*model.SiteIntegrationScript{},
	}, nil
}

// shareKeyReader is the caller of a list read with a share key: anyone
// holding an active key of the published site reads it, as its audience.
func (r *Resolver) shareKeyReader(ctx context.Context, orgID, siteID string, shareKey string) (orgScope, storage.Site, error) {
	a, err := r.audienceOf(ctx, orgID, siteID, &shareKey, nil)
	if err != nil {
		return orgScope{}, a.site, err
	}
	c, _ := auth.CallerFrom(ctx)
	return orgScope{Caller: c, Org: a.org}, a.site, nil
}
