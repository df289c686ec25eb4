// Package sample makes the content a new installation starts with: a
// "Getting started" space whose pages show every kind of block a page
// holds, published as a site, so that the first published site a newcomer
// opens shows something. It writes through the resolvers, like any client:
// the same rules, audit entries and webhooks as an API call.
package sample

import (
	"context"
	"embed"
	"fmt"

	"docsapi/auth"
	"docsapi/graph"
	"docsapi/graph/model"
)

//go:embed pages/*.md
var pages embed.FS

// page is one sample page: its Markdown body is pages/<slug>.md.
type page struct {
	slug, title, emoji, description string
}

var samplePages = []page{
	{"welcome", "Welcome", "👋", "What this sample shows and where to go next."},
	{"writing-pages", "Writing pages", "✏️", "Every kind of block a docsapi page holds, written in Markdown."},
	{"publishing", "Publishing", "🌐", "How this space became a site, and how to publish your own."},
}

// Made is what Create made.
type Made struct {
	Space, Site string
	// Published is the site's published address.
	Published string
}

// Create makes the sample space and its published site in organization
// org, written as the user adminID (an admin of org).
func Create(ctx context.Context, res *graph.Resolver, org, adminID string) (*Made, error) {
	ctx = auth.WithCaller(ctx, auth.Caller{UserID: adminID, Kind: "api"})
	m := res.Mutation()
	title, emoji := "Getting started", "🚀"
	space, err := m.CreateSpace(ctx, org, &model.CreateSpaceInput{Title: &title, Emoji: &emoji})
	if err != nil {
		return nil, fmt.Errorf("sample space: %w", err)
	}
	for _, p := range samplePages {
		body, err := pages.ReadFile("pages/" + p.slug + ".md")
		if err != nil {
			return nil, err
		}
		markdown := string(body)
		if _, err := m.CreatePage(ctx, model.ContentTarget{Space: &space.ID}, model.CreatePageInput{
			Title: p.title, Slug: &p.slug, Emoji: &p.emoji, Description: &p.description, Markdown: &markdown,
		}); err != nil {
			return nil, fmt.Errorf("sample page %s: %w", p.slug, err)
		}
	}
	site, err := m.CreateSite(ctx, org, &model.CreateSiteInput{Title: &title})
	if err != nil {
		return nil, fmt.Errorf("sample site: %w", err)
	}
	if _, err := m.AddSpaceToSite(ctx, org, site.ID, model.AddSpaceToSiteInput{SpaceID: space.ID}); err != nil {
		return nil, fmt.Errorf("sample site space: %w", err)
	}
	published, err := m.PublishSite(ctx, org, site.ID)
	if err != nil {
		return nil, fmt.Errorf("publishing the sample site: %w", err)
	}
	made := &Made{Space: space.ID, Site: site.ID}
	if published.Urls.Published != nil {
		made.Published = *published.Urls.Published
	}
	return made, nil
}
