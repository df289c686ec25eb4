package graph

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"strings"

	"docsapi/apierr"
	"docsapi/auth"
	"docsapi/graph/model"
	"docsapi/storage"
)

// Site redirects: a path of a site (from its root) sent to a section, a
// site space or a page. Reading them needs READ (or the site's audience for
// one source: renderers ask for the redirect of a path that names no page);
// changing them needs CREATE, like the site's structure.

const redirectSourceMax = 512

// redirectSourcePattern is the published interface's SiteRedirectSourcePath.
var redirectSourcePattern = regexp.MustCompile(`^/(?:[A-Za-z0-9\-._~]|%[0-9A-Fa-f]{2})+(?:/(?:[A-Za-z0-9\-._~]|%[0-9A-Fa-f]{2})+)*$`)

func checkRedirectSource(field, source string) error {
	if len(source) > redirectSourceMax {
		return apierr.Invalid(field, "must be at most %d characters", redirectSourceMax)
	}
	if !redirectSourcePattern.MatchString(source) {
		return apierr.Invalid(field, "must be a path from the site's root such as /old/page (unreserved characters or %%XX escapes)")
	}
	return nil
}

// checkRedirectDestination checks that a destination names a section, a
// site space or a page of the site; it returns the stored JSON.
func (r *Resolver) checkRedirectDestination(ctx context.Context, st storage.SiteStructure, in *model.SiteRedirectDestinationInput) (string, error) {
	if in == nil {
		return "", apierr.Invalid("destination", "is required")
	}
	out := model.SiteRedirectDestination{Kind: deref(in.Kind)}
	siteSpace := func() (storage.SiteSpace, error) {
		if in.SiteSpaceID == nil {
			return storage.SiteSpace{}, apierr.Invalid("destination.siteSpaceId", "is required for a %s destination", out.Kind)
		}
		for _, ss := range st.SiteSpaces {
			if ss.ID == *in.SiteSpaceID {
				out.SiteSpaceID = &ss.ID
				return ss, nil
			}
		}
		return storage.SiteSpace{}, apierr.Invalid("destination.siteSpaceId", "no site space %q in this site", *in.SiteSpaceID)
	}
	switch out.Kind {
	case "site-section":
		if in.SiteSectionID == nil {
			return "", apierr.Invalid("destination.siteSectionId", "is required for a site-section destination")
		}
		found := false
		for _, sec := range st.Sections {
			found = found || sec.ID == *in.SiteSectionID
		}
		if !found {
			return "", apierr.Invalid("destination.siteSectionId", "no section %q in this site", *in.SiteSectionID)
		}
		out.SiteSectionID = in.SiteSectionID
	case "site-space":
		if _, err := siteSpace(); err != nil {
			return "", err
		}
	case "site-page":
		ss, err := siteSpace()
		if err != nil {
			return "", err
		}
		if in.PageID == nil {
			return "", apierr.Invalid("destination.pageId", "is required for a site-page destination")
		}
		sp, err := r.Store.Space(ctx, ss.SpaceID)
		if err != nil {
			return "", err
		}
		if _, err := r.Store.RevisionPage(ctx, sp.RevisionID, *in.PageID, false); errors.Is(err, storage.ErrNotFound) {
			return "", apierr.Invalid("destination.pageId", "no page %q in the site space's space", *in.PageID)
		} else if err != nil {
			return "", err
		}
		out.PageID = in.PageID
	default:
		return "", apierr.Invalid("destination.kind", "must be site-section, site-space or site-page")
	}
	b, _ := json.Marshal(out)
	return string(b), nil
}

func siteRedirectModel(sr storage.SiteRedirect) *model.SiteRedirect {
	m := &model.SiteRedirect{Object: "site-redirect", ID: sr.ID, Source: sr.Source}
	json.Unmarshal([]byte(sr.Destination), &m.Destination)
	return m
}

// publishedSegments are a site space's path segments in the site's
// published URLs: its section's path unless that is the site's default
// section, then its own path unless it is its section's (or the root's)
// default.
func publishedSegments(site storage.Site, st storage.SiteStructure, ss storage.SiteSpace) []string {
	def := st.DefaultSiteSpaceID
	var out []string
	if ss.SectionID != nil {
		for _, sec := range st.Sections {
			if sec.ID == *ss.SectionID {
				if sec.ID != deref(site.DefaultSectionID) {
					out = append(out, sec.Path)
				}
				def = sec.DefaultSiteSpaceID
			}
		}
	}
	if ss.ID != deref(def) {
		out = append(out, ss.Path)
	}
	return out
}

