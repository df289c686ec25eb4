package graph

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"docsapi/apierr"
	"docsapi/graph/model"
	"docsapi/storage"
)

// Custom fonts: an organization's font families, one woff2 or woff file per
// weight. A face's file is sent with the upload flow (generateStorageUploadURL,
// kind customization_font) and its key given to createCustomFont or
// updateCustomFont, which copy the bytes into custom_font_files (uploads are
// purged after an hour). The files are served publicly (a published site's
// readers load them) at FontsPath + {fontId}/{fileId}.{format}: a replaced
// file gets a new id, so a URL's bytes never change and can be cached forever.
// Any member reads the fonts; creating, changing and deleting them is for
// ADMIN, like the organization's other settings.

// FontsPath is where the font files are served, outside /v1.
const FontsPath = "/fonts/"

// Bounds: faces per font, fonts per organization and bytes per file (a
// woff2 face is typically tens to hundreds of kilobytes).
const (
	maxFontFaces    = 20
	maxCustomFonts  = 100
	maxFontFileSize = 5 << 20
)

func fontFormat(data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte("wOF2")):
		return "woff2"
	case bytes.HasPrefix(data, []byte("wOFF")):
		return "woff"
	}
	return ""
}

func (r *Resolver) customFontOut(s orgScope, f storage.CustomFont) *model.CustomizationFontDefinition {
	out := &model.CustomizationFontDefinition{ID: f.ID, Custom: true, FontFamily: f.FontFamily, FontFaces: make([]*model.FontFace, 0, len(f.Faces)),
		Permissions: model.CustomizationFontDefinitionPermissions{Edit: atLeast(s.Role(), "admin")}}
	for _, face := range f.Faces {
		format := face.Format
		out.FontFaces = append(out.FontFaces, &model.FontFace{Weight: face.Weight, Sources: []*model.FontSource{{
			URL: r.Config.PublicURL + FontsPath + f.ID + "/" + face.FileID + "." + face.Format, Format: &format}}})
	}
	return out
}

func (r *Resolver) customFonts(ctx context.Context, orgID string, page *string, limit *int) (*model.CustomizationFontDefinitionList, error) {
	s, err := r.inOrgAtLeast(ctx, orgID, "read", "reading custom fonts")
	if err != nil {
		return nil, err
	}
	pq, err := pageQuery(page, limit)
	if err != nil {
		return nil, err
	}
	p, err := r.Store.ListCustomFonts(ctx, s.Org.ID, pq)
	if err != nil {
		return nil, err
	}
	l := model.CustomizationFontDefinitionList(listOf(p, func(f storage.CustomFont) *model.CustomizationFontDefinition { return r.customFontOut(s, f) }))
	return &l, nil
}

func (r *Resolver) customFont(ctx context.Context, orgID, id string) (*model.CustomizationFontDefinition, error) {
	s, err := r.inOrgAtLeast(ctx, orgID, "read", "reading custom fonts")
	if err != nil {
		return nil, err
	}
	f, err := r.Store.CustomFont(ctx, s.Org.ID, id)
	if err != nil {
		return nil, notFoundAs(err, "font")
	}
	return r.customFontOut(s, f), nil
}

func (r *Resolver) fontEditScope(ctx context.Context, orgID string) (orgScope, error) {
	s, err := r.inOrgAtLeast(ctx, orgID, "admin", "managing custom fonts")
	if err != nil {
		return s, err
	}
	return s, RequireWrite(ctx)
}

func checkFontWeight(field string, w int) error {
	if w < 1 || w > 1000 {
		return apierr.Invalid(field, "must be from 1 to 1000")
	}
	return nil
}

// fontFile reads the upload of key as a font file of orgID: an unknown,
// expired or other organization's key, another kind of upload or a file
// that is neither woff2 nor woff is a 400 naming field.
func (r *Resolver) fontFile(ctx context.Context, orgID, field, key string, weight int) (storage.CustomFontFile, error) {
	up, err := r.Store.Upload(ctx, key)
	if err == nil && (up.OrganizationID != orgID || r.Now().Sub(up.CreatedAt) > UploadTTL) {
		err = storage.ErrNotFound
	}
	if errors.Is(err, storage.ErrNotFound) {
		return storage.CustomFontFile{}, apierr.Invalid(field, "is not the key of a file uploaded to this organization in the last hour")
	}
	if err != nil {
		return storage.CustomFontFile{}, err
	}
	if up.Kind != "customization_font" {
		return storage.CustomFontFile{}, apierr.Invalid(field, "is the key of a %s upload, not a customization_font one", up.Kind)
	}
	if len(up.Bytes) > maxFontFileSize {
		return storage.CustomFontFile{}, apierr.Invalid(field, "is a file of %d bytes; a font file may have at most %d", len(up.Bytes), maxFontFileSize)
	}
	format := fontFormat(up.Bytes)
	if format == "" {
		return storage.CustomFontFile{}, apierr.Invalid(field, "is not a woff2 or woff file")
	}
	return storage.CustomFontFile{CustomFontFace: storage.CustomFontFace{Weight: weight, Format: format}, Bytes: up.Bytes}, nil
}

func missingRegular() error {
	return apierr.New(412, "fontFaces: a face of weight 400 (regular) is required")
}

