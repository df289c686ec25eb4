package graph

import (
	"context"
	"regexp"
	"unicode"
	"unicode/utf8"

	"docsapi/apierr"
	"docsapi/graph/model"
	"docsapi/storage"
)

// Limits of space fields.
const (
	spaceTitleMax = 50
	emojiMax      = 50
	iconURLMax    = 2048
)

// spaceAnswer reads a live space as the caller sees it.
func (r *Resolver) spaceAnswer(ctx context.Context, id string) (*model.Space, error) {
	sp, s, err := r.spaceScope(ctx, id, chainOnly, false)
	if err != nil {
		return nil, err
	}
	return r.spaceModel(sp, s.Role), nil
}

// spaceList pages through the spaces of f that a can see, each with its
// permissions. What a can see is selected in SQL (visibleSpaces), so the
// list reads only the page and its total; nothing for those who see it all.
func (r *Resolver) spaceList(ctx context.Context, a *contentAccess, f storage.SpaceFilter, pq storage.PageQuery) (*model.SpaceList, error) {
	f.Visible = a.visibleSpaces()
	p, err := r.Store.ListSpaces(ctx, f, nil, pq)
	if err != nil {
		return nil, err
	}
	if err := a.listed(p.Items); err != nil {
		return nil, err
	}
	l := model.SpaceList(listOf(p, func(s storage.Space) *model.Space { return r.spaceModel(s, a.spaceRole(s)) }))
	return &l, nil
}

// bothVisible is the selection of the spaces both views name (nil: every
// space), the first in Visible where it names only some: a view that names
// every space, or a view given twice (same), adds nothing.
func bothVisible(v, w *storage.SpaceVisibility, same bool) (visible, also *storage.SpaceVisibility) {
	switch {
	case same || w == nil:
		return v, nil
	case v == nil:
		return w, nil
	}
	return v, w
}

// emojiCodepoints accepts emojis written as code points ("1f389", "1f468-200d-1f4bb").
var emojiCodepoints = regexp.MustCompile(`^[0-9a-fA-F]{4,6}(-[0-9a-fA-F]{4,6})*$`)

// checkEmoji accepts an emoji character sequence or its code points.
func checkEmoji(field, v string) error {
	if err := checkLen(field, v, 1, emojiMax); err != nil {
		return err
	}
	if emojiCodepoints.MatchString(v) {
		return nil
	}
	symbol := false
	for _, c := range v {
		switch {
		case unicode.IsSpace(c) || unicode.IsLetter(c) && c < utf8.RuneSelf:
			return apierr.Invalid(field, "must be an emoji")
		case c >= 0x2000:
			symbol = true
		}
	}
	if !symbol {
		return apierr.Invalid(field, "must be an emoji")
	}
	return nil
}

// copyTitle is the title of a duplicate, within the title limit.
func copyTitle(title string) string {
	const suffix = " (copy)"
	runes := []rune(title)
	if keep := spaceTitleMax - utf8.RuneCountInString(suffix); len(runes) > keep {
		runes = runes[:keep]
	}
	return string(runes) + suffix
}

// checkVisibility validates a visibility for a space under parent.
func checkVisibility(v model.ContentVisibility, parent *string) error {
	if err := checkEnum("visibility", v, model.ContentVisibilities.List()); err != nil {
		return err
	}
	if v == "in-collection" && parent == nil {
		return apierr.Invalid("visibility", "in-collection is only for spaces in a collection")
	}
	return nil
}

// emojiOrIcon reads the emoji/icon variant of a PATCH: {emoji}, {icon}, or
// both null to remove. Emoji and icon replace each other.
func emojiOrIcon(in model.UpdateSpaceInput, p *storage.SpacePatch) error {
	emoji, emojiSet := in.Emoji.ValueOK()
	icon, iconSet := in.Icon.ValueOK()
	var none *string
	switch {
	case emoji != nil && icon != nil:
		return apierr.Invalid("icon", "give either emoji or icon, not both")
	case emoji != nil:
		if err := checkEmoji("emoji", *emoji); err != nil {
			return err
		}
		p.Emoji, p.Icon = &emoji, &none
	case icon != nil:
		if err := checkURL("icon", *icon, iconURLMax); err != nil {
			return err
		}
		p.Emoji, p.Icon = &none, &icon
	case emojiSet || iconSet:
		p.Emoji, p.Icon = &none, &none
	}
	return nil
}