// redirectTarget is the published URL a destination leads to ("" when
// what it names is gone).
func (r *Resolver) redirectTarget(ctx context.Context, org storage.Organization, site storage.Site, st storage.SiteStructure, d model.SiteRedirectDestination, shareKey *string) (string, error) {
	base := r.siteURL(org, site)
	if d.Kind == "site-section" {
		for _, sec := range st.Sections {
			if sec.ID == deref(d.SiteSectionID) {
				if sec.ID == deref(site.DefaultSectionID) {
					return publishedURL(base, shareKey), nil
				}
				return publishedURL(base, shareKey, sec.Path), nil
			}
		}
		return "", nil
	}
	for _, ss := range st.SiteSpaces {
		if ss.ID != deref(d.SiteSpaceID) {
			continue
		}
		segs := publishedSegments(site, st, ss)
		if d.Kind == "site-page" {
			sp, err := r.Store.Space(ctx, ss.SpaceID)
			if err != nil {
				return "", ignoreNotFound(err)
			}
			p, err := r.Store.RevisionPage(ctx, sp.RevisionID, deref(d.PageID), false)
			if err != nil {
				return "", ignoreNotFound(err)
			}
			segs = append(segs, strings.Split(p.Path, "/")...)
		}
		return publishedURL(base, shareKey, segs...), nil
	}
	return "", nil
}

// siteRedirectTarget is where a site redirect of source sends the
// audience; ok is false when the site has none (or its target is gone).
func (r *Resolver) siteRedirectTarget(ctx context.Context, a audience, source string) (string, bool, error) {
	sr, err := r.Store.SiteRedirectBySource(ctx, a.site.ID, source)
	if errors.Is(err, storage.ErrNotFound) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	st, err := r.Store.SiteStructure(ctx, a.site.ID)
	if err != nil {
		return "", false, err
	}
	to, err := r.redirectTarget(ctx, a.org, a.site, st, siteRedirectModel(sr).Destination, a.shareKey)
	return to, to != "", err
}

// siteRedirectBySource answers getSiteRedirectBySource: members with READ
// read any redirect; a share key or the site's apiToken reads it as the
// site's audience.
func (r *Resolver) siteRedirectBySource(ctx context.Context, orgID, siteID, source string, shareKey *string) (*model.SiteRedirectLookup, error) {
	c, err := readerOf(ctx)
	if err != nil {
		return nil, err
	}
	var org storage.Organization
	var site storage.Site
	if shareKey != nil || c.Kind == auth.KindSite {
		a, err := r.audienceOf(ctx, orgID, siteID, shareKey, nil)
		if err != nil {
			return nil, err
		}
		org, site, shareKey = a.org, a.site, a.shareKey
	} else {
		s, st, err := r.siteScope(ctx, orgID, siteID, "read", "reading site redirects")
		if err != nil {
			return nil, err
		}
		org, site = s.Org, st
	}
	if err := checkRedirectSource("source", source); err != nil {
		return nil, err
	}
	sr, err := r.Store.SiteRedirectBySource(ctx, site.ID, source)
	if err != nil {
		return nil, notFoundAs(err, "redirect")
	}
	st, err := r.Store.SiteStructure(ctx, site.ID)
	if err != nil {
		return nil, err
	}
	m := siteRedirectModel(sr)
	to, err := r.redirectTarget(ctx, org, site, st, m.Destination, shareKey)
	if err != nil {
		return nil, err
	}
	if to == "" {
		return nil, apierr.NotFound("redirect destination")
	}
	return &model.SiteRedirectLookup{Redirect: m, Target: to}, nil
}

func (r *Resolver) siteRedirects(ctx context.Context, orgID, siteID string, page *string, limit *int) (*model.SiteRedirectList, error) {
	if _, _, err := r.siteScope(ctx, orgID, siteID, "read", "reading site redirects"); err != nil {
		return nil, err
	}
	pq, err := pageQuery(page, limit)
	if err != nil {
		return nil, err
	}
	p, err := r.Store.ListSiteRedirects(ctx, siteID, pq)
	if err != nil {
		return nil, err
	}
	l := model.SiteRedirectList(listOf(p, siteRedirectModel))
	return &l, nil
}

