package graph

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"docsapi/apierr"
	"docsapi/graph/model"
	"docsapi/merge"
	"docsapi/pdf"
	"docsapi/storage"
)

// Change requests: branches of a space's content (see storage/changerequests.go
// for how their revisions are kept and merge/ for the three-way merge).

const maxChangeRequestSubject = 100

// changeRequestIn loads a change request of a space the caller can see
// (404 for both unknown and invisible), by id or number.
func (r *Resolver) changeRequestIn(ctx context.Context, spaceID, ref string) (storage.Space, ContentScope, storage.ChangeRequest, error) {
	sp, s, err := r.spaceScope(ctx, spaceID, chainOnly, false)
	if err != nil {
		return sp, s, storage.ChangeRequest{}, err
	}
	cr, err := r.Store.ChangeRequest(ctx, sp.ID, ref)
	return sp, s, cr, notFoundAs(err, "change request")
}

// changeRequestError maps the storage refusals of change request writes.
func changeRequestError(err error) error {
	if errors.Is(err, storage.ErrChangeRequestClosed) {
		return apierr.Conflict("the change request is merged or archived: its content no longer changes")
	}
	return notFoundAs(err, "change request")
}

func (r *Resolver) changeRequestModel(c storage.ChangeRequest, users map[string]storage.User) *model.ChangeRequest {
	base := r.Config.PublicURL
	m := &model.ChangeRequest{Object: "change-request", ID: c.ID, Number: c.Number, Status: model.ChangeRequestStatus(c.Status),
		Subject: c.Subject, AgentTaskID: c.AgentTaskID, CreatedAt: model.Time(c.CreatedAt), UpdatedAt: model.Time(c.UpdatedAt),
		Revision: c.Revision, RevisionInitial: c.RevisionInitial, RevisionMergedAncestor: c.RevisionMergedAncestor,
		RevisionMerged: c.RevisionMerged, Comments: c.Comments, Outdated: c.Outdated(),
		Urls: model.ChangeRequestURLs{Location: base + "/v1/spaces/" + c.SpaceID + "/change-requests/" + c.ID,
			App: r.appURL(c.SpaceID, "change-requests", c.ID)}}
	if u, ok := users[c.CreatedBy]; ok {
		m.CreatedBy = r.userModel(u)
	} else {
		m.CreatedBy = &model.User{Object: "user", ID: c.CreatedBy, Urls: model.UserURLs{Location: base + "/v1/users/" + c.CreatedBy}}
	}
	return m
}

// changeRequestModels converts change requests with their creators read in
// one query.
func (r *Resolver) changeRequestModels(ctx context.Context, crs ...storage.ChangeRequest) ([]*model.ChangeRequest, error) {
	ids := make([]string, 0, len(crs))
	for _, c := range crs {
		ids = append(ids, c.CreatedBy)
	}
	users, err := r.Store.UsersByIDs(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]*model.ChangeRequest, 0, len(crs))
	for _, c := range crs {
		out = append(out, r.changeRequestModel(c, users))
	}
	return out, nil
}

