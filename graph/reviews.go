package graph

import (
	"context"

	"docsapi/apierr"
	"docsapi/graph/model"
	"docsapi/storage"
)

// Review of change requests (storage/reviews.go): who may ask for reviews
// (EDIT), who may review (REVIEW, the role whose merge permission a review
// informs), and the answers in 0.130.0's shapes.

// maxReviewers bounds one request for reviews.
const maxReviewers = 100

// reviewableChangeRequest loads a change request the caller holds min on
// the space of; merged and archived change requests are not reviewed (409).
func (r *Resolver) reviewableChangeRequest(ctx context.Context, spaceID, ref string, min model.Role, action string) (storage.Space, ContentScope, storage.ChangeRequest, error) {
	sp, s, cr, err := r.changeRequestIn(ctx, spaceID, ref)
	if err != nil {
		return sp, s, cr, err
	}
	if err := s.require(min, action); err != nil {
		return sp, s, cr, err
	}
	if cr.Status != "open" && cr.Status != "draft" {
		return sp, s, cr, apierr.Conflict("the change request is %s: it is no longer reviewed", cr.Status)
	}
	return sp, s, cr, nil
}

// usersOf reads the users that ids name (one query), for the answers.
func (r *Resolver) usersOf(ctx context.Context, ids ...string) (func(id string) *model.User, error) {
	users, err := r.Store.UsersByIDs(ctx, ids)
	if err != nil {
		return nil, err
	}
	return func(id string) *model.User {
		if u, ok := users[id]; ok {
			return r.userModel(u)
		}
		// A user deleted since: the id alone.
		return &model.User{Object: "user", ID: id, Urls: model.UserURLs{Location: r.Config.PublicURL + "/v1/users/" + id}}
	}, nil
}

func requestedReviewerModel(q storage.ReviewRequest, user func(string) *model.User) *model.ChangeRequestRequestedReviewer {
	return &model.ChangeRequestRequestedReviewer{Object: "change-request-requested-reviewer", Kind: "user", User: user(q.UserID),
		Revision: q.Revision, RequestedBy: user(q.RequestedBy), CreatedAt: model.Time(q.CreatedAt)}
}

func (r *Resolver) requestReviewers(ctx context.Context, spaceID, ref string, in model.RequestReviewersInput) (*model.RequestReviewersResult, error) {
	sp, s, cr, err := r.reviewableChangeRequest(ctx, spaceID, ref, "edit", "asking for reviews")
	if err != nil {
		return nil, err
	}
	switch {
	case len(in.Users) == 0:
		return nil, apierr.Invalid("users", "give at least one user")
	case len(in.Users) > maxReviewers:
		return nil, apierr.Invalid("users", "at most %d", maxReviewers)
	}
	if in.Subject != nil {
		if err := checkLen("subject", *in.Subject, 0, maxChangeRequestSubject); err != nil {
			return nil, err
		}
	}
	var users []string
	seen := map[string]bool{}
	for _, id := range in.Users {
		if err := checkLen("users", id, 1, 64); err != nil {
			return nil, err
		}
		if seen[id] {
			continue
		}
		seen[id] = true
		if err := r.requirePrincipal(ctx, sp.OrganizationID, "user", id); err != nil {
			return nil, err
		}
		// A reviewer must be able to review: REVIEW on the space, by
		// the same rules as every other role.
		a, err := r.accessOf(ctx, s.Caller, sp.OrganizationID, id, nil)
		if err != nil {
			return nil, err
		}
		role, err := a.checkedSpaceRole(sp)
		if err != nil {
			return nil, err
		}
		if role < roleRank["review"] {
			return nil, apierr.Invalid("users", "%s does not hold the review role on this space", id)
		}
		users = append(users, id)
	}
	ctx = storage.RecordingChange(ctx, changeRequestChange(sp, cr.ID, "review_requested", map[string]any{"users": users}))
	reqs, err := r.Store.RequestReviewers(ctx, cr.ID, s.Caller.UserID, users, in.Subject)
	if err != nil {
		return nil, notFoundAs(err, "change request")
	}
	user, err := r.usersOf(ctx, append(users, s.Caller.UserID)...)
	if err != nil {
		return nil, err
	}
	out := &model.RequestReviewersResult{Users: []*model.ChangeRequestRequestedReviewer{}}
	for _, q := range reqs {
		out.Users = append(out.Users, requestedReviewerModel(q, user))
	}
	return out, nil
}

func (r *Resolver) removeRequestedReviewer(ctx context.Context, spaceID, ref, userID string) (*model.DeleteResult, error) {
	sp, s, cr, err := r.changeRequestIn(ctx, spaceID, ref)
	if err != nil {
		return nil, err
	}
	if err := s.require("edit", "withdrawing a review request"); err != nil {
		return nil, err
	}
	ctx = storage.RecordingChange(ctx, changeRequestChange(sp, cr.ID, "review_request_removed", map[string]any{"user": userID}))
	removed, err := r.Store.RemoveReviewRequest(ctx, cr.ID, userID)
	if err != nil {
		return nil, err
	}
	return &model.DeleteResult{Deleted: removed}, nil
}

func (r *Resolver) requestedReviewers(ctx context.Context, spaceID, ref string, page *string, limit *int) (*model.ChangeRequestRequestedReviewerList, error) {
	_, _, cr, err := r.changeRequestIn(ctx, spaceID, ref)
	if err != nil {
		return nil, err
	}
	pq, err := pageQuery(page, limit)
	if err != nil {
		return nil, err
	}
	p, err := r.Store.ListReviewRequests(ctx, cr.ID, pq)
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, q := range p.Items {
		ids = append(ids, q.UserID, q.RequestedBy)
	}
	user, err := r.usersOf(ctx, ids...)
	if err != nil {
		return nil, err
	}
	l := model.ChangeRequestRequestedReviewerList(listOf(p, func(q storage.ReviewRequest) *model.ChangeRequestRequestedReviewer {
		return requestedReviewerModel(q, user)
	}))
	return &l, nil
}

