package graph

import (
	"context"
	"encoding/json"
	"net/http"

	"docsapi/apierr"
	"docsapi/graph/model"
	"docsapi/storage"
)

// QueueTranslations names the background queue of translation runs.
const QueueTranslations = "translations"

// Who may do what with translations: members with READ list and read them;
// CREATE (the role that creates content in the organization) creates,
// changes, runs and deletes them. Creating one also needs read access to
// the source space, since its content is copied into the target space.
const (
	translationReadRole  model.Role = "read"
	translationWriteRole model.Role = "create"
)

// maxInstructions bounds the stored instructions document.
const maxInstructions = 64 << 10

// checkInstructions validates a JSON document {object: "document", data:
// {schemaVersion?}, nodes: [{object: "block", type, nodes?, ...}]} and
// returns it as stored JSON.
func checkInstructions(field string, doc map[string]any) (string, error) {
	if doc == nil {
		return "", apierr.Invalid(field, "is required")
	}
	if o, _ := doc["object"].(string); o != "document" {
		return "", apierr.Invalid(field+".object", "must be document")
	}
	data, ok := doc["data"].(map[string]any)
	if !ok {
		return "", apierr.Invalid(field+".data", "is required and must be an object")
	}
	if v, ok := data["schemaVersion"]; ok {
		if n, ok := v.(float64); !ok || n != float64(int64(n)) {
			return "", apierr.Invalid(field+".data.schemaVersion", "must be an integer")
		}
	}
	nodes, ok := doc["nodes"].([]any)
	if !ok {
		return "", apierr.Invalid(field+".nodes", "is required and must be an array of blocks")
	}
	if err := checkBlocks(field+".nodes", nodes); err != nil {
		return "", err
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return "", apierr.Invalid(field, "is not a JSON document")
	}
	if len(b) > maxInstructions {
		return "", apierr.Invalid(field, "must be at most %d bytes of JSON", maxInstructions)
	}
	return string(b), nil
}

// checkBlocks checks that every node is {object: block|inline|text, ...}
// with a type for blocks and inlines, recursively.
func checkBlocks(field string, nodes []any) error {
	for _, n := range nodes {
		node, ok := n.(map[string]any)
		if !ok {
			return apierr.Invalid(field, "must hold node objects")
		}
		obj, _ := node["object"].(string)
		switch obj {
		case "block", "inline":
			if t, _ := node["type"].(string); t == "" {
				return apierr.Invalid(field, "every %s needs a type", obj)
			}
		case "text":
			continue
		default:
			return apierr.Invalid(field, "node object must be block, inline or text")
		}
		if c, ok := node["nodes"]; ok {
			children, ok := c.([]any)
			if !ok {
				return apierr.Invalid(field, "nodes of a %s must be an array", obj)
			}
			if err := checkBlocks(field, children); err != nil {
				return err
			}
		}
	}
	return nil
}

func emptyInstructions() map[string]any {
	return map[string]any{"object": "document", "data": map[string]any{}, "nodes": []any{}}
}

// seconds rounds a duration in milliseconds to whole seconds (the
// reference's unit).
func seconds(ms int64) int { return int((ms + 500) / 1000) }

func (r *Resolver) translationModel(t storage.Translation, role *string) *model.Translation {
	var instr map[string]any
	if json.Unmarshal([]byte(t.Instructions), &instr) != nil || instr == nil {
		instr = emptyInstructions()
	}
	// A failed run has ended: 0.130.0 knows only pending, running and
	// completed, so it answers completed, and error says why it failed.
	status := t.Status
	if status == "failed" {
		status = "completed"
	}
	m := &model.Translation{
		Object: "translation", ID: t.ID, Status: model.TranslationStatus(status),
		Source:   model.TranslationSource{Space: t.SourceSpace, Language: model.TranslationLanguage(t.SourceLanguage)},
		Language: model.TranslationLanguage(t.Language), Instructions: instr,
		CreatedAt: model.Time(t.CreatedAt), UpdatedAt: model.Time(t.UpdatedAt),
		Stats: model.TranslationStats{Runs: t.Runs, TotalWords: t.TotalWords, TotalPages: t.TotalPages,
			TotalDuration: seconds(t.TotalDurationMs), LatestRunDuration: seconds(t.LatestDurationMs),
			LatestPages: t.LatestPages, LatestWords: t.LatestWords,
			TotalDurationMs: int(t.TotalDurationMs), LatestRunDurationMs: int(t.LatestDurationMs)},
		Permissions: model.TranslationPermissions{View: true, Edit: atLeast(role, translationWriteRole)},
		Urls:        model.TranslationURLs{Location: r.Config.PublicURL + "/v1/orgs/" + t.OrganizationID + "/translations/" + t.ID},
	}
	if t.TargetSpace != nil && t.ResultRevision != nil {
		m.Result = &model.TranslationResult{Space: *t.TargetSpace, Revision: *t.ResultRevision}
	}
	if t.ErrorCode != nil {
		m.Error = &model.TranslationError{Code: *t.ErrorCode, Message: deref(t.ErrorMessage)}
	}
	return m
}

// translationFor loads a translation of orgID for a caller holding min.
func (r *Resolver) translationFor(ctx context.Context, orgID, id string, min model.Role, action string) (orgScope, storage.Translation, error) {
	sc, err := r.inOrgAtLeast(ctx, orgID, min, action)
	if err != nil {
		return sc, storage.Translation{}, err
	}
	t, err := r.Store.Translation(ctx, orgID, id)
	return sc, t, notFoundAs(err, "translation")
}

// translationSource checks the source of a new translation: a space of the
// organization the caller can read, and the two languages.
func (r *Resolver) translationSource(ctx context.Context, orgID string, in model.CreateTranslationInput) error {
	if in.Source == nil {
		return apierr.Invalid("source", "is required: {space, language}")
	}
	if in.Source.Space == "" {
		return apierr.Invalid("source.space", "is required")
	}
	if in.Source.Language == "" {
		return apierr.Invalid("source.language", "is required")
	}
	if in.Language == "" {
		return apierr.Invalid("language", "is required")
	}
	if err := firstErr(checkEnum("source.language", in.Source.Language, model.TranslationLanguages.List()),
		checkEnum("language", in.Language, model.TranslationLanguages.List())); err != nil {
		return err
	}
	if in.Language == in.Source.Language {
		return apierr.Invalid("language", "must differ from source.language")
	}
	sp, _, err := r.spaceScope(ctx, in.Source.Space, chainOnly, false)
	if e, ok := apierr.As(err); ok && e.Status == http.StatusNotFound || err == nil && sp.OrganizationID != orgID {
		return apierr.Invalid("source.space", "no space %q in this organization", in.Source.Space)
	}
	return err
}

// ContentAnalyzer gives background writers of revisions (translation runs)
// the links and search sections of the pages they write.
func (r *Resolver) ContentAnalyzer() storage.Analyzer { return r.analyzer() }

// CheckTranslatedPage holds a page a translation run built to the rules
// of a page written through the API: its title, description and Markdown
// come from the translation server, which is outside input like a request
// body (a 5 MB title or 10 MB of Markdown would otherwise be stored as is).
func CheckTranslatedPage(p *storage.TreePage) error {
	md := p.Markdown
	return firstErr(checkTitle("title", p.Title), checkLen("description", p.Meta.Description, 0, maxPageDescription), checkMarkdown(&md))
}