func (r *Resolver) oneChangeRequest(ctx context.Context, c storage.ChangeRequest) (*model.ChangeRequest, error) {
	out, err := r.changeRequestModels(ctx, c)
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// mergedFrom is the change request a merge revision came from.
func (r *Resolver) mergedFrom(ctx context.Context, cs contentScope, rev storage.Revision) (*model.ChangeRequest, error) {
	if rev.MergedFrom == "" {
		return nil, nil
	}
	cr, err := r.Store.ChangeRequest(ctx, cs.Head.ID, rev.MergedFrom)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return r.oneChangeRequest(ctx, cr)
}

func (r *Resolver) listChangeRequests(ctx context.Context, spaceID string, status *model.ChangeRequestStatus, contributor *string, page *string, limit *int) (*model.ChangeRequestList, error) {
	sp, s, err := r.spaceScope(ctx, spaceID, chainOnly, false)
	if err != nil {
		return nil, err
	}
	if err := s.require("read", "listing change requests"); err != nil {
		return nil, err
	}
	pq, err := pageQuery(page, limit)
	if err != nil {
		return nil, err
	}
	f := storage.ChangeRequestFilter{Status: "open"}
	if status != nil {
		if err := checkEnum("status", *status, model.ChangeRequestStatuses.List()); err != nil {
			return nil, err
		}
		f.Status = string(*status)
	}
	if contributor != nil {
		f.Contributor = *contributor
	}
	p, err := r.Store.ListChangeRequests(ctx, sp.ID, f, pq)
	if err != nil {
		return nil, err
	}
	items, err := r.changeRequestModels(ctx, p.Items...)
	if err != nil {
		return nil, err
	}
	out := &model.ChangeRequestList{Count: p.Count, Items: items}
	if p.Next != nil {
		out.Next = &model.Next{Page: p.Next.Encode()}
	}
	return out, nil
}

func (r *Resolver) createChangeRequest(ctx context.Context, spaceID string, in model.CreateChangeRequestInput) (*model.ChangeRequest, error) {
	sp, s, err := r.SpaceForContentChange(ctx, spaceID, "edit")
	if err != nil {
		return nil, err
	}
	// The create body has no cap on the subject; the PATCH cap keeps both alike.
	if err := firstErr(checkLenPtr("subject", in.Subject, 0, maxChangeRequestSubject), checkLenPtr("agentTaskId", in.AgentTaskID, 0, 256)); err != nil {
		return nil, err
	}
	id := storage.NewID()
	ctx = storage.RecordingChange(ctx, changeRequestChange(sp, id, "opened", map[string]any{"subject": deref(in.Subject), "status": "draft"}))
	cr, err := r.Store.CreateChangeRequest(ctx, id, sp.ID, s.Caller.UserID, deref(in.Subject), in.AgentTaskID)
	if err != nil {
		return nil, err
	}
	return r.oneChangeRequest(ctx, cr)
}

func (r *Resolver) updateChangeRequest(ctx context.Context, spaceID, ref string, in model.UpdateChangeRequestInput) (*model.ChangeRequest, error) {
	sp, s, cr, err := r.changeRequestIn(ctx, spaceID, ref)
	if err != nil {
		return nil, err
	}
	if err := s.require("edit", "changing a change request"); err != nil {
		return nil, err
	}
	if err := checkLenPtr("subject", in.Subject, 0, maxChangeRequestSubject); err != nil {
		return nil, err
	}
	var status *string
	if in.Status != nil {
		if *in.Status == "merged" || !in.Status.IsValid() {
			return nil, apierr.Invalid("status", "must be one of draft, open, archived (got %q); a change request is merged by merging it", string(*in.Status))
		}
		if cr.Status == "merged" {
			return nil, apierr.Conflict("the change request is merged: its status no longer changes")
		}
		v := string(*in.Status)
		status = &v
	}
	if status != nil {
		ctx = changeRequestStatusChange(ctx, sp, cr, *status)
	}
	if err := r.Store.UpdateChangeRequest(ctx, sp.ID, cr.ID, in.Subject, status); err != nil {
		return nil, changeRequestError(err)
	}
	cr, err = r.Store.ChangeRequest(ctx, sp.ID, cr.ID)
	if err != nil {
		return nil, err
	}
	return r.oneChangeRequest(ctx, cr)
}

// mergeChangeRequest merges into the main content (update false: needs the
// merge permission, REVIEW on a live space) or brings the main content into
// the change request (update true: EDIT on a live space).
func (r *Resolver) mergeChangeRequest(ctx context.Context, spaceID, ref string, update bool) (*model.ChangeRequestResult, error) {
	min := model.Role("review")
	if update {
		min = "edit"
	}
	sp, _, err := r.SpaceForContentChange(ctx, spaceID, min)
	if err != nil {
		return nil, err
	}
	cr, err := r.Store.ChangeRequest(ctx, sp.ID, ref)
	if err != nil {
		return nil, notFoundAs(err, "change request")
	}
	m := storage.MergeChange{SpaceID: sp.ID, ChangeRequest: cr.ID, Update: update, Analyzer: r.analyzer(), Merge: merge.Trees}
	if !update {
		// A merge is a new revision of the space's content too.
		m.Revision = storage.NewID()
		ctx = storage.Recording(ctx, func() []storage.Change {
			return []storage.Change{changeRequestChange(sp, cr.ID, "merged", map[string]any{"revision": m.Revision}),
				storage.PageChanged(sp.OrganizationID, sp.ID, m.Revision)}
		})
	}
	rev, err := r.Store.MergeChangeRequest(ctx, m)
	var conflict *merge.ConflictError
	if errors.As(err, &conflict) {
		return &model.ChangeRequestResult{Revision: cr.Revision, Result: "conflicts"}, nil
	}
	if err != nil {
		return nil, changeRequestError(err)
	}
	if update {
		return &model.ChangeRequestResult{Revision: rev, Result: "update"}, nil
	}
	return &model.ChangeRequestResult{Revision: rev, Result: "merge"}, nil
}

// pdfTokenTTL is how long a PDF link works.
const pdfTokenTTL = time.Hour

// changeRequestPDF signs a link to the PDF of the change request's head
// (or of one page of it, with its sub-pages unless only): the PDF is
// rendered when the link is fetched (RenderPDF).
func (r *Resolver) changeRequestPDF(ctx context.Context, spaceID, ref string, page *string, only *bool) (*model.ChangeRequestPDF, error) {
	sp, s, cr, err := r.changeRequestIn(ctx, spaceID, ref)
	if err != nil {
		return nil, err
	}
	if err := s.require("read", "exporting a change request"); err != nil {
		return nil, err
	}
	return r.signPDF(ctx, sp.ID, cr.Revision, "change request", page, only)
}

// spacePDF signs a link to the PDF of the space's main content (getSpacePDF),
// as changeRequestPDF does for a change request's.
func (r *Resolver) spacePDF(ctx context.Context, spaceID string, page *string, only *bool) (*model.ChangeRequestPDF, error) {
	cs, err := r.contentSpace(ctx, spaceID, false)
	if err != nil {
		return nil, err
	}
	return r.signPDF(ctx, cs.Space.ID, cs.Space.RevisionID, "space", page, only)
}

// signPDF is the signed link to revID's PDF (one page of it when page is
// set, with its sub-pages unless only); what names the content for the
// page's 400.
func (r *Resolver) signPDF(ctx context.Context, spaceID, revID, what string, page *string, only *bool) (*model.ChangeRequestPDF, error) {
	claims := jwt.MapClaims{"sub": "pdf", "space": spaceID, "rev": revID, "exp": r.Now().Add(pdfTokenTTL).Unix()}
	if page != nil && *page != "" {
		if _, err := r.Store.RevisionPage(ctx, revID, *page, false); err != nil {
			return nil, apierr.Invalid("page", "no page %q in the %s", *page, what)
		}
		claims["page"] = *page
		claims["only"] = only != nil && *only
	}
	tok, err := r.Signer.Sign(ctx, claims)
	if err != nil {
		return nil, err
	}
	return &model.ChangeRequestPDF{URL: r.Config.PublicURL + "/pdf/" + spaceID + "/" + revID + "?token=" + url.QueryEscape(tok)}, nil
}

// RenderPDF checks a signed PDF link and renders the revision it names:
// every page in tree order, or one page (with its sub-pages unless only).
func (r *Resolver) RenderPDF(ctx context.Context, spaceID, revID, token string) ([]byte, error) {
	claims, err := r.Signer.Verify(ctx, token)
	if err != nil || claims["sub"] != "pdf" || claims["space"] != spaceID || claims["rev"] != revID {
		return nil, apierr.Unauthorized("the PDF link is invalid or has expired")
	}
	head, err := r.Store.SpaceHead(ctx, spaceID)
	if err != nil {
		return nil, notFoundAs(err, "space")
	}
	pageID, _ := claims["page"].(string)
	only, _ := claims["only"].(bool)
	// A revision never changes: its PDF is rendered once (per page choice
	// and title), by one render however many fetch it at once, and the
	// render stops when every one of them has left.
	key := fmt.Sprintf("%s|%s|%s|%t|%s", spaceID, revID, pageID, only, head.Title)
	return r.renders().pdfs.Do(ctx, key, func(ctx context.Context) ([]byte, error) {
		return r.renderRevisionPDF(ctx, head, revID, pageID, only)
	})
}

// renderRevisionPDF renders a revision: every page in tree order, or one
// page (with its sub-pages unless only).
func (r *Resolver) renderRevisionPDF(ctx context.Context, head storage.SpaceHead, revID, pageID string, only bool) ([]byte, error) {
	title := head.Title
	tree, err := r.Store.RevisionPages(ctx, revID)
	if err != nil {
		return nil, err
	}
	bodies, err := r.Store.RevisionBodies(ctx, revID)
	if err != nil {
		return nil, err
	}
	doc := pdf.Document{Title: title}
	depth := map[string]int{}
	inside := map[string]bool{}
	for _, p := range tree {
		d := 0
		if p.ParentID != "" {
			d = depth[p.ParentID] + 1
		}
		depth[p.ID] = d
		switch {
		case pageID == "":
		case p.ID == pageID:
			inside[p.ID] = true
		case !only && inside[p.ParentID]:
			inside[p.ID] = true
		default:
			continue
		}
		if p.Type == "link" {
			continue
		}
		doc.Pages = append(doc.Pages, pdf.Page{Title: p.Title, Depth: d, Markdown: bodies[p.ID]})
	}
	files, err := r.Store.RevisionFiles(ctx, revID)
	if err != nil {
		return nil, err
	}
	byName := map[string]storage.File{}
	for _, f := range files {
		byName[f.Name] = f
	}
	doc.Image = func(dest string) ([]byte, string, bool) {
		f, ok := byName[lastSegment(dest)]
		if !ok {
			return nil, "", false
		}
		b, err := r.Store.FileBytes(ctx, f.Blob)
		return b, f.ContentType, err == nil
	}
	doc.Integration = r.pdfIntegrations(ctx, head.OrganizationID, head.ID, doc.Pages)
	return pdf.Render(ctx, doc)
}

func lastSegment(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' {
			return p[i+1:]
		}
	}
	return p
}

// changeRequestChange describes a change request's change (opened, merged,
// closed) for the organization's webhooks and audit log.
func changeRequestChange(sp storage.Space, crID, what string, fields map[string]any) storage.Change {
	fields["space"] = sp.ID
	return storage.Change{OrganizationID: sp.OrganizationID, Action: "change_request." + what, TargetType: "change_request", TargetID: crID, Fields: fields}
}

// changeRequestStatusChange describes a status change: archiving closes a
// change request, leaving the archive (to draft or open) opens it again.
func changeRequestStatusChange(ctx context.Context, sp storage.Space, cr storage.ChangeRequest, status string) context.Context {
	switch {
	case status == cr.Status:
		return ctx
	case status == "archived":
		return storage.RecordingChange(ctx, changeRequestChange(sp, cr.ID, "closed", map[string]any{"status": status}))
	case cr.Status == "archived":
		return storage.RecordingChange(ctx, changeRequestChange(sp, cr.ID, "opened", map[string]any{"status": status, "reopened": true}))
	}
	return ctx
}
