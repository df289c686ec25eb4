package graph

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"docsapi/apierr"
	"docsapi/graph/model"
	"docsapi/storage"
)

// The translations glossary follows translations: READ reads it, CREATE
// (the role that creates and runs translations) changes it.
const (
	glossaryReadRole  = translationReadRole
	glossaryWriteRole = translationWriteRole
)

// maxGlossaryOps bounds one updateGlossaryEntries batch, maxGlossaryEntries
// an organization's glossary (a translation run tries its terms at each
// word of every page).
const (
	maxGlossaryOps     = 1000
	maxGlossaryEntries = 5000
)

func (r *Resolver) glossaryEntryModel(g storage.GlossaryEntry) *model.GlossaryEntry {
	tr := map[string]any{}
	var terms map[string]string
	if json.Unmarshal([]byte(g.Translations), &terms) == nil {
		for k, v := range terms {
			tr[k] = v
		}
	}
	return &model.GlossaryEntry{Object: "glossary-entry", ID: g.ID, Translations: tr,
		CreatedAt: model.Time(g.CreatedAt), UpdatedAt: model.Time(g.UpdatedAt),
		Urls: model.GlossaryEntryURLs{Location: r.Config.PublicURL + "/v1/orgs/" + g.OrganizationID + "/translations-glossary/" + g.ID}}
}

// checkGlossaryTranslations validates language code -> term (codes of
// TranslationLanguage, terms of 1 to 255 characters on one line) and
// returns it as stored JSON.
func checkGlossaryTranslations(field string, tr map[string]any) (string, error) {
	if len(tr) == 0 {
		return "", apierr.Invalid(field, "is required: an object of language code -> term, with at least one language")
	}
	keys := make([]string, 0, len(tr))
	for k := range tr {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	terms := make(map[string]string, len(tr))
	for _, k := range keys {
		f := field + "." + k
		if !model.TranslationLanguage(k).IsValid() {
			return "", apierr.Invalid(f, "is not a language: one of %s", model.TranslationLanguages.List())
		}
		s, ok := tr[k].(string)
		if !ok {
			return "", apierr.Invalid(f, "must be a string")
		}
		if err := checkLen(f, s, 1, 255); err != nil {
			return "", err
		}
		if strings.ContainsAny(s, "\r\n") {
			return "", apierr.Invalid(f, "must be one line")
		}
		terms[k] = s
	}
	b, _ := json.Marshal(terms)
	return string(b), nil
}

// glossaryOps validates a batch and turns it into storage operations.
func glossaryOps(in model.UpdateGlossaryEntriesInput) ([]storage.GlossaryOp, error) {
	if in.Operations == nil {
		return nil, apierr.Invalid("operations", "is required")
	}
	if len(in.Operations) > maxGlossaryOps {
		return nil, apierr.Invalid("operations", "must hold at most %d operations", maxGlossaryOps)
	}
	ops := make([]storage.GlossaryOp, 0, len(in.Operations))
	for i, o := range in.Operations {
		f := fmt.Sprintf("operations[%d]", i)
		if o == nil {
			return nil, apierr.Invalid(f, "must be an operation object")
		}
		if err := checkEnum(f+".type", o.Type, model.GlossaryOperationTypes.List()); err != nil {
			return nil, err
		}
		op := storage.GlossaryOp{Type: string(o.Type)}
		if o.Type != "insert" {
			if o.ID == nil || *o.ID == "" {
				return nil, apierr.Invalid(f+".id", "is required for %s", o.Type)
			}
			op.ID = *o.ID
		}
		if o.Type != "delete" {
			s, err := checkGlossaryTranslations(f+".translations", o.Translations)
			if err != nil {
				return nil, err
			}
			op.Translations = s
		}
		ops = append(ops, op)
	}
	return ops, nil
}

// glossaryBatchError names the operation whose entry does not exist, or
// the bound the batch would pass.
func glossaryBatchError(err error) error {
	if errors.Is(err, storage.ErrGlossaryFull) {
		return apierr.Invalid("operations", "the glossary would hold more than %d entries (nothing was applied)", maxGlossaryEntries)
	}
	var m *storage.GlossaryOpMissing
	if errors.As(err, &m) {
		return apierr.Invalid(fmt.Sprintf("operations[%d].id", m.Index), "no glossary entry with this id in the organization (nothing was applied)")
	}
	return err
}

func (r *Resolver) glossaryEntries(ctx context.Context, orgID string, page *string, limit *int) (*model.GlossaryEntryList, error) {
	if _, err := r.inOrgAtLeast(ctx, orgID, glossaryReadRole, "reading the translations glossary"); err != nil {
		return nil, err
	}
	pq, err := pageQuery(page, limit)
	if err != nil {
		return nil, err
	}
	p, err := r.Store.ListGlossaryEntries(ctx, orgID, pq)
	if err != nil {
		return nil, err
	}
	l := model.GlossaryEntryList(listOf(p, r.glossaryEntryModel))
	return &l, nil
}