func (r *Resolver) submitReview(ctx context.Context, spaceID, ref string, in model.SubmitReviewInput) (*model.ChangeRequestReview, error) {
	sp, s, cr, err := r.reviewableChangeRequest(ctx, spaceID, ref, "review", "reviewing a change request")
	if err != nil {
		return nil, err
	}
	if err := checkEnum("status", in.Status, model.ChangeRequestReviewStatuses.List()); err != nil {
		return nil, err
	}
	rev := storage.Review{ID: storage.NewID(), ChangeRequestID: cr.ID, Reviewer: s.Caller.UserID, Status: string(in.Status)}
	if in.Comment != nil {
		// Checked by the comments family's rules, then posted there first:
		// a review refused after this leaves the comment in place.
		body := &model.CommentBodyInput{Document: in.Comment}
		if _, err := commentBody("comment", body); err != nil {
			return nil, err
		}
		c, err := r.postComment(ctx, sp.ID, &cr.ID, model.PostCommentInput{Body: body})
		if err != nil {
			return nil, err
		}
		rev.CommentID = &c.ID
	}
	ctx = storage.RecordingChange(ctx, changeRequestChange(sp, cr.ID, "reviewed", map[string]any{"status": rev.Status, "review": rev.ID}))
	if err := r.Store.SubmitReview(ctx, &rev); err != nil {
		return nil, notFoundAs(err, "change request")
	}
	out, err := r.reviewModels(ctx, sp.ID, cr.ID, cr.Revision, []storage.Review{rev}, nil)
	if err != nil {
		return nil, err
	}
	return out[0].WithLocation(r.Config.PublicURL + "/v1/spaces/" + sp.ID + "/change-requests/" + cr.ID + "/reviews"), nil
}

func (r *Resolver) reviews(ctx context.Context, spaceID, ref string, format *model.PageFormat, page *string, limit *int) (*model.ChangeRequestReviewList, error) {
	sp, _, cr, err := r.changeRequestIn(ctx, spaceID, ref)
	if err != nil {
		return nil, err
	}
	pq, err := pageQuery(page, limit)
	if err != nil {
		return nil, err
	}
	if err := checkFormat(format); err != nil {
		return nil, err
	}
	p, err := r.Store.ListReviews(ctx, cr.ID, pq)
	if err != nil {
		return nil, err
	}
	items, err := r.reviewModels(ctx, sp.ID, cr.ID, cr.Revision, p.Items, format)
	if err != nil {
		return nil, err
	}
	l := model.ChangeRequestReviewList{Count: p.Count, Items: items}
	if p.Next != nil {
		l.Next = &model.Next{Page: p.Next.Encode()}
	}
	return &l, nil
}

// reviewModels converts reviews of a change request whose head is head,
// with their users read in one query and their comments as the comments
// family answers them.
func (r *Resolver) reviewModels(ctx context.Context, spaceID, crID, head string, rs []storage.Review, format *model.PageFormat) ([]*model.ChangeRequestReview, error) {
	var ids []string
	for _, rv := range rs {
		ids = append(ids, rv.Reviewer)
		if rv.RequestedBy != nil {
			ids = append(ids, *rv.RequestedBy)
		}
	}
	user, err := r.usersOf(ctx, ids...)
	if err != nil {
		return nil, err
	}
	out := make([]*model.ChangeRequestReview, 0, len(rs))
	for _, rv := range rs {
		m := &model.ChangeRequestReview{Object: "change-request-review", ID: rv.ID, Revision: rv.Revision, Reviewer: user(rv.Reviewer),
			Status: model.ChangeRequestReviewStatus(rv.Status), CreatedAt: model.Time(rv.CreatedAt), UpdatedAt: model.Time(rv.CreatedAt),
			Stale: rv.Revision != head}
		if rv.RequestedBy != nil {
			m.RequestedBy = user(*rv.RequestedBy)
		}
		if rv.CommentID != nil {
			c, err := r.getComment(ctx, spaceID, &crID, *rv.CommentID, format)
			if err != nil && apierr.Status(err) != 404 { // a comment deleted since: none
				return nil, err
			}
			m.Comment = c
		}
		out = append(out, m)
	}
	return out, nil
}

func (r *Resolver) contributors(ctx context.Context, spaceID, ref string) (*model.UserContributorList, error) {
	_, _, cr, err := r.changeRequestIn(ctx, spaceID, ref)
	if err != nil {
		return nil, err
	}
	cs, err := r.Store.Contributors(ctx, cr.ID)
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, c := range cs {
		ids = append(ids, c.UserID)
	}
	user, err := r.usersOf(ctx, ids...)
	if err != nil {
		return nil, err
	}
	l := &model.UserContributorList{Count: len(cs), Items: []*model.UserContributor{}}
	for _, c := range cs {
		l.Items = append(l.Items, &model.UserContributor{User: user(c.UserID), Count: c.Edits, UpdatedAt: model.Time(c.UpdatedAt)})
	}
	return l, nil
}

// checkBrokenContext checks listChangeRequestLinks' brokenContext: where a
// link counts as broken, the change request or its space. docsapi judges a
// change request's links in its own content for both, so a valid value
// changes nothing; another one is refused, naming the parameter.
func checkBrokenContext(c *string) error {
	if c != nil && *c != "change-request" && *c != "space" {
		return apierr.Invalid("brokenContext", "must be change-request or space (got %q)", *c)
	}
	return nil
}