// redirectChange checks a create (all fields) or an update (at least one).
func (r *Resolver) redirectChange(ctx context.Context, siteID string, in model.SiteRedirectInput, create bool) (source, destination *string, err error) {
	if !create && in.Source == nil && in.Destination == nil {
		return nil, nil, apierr.Invalid("body", "needs at least one of source, destination")
	}
	if in.Source != nil || create {
		if in.Source == nil {
			return nil, nil, apierr.Invalid("source", "is required")
		}
		if err := checkRedirectSource("source", *in.Source); err != nil {
			return nil, nil, err
		}
		source = in.Source
	}
	if in.Destination != nil || create {
		st, err := r.Store.SiteStructure(ctx, siteID)
		if err != nil {
			return nil, nil, err
		}
		d, err := r.checkRedirectDestination(ctx, st, in.Destination)
		if err != nil {
			return nil, nil, err
		}
		destination = &d
	}
	return source, destination, nil
}

var errRedirectSourceTaken = apierr.Conflict("source: the site already redirects this path")

func (r *Resolver) createSiteRedirect(ctx context.Context, orgID, siteID string, in model.SiteRedirectInput) (*model.SiteRedirect, error) {
	if _, _, err := r.siteScope(ctx, orgID, siteID, "create", "managing site redirects"); err != nil {
		return nil, err
	}
	source, destination, err := r.redirectChange(ctx, siteID, in, true)
	if err != nil {
		return nil, err
	}
	sr := storage.SiteRedirect{SiteID: siteID, Source: *source, Destination: *destination}
	ctx = storage.Recording(ctx, func() []storage.Change {
		return []storage.Change{{OrganizationID: orgID, Action: "site_redirect.created", TargetType: "site_redirect", TargetID: sr.ID,
			Fields: map[string]any{"site": siteID, "source": sr.Source, "destination": json.RawMessage(sr.Destination)}}}
	})
	if err := r.Store.CreateSiteRedirect(ctx, &sr); errors.Is(err, storage.ErrRedirectSourceTaken) {
		return nil, errRedirectSourceTaken
	} else if err != nil {
		return nil, err
	}
	return siteRedirectModel(sr), nil
}

func (r *Resolver) updateSiteRedirect(ctx context.Context, orgID, siteID, id string, in model.SiteRedirectInput) (*model.SiteRedirect, error) {
	if _, _, err := r.siteScope(ctx, orgID, siteID, "create", "managing site redirects"); err != nil {
		return nil, err
	}
	source, destination, err := r.redirectChange(ctx, siteID, in, false)
	if err != nil {
		return nil, err
	}
	f := changed("site", &siteID, "source", source)
	if destination != nil {
		f["destination"] = json.RawMessage(*destination)
	}
	ctx = recordChange(ctx, orgID, "site_redirect.updated", "site_redirect", id, f)
	if err := r.Store.UpdateSiteRedirect(ctx, siteID, id, source, destination); errors.Is(err, storage.ErrRedirectSourceTaken) {
		return nil, errRedirectSourceTaken
	} else if err != nil {
		return nil, notFoundAs(err, "redirect")
	}
	sr, err := r.Store.SiteRedirect(ctx, siteID, id)
	if err != nil {
		return nil, notFoundAs(err, "redirect")
	}
	return siteRedirectModel(sr), nil
}

func (r *Resolver) deleteSiteRedirect(ctx context.Context, orgID, siteID, id string) (*model.DeleteResult, error) {
	_, _, err := r.siteScope(ctx, orgID, siteID, "create", "managing site redirects")
	if apierr.Status(err) == 404 {
		return &model.DeleteResult{Deleted: false}, nil
	}
	if err != nil {
		return nil, err
	}
	ctx = recordChange(ctx, orgID, "site_redirect.deleted", "site_redirect", id, map[string]any{"site": siteID})
	deleted, err := r.Store.DeleteSiteRedirect(ctx, siteID, id)
	if err != nil {
		return nil, err
	}
	return &model.DeleteResult{Deleted: deleted}, nil
}