func (r *Resolver) createCustomFont(ctx context.Context, orgID string, in model.CreateCustomFontInput) (*model.CustomizationFontDefinition, error) {
	s, err := r.fontEditScope(ctx, orgID)
	if err != nil {
		return nil, err
	}
	if err := checkLen("fontFamily", in.FontFamily, 1, 50); err != nil {
		return nil, err
	}
	if len(in.FontFaces) < 1 || len(in.FontFaces) > maxFontFaces {
		return nil, apierr.Invalid("fontFaces", "must have 1 to %d faces", maxFontFaces)
	}
	if p, err := r.Store.ListCustomFonts(ctx, s.Org.ID, storage.PageQuery{Limit: 0}); err != nil {
		return nil, err
	} else if p.Count >= maxCustomFonts {
		return nil, apierr.Conflict("the organization has %d custom fonts, the most it may have; delete one first", p.Count)
	}
	files := make([]storage.CustomFontFile, 0, len(in.FontFaces))
	var weights []int
	for i, face := range in.FontFaces {
		field := fmt.Sprintf("fontFaces[%d]", i)
		if err := checkFontWeight(field+".weight", face.Weight); err != nil {
			return nil, err
		}
		if slices.Contains(weights, face.Weight) {
			return nil, apierr.Invalid(field+".weight", "repeats weight %d", face.Weight)
		}
		weights = append(weights, face.Weight)
		file, err := r.fontFile(ctx, s.Org.ID, field+".storageKey", face.StorageKey, face.Weight)
		if err != nil {
			return nil, err
		}
		files = append(files, file)
	}
	if !slices.Contains(weights, 400) {
		return nil, missingRegular()
	}
	f := storage.CustomFont{OrganizationID: s.Org.ID, FontFamily: in.FontFamily}
	ctx = recordChange(ctx, s.Org.ID, "custom_font.created", "custom_font", "", map[string]any{"fontFamily": in.FontFamily, "weights": weights})
	if err := r.Store.CreateCustomFont(ctx, &f, files); err != nil {
		return nil, err
	}
	return r.customFontOut(s, f), nil
}

func (r *Resolver) updateCustomFont(ctx context.Context, orgID, id string, in model.UpdateCustomFontInput) (*model.CustomizationFontDefinition, error) {
	s, err := r.fontEditScope(ctx, orgID)
	if err != nil {
		return nil, err
	}
	if in.FontFamily != nil {
		if err := checkLen("fontFamily", *in.FontFamily, 1, 50); err != nil {
			return nil, err
		}
	}
	if len(in.FontFaces) > maxFontFaces {
		return nil, apierr.Invalid("fontFaces", "must have at most %d faces", maxFontFaces)
	}
	if _, err := r.Store.CustomFont(ctx, s.Org.ID, id); err != nil {
		return nil, notFoundAs(err, "font")
	}
	var set []storage.CustomFontFile
	var remove, weights []int
	for i, face := range in.FontFaces {
		field := fmt.Sprintf("fontFaces[%d]", i)
		if err := checkFontWeight(field+".weight", face.Weight); err != nil {
			return nil, err
		}
		if slices.Contains(weights, face.Weight) {
			return nil, apierr.Invalid(field+".weight", "repeats weight %d", face.Weight)
		}
		weights = append(weights, face.Weight)
		if face.StorageKey == nil {
			remove = append(remove, face.Weight)
			continue
		}
		file, err := r.fontFile(ctx, s.Org.ID, field+".storageKey", *face.StorageKey, face.Weight)
		if err != nil {
			return nil, err
		}
		set = append(set, file)
	}
	fields := changed("fontFamily", in.FontFamily)
	if len(weights) > 0 {
		fields["weights"] = weights
	}
	ctx = recordChange(ctx, s.Org.ID, "custom_font.updated", "custom_font", id, fields)
	err = r.Store.UpdateCustomFont(ctx, s.Org.ID, id, in.FontFamily, set, remove, func(faces []storage.CustomFontFace) error {
		if !slices.ContainsFunc(faces, func(f storage.CustomFontFace) bool { return f.Weight == 400 }) {
			return missingRegular()
		}
		return nil
	})
	if err != nil {
		return nil, notFoundAs(err, "font")
	}
	return r.customFont(ctx, orgID, id)
}

func (r *Resolver) deleteCustomFont(ctx context.Context, orgID, id string) (*model.DeleteResult, error) {
	s, err := r.fontEditScope(ctx, orgID)
	if apierr.Status(err) == 404 {
		return &model.DeleteResult{Deleted: false}, nil
	}
	if err != nil {
		return nil, err
	}
	ctx = recordChange(ctx, s.Org.ID, "custom_font.deleted", "custom_font", id, nil)
	deleted, err := r.Store.DeleteCustomFont(ctx, s.Org.ID, id)
	if err != nil {
		return nil, err
	}
	return &model.DeleteResult{Deleted: deleted}, nil
}

// CustomFontFile is the file a font's public URL names (fileName is
// {fileId}.{format}); a 404 for any other.
func (r *Resolver) CustomFontFile(ctx context.Context, fontID, fileName string) (storage.CustomFontFile, error) {
	for _, format := range []string{"woff2", "woff"} {
		if fileID, ok := strings.CutSuffix(fileName, "."+format); ok {
			f, err := r.Store.CustomFontFile(ctx, fontID, fileID)
			if err == nil && f.Format != format {
				err = storage.ErrNotFound
			}
			return f, notFoundAs(err, "font file")
		}
	}
	return storage.CustomFontFile{}, apierr.NotFound("font file")
}
